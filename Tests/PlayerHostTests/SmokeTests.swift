import Testing
@testable import PlayerHost

@Suite struct SmokeTests {
    @Test func jsonLiterals() {
        let v: JSON = ["a": 1, "b": [true, nil, "x"]]
        #expect(v["a"]?.intValue == 1)
    }
}
