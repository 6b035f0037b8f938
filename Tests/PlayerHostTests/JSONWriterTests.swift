import Testing
import PlayerHost

@Suite struct JSONWriterTests {
    @Test(arguments: [
        (JSON.null, "null"), (.bool(true), "true"), (.bool(false), "false"),
        (.int(0), "0"), (.int(7), "7"), (.int(-7), "-7"), (.int(10), "10"), (.int(-1234567890), "-1234567890"),
        (.int(.max), "9223372036854775807"), (.int(.min), "-9223372036854775808"),
        (.string(""), #""""#), (.string("host.ping"), #""host.ping""#),
        (.array([]), "[]"), (.object([:]), "{}"),
        (.array([1, "a", nil, [true]]), #"[1,"a",null,[true]]"#),
        (.object(["only": [:]]), #"{"only":{}}"#),
    ])
    func compactOutput(value: JSON, expected: String) {
        #expect(value.jsonString == expected)
        #expect(value.serialized() == Array(expected.utf8))
    }

    @Test(arguments: [
        (3.0, "3.0"), (-3.0, "-3.0"), (0.1, "0.1"), (1.5, "1.5"), (0.0, "0.0"), (-0.0, "-0.0"),
        (1e16, "1e+16"), (1e-7, "1e-07"), (.leastNonzeroMagnitude, "5e-324"),
        (.greatestFiniteMagnitude, "1.7976931348623157e+308"), (0.30000000000000004, "0.30000000000000004"),
    ])
    func doublesUseShortestRoundTripForm(value: Double, expected: String) throws {
        #expect(JSON.double(value).jsonString == expected)
        // And the text reads back to the very same bits.
        guard case .double(let back) = try JSONParser.parse(expected) else {
            Issue.record("\(expected) did not parse as a double")
            return
        }
        #expect(back.bitPattern == value.bitPattern)
    }

    @Test(arguments: [Double.nan, -Double.nan, .signalingNaN, .infinity, -.infinity])
    func nonFiniteDoublesBecomeNull(value: Double) throws {
        #expect(JSON.double(value).jsonString == "null")
        let wrapped = JSON.object(["x": [.double(value), 1]])
        #expect(wrapped.jsonString == #"{"x":[null,1]}"#)
        #expect(try JSONParser.parse(wrapped.jsonString) == ["x": [nil, 1]])
    }

    @Test func mandatoryEscapes() {
        #expect(JSON.string("a\"b\\c").jsonString == #""a\"b\\c""#)
        #expect(JSON.string("\n\r\t\u{8}\u{C}").jsonString == #""\n\r\t\b\f""#)
        #expect(JSON.string("\u{0}\u{1}\u{1F}").jsonString == #""\u0000\u0001\u001f""#)
    }

    @Test func everyControlCharacterIsEscaped() throws {
        for byte in UInt8(0)..<0x20 {
            let text = JSON.string(String(UnicodeScalar(byte))).serialized()
            #expect(!text.dropFirst().dropLast().contains { $0 < 0x20 }, "byte \(byte)")
            #expect(try JSONParser.parse(text) == .string(String(UnicodeScalar(byte))))
        }
    }

    @Test func onlyRequiredCharactersAreEscaped() {
        // Slash, DEL, non-ASCII and the JavaScript line separators pass through untouched.
        let text = "a/b\u{7F}é中😀\u{2028}\u{2029}"
        #expect(JSON.string(text).serialized() == [0x22] + Array(text.utf8) + [0x22])
    }

    @Test func writeStringMatchesValueWriter() {
        for text in ["", "plain", "q\"uote", "tab\there", "ünïcödé", String(repeating: "x\n", count: 50)] {
            var out: [UInt8] = [0x5B]  // appends after existing content
            JSON.writeString(text, into: &out)
            #expect(out == [0x5B] + JSON.string(text).serialized())
        }
    }

    @Test func writeAppendsToExistingBuffer() {
        var out = Array("prefix:".utf8)
        JSON.array([1, 2]).write(into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "prefix:[1,2]")
    }

    @Test func objectKeysAreSortedByteWise() {
        let value: JSON = ["b": 1, "a": 2, "B": 3, "aa": 4, "": 5, "é": 6, "z": 7]
        #expect(value.jsonString == #"{"":5,"B":3,"a":2,"aa":4,"b":1,"z":7,"é":6}"#)
    }

    /// String's `<` compares canonically (NFC) and would put "f" before "e\u{301}"; bytes don't.
    @Test func keySortIgnoresUnicodeCanonicalOrdering() {
        let decomposed = "e\u{301}"
        #expect("f" < decomposed)  // what a naive sort would do
        let value = JSON.object(["f": 1, decomposed: 2])
        #expect(value.serialized() == Array(#"{"e\#u{301}":2,"f":1}"#.utf8))
    }

    @Test func nestedObjectsAreSortedAtEveryLevel() {
        let value: JSON = ["z": ["y": 1, "x": [["d": 1, "c": 2]]], "a": nil]
        #expect(value.jsonString == #"{"a":null,"z":{"x":[{"c":2,"d":1}],"y":1}}"#)
    }

    @Test func descriptionIsCompactJSON() {
        let value: JSON = ["jsonrpc": "2.0", "id": 1, "result": ["ok": true]]
        #expect(value.description == #"{"id":1,"jsonrpc":"2.0","result":{"ok":true}}"#)
        #expect("\(value)" == value.jsonString)
    }

    // MARK: Round trips

    @Test(arguments: [
        #"{"id":1,"jsonrpc":"2.0","method":"host.ping"}"#,
        #"[0,-1,1.5,-0.0,1e+300,9223372036854775807,-9223372036854775808,"",true,false,null]"#,
        #"{"a":{"b":{"c":[[],[{}],"\u0000\"\\\n"]}},"é":"😀"}"#,
        #"9.223372036854776e+18"#,
    ])
    func canonicalTextRoundTripsExactly(text: String) throws {
        #expect(try JSONParser.parse(text).jsonString == text)
    }

    @Test func nonCanonicalTextNormalizes() throws {
        let text = #" { "b" : [ 1 , 2.50 , "\u0041\/" ] , "a" : 1E2 } "#
        #expect(try JSONParser.parse(text).jsonString == #"{"a":100.0,"b":[1,2.5,"A/"]}"#)
    }

    /// Random strings full of the characters that need care survive write then parse, at every
    /// alignment relative to the parser's 8-byte scan.
    @Test func randomStringsRoundTrip() throws {
        let alphabet: [Unicode.Scalar] = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}",
                                          "\u{7F}", "é", "中", "😀", "\u{2028}", "\u{FFFF}", "\u{10FFFF}"]
        var generator = SplitMix64(seed: 7)
        for _ in 0..<500 {
            var text = ""
            for _ in 0..<Int(generator.next() % 40) {
                text.unicodeScalars.append(alphabet[Int(generator.next() % UInt64(alphabet.count))])
            }
            let value: JSON = [text: [.string(text)]]
            #expect(try JSONParser.parse(value.serialized()) == value)
        }
    }

    @Test func randomValuesRoundTrip() throws {
        var generator = SplitMix64(seed: 99)
        func make(_ depth: Int) -> JSON {
            switch generator.next() % (depth > 3 ? 5 : 7) {
            case 0: return .null
            case 1: return .bool(generator.next() % 2 == 0)
            case 2: return .int(Int64(bitPattern: generator.next()))
            case 3: return .double(Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF) * (generator.next() % 2 == 0 ? 1 : -1))
            case 4: return .string(String(generator.next(), radix: 36))
            case 5: return .array((0..<generator.next() % 5).map { _ in make(depth + 1) })
            default:
                var members: [String: JSON] = [:]
                for _ in 0..<generator.next() % 5 { members[String(generator.next() % 1000)] = make(depth + 1) }
                return .object(members)
            }
        }
        for _ in 0..<300 {
            let value = make(0)
            let text = value.serialized()
            let back = try JSONParser.parse(text)
            #expect(back == value, "\(value)")
            #expect(back.serialized() == text)
        }
    }
}
