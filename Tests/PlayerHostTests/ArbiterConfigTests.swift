import Testing
@testable import PlayerHost
@testable import PlayerHostConfig

/// `[arbiter] priority` and `ignore`: parsed, printed back, checked (issue 23).
@Suite struct ArbiterConfigTests {
    @Test func parsesAndPrintsBack() throws {
        let c = try HostConfig.parse("[arbiter]\npriority = [\"spotify\", \"mpv\"]\nignore = [\"chromium\"]\n")
        #expect(c.arbiter?.priority == ["spotify", "mpv"])
        #expect(c.arbiter?.ignore == ["chromium"])
        #expect(try HostConfig.parse(c.tomlString()) == c)
    }

    @Test(arguments: [
        ("[arbiter]\nprioritiy = []\n", "arbiter.prioritiy: unknown key"),
        ("[arbiter]\nignore = \"chromium\"\n", "arbiter.ignore: expected an array"),
        ("[arbiter]\npriority = [\"\"]\n", "arbiter.priority: a name must be 1 to 200 bytes"),
        ("[arbiter]\nignore = [" + Array(repeating: "\"x\"", count: 65).joined(separator: ", ") + "]\n",
         "arbiter.ignore names 65 players; at most 64"),
    ])
    func refusesNamingTheKey(_ toml: String, _ says: String) {
        do {
            _ = try HostConfig.parse(toml, source: "x.toml")
            Issue.record("accepted: \(toml)")
        } catch {
            #expect(error.description.contains(says), "\(error.description)")
        }
    }
}
