import Testing
@testable import PlayerHost

@Suite struct HostConfigTests {
    @Test func parsesTheDemo() throws {
        let c = try HostConfig.load(path: DaemonHarness.packageRoot + "/examples/demo.toml", required: true)
        #expect(c.coalesceMilliseconds == 250)
        #expect(c.sessions.map(\.id) == ["main", "pip", "race"])
        #expect(c.sessions[0].items?.count == 3)
        #expect(c.sessions[0].items?[0].duration == 324)
        #expect(c.sessions[2].players == 4)
        #expect(c.sessions[0].repeatMode == "all")
    }

    @Test func errorsAreOneClearLine() {
        #expect(throws: HostError.self) { try HostConfig.parse("[[session]]\nid = 3\nkind = \"main\"") }
        do {
            _ = try HostConfig.parse("[[session]]\nid = \"a\"\nkind = \"main\"\n[[session]]\nid = \"a\"\nkind = \"pip\"")
            Issue.record("duplicate ids accepted")
        } catch {
            #expect(error.description.contains("'a' appears twice"))
        }
        do {
            _ = try HostConfig.parse("coalesce_ms = [", source: "x.toml")
            Issue.record("broken TOML accepted")
        } catch {
            #expect(error.description.hasPrefix("configuration: x.toml:1:"))
        }
    }

    @Test func missingOptionalFileIsEmptyButNamedFileIsRequired() throws {
        #expect(try HostConfig.load(path: "/nonexistent/p.toml", required: false) == HostConfig())
        #expect(throws: HostError.self) { try HostConfig.load(path: "/nonexistent/p.toml", required: true) }
    }

    @Test func printsBackAsTOMLThatParsesToTheSame() throws {
        var c = HostConfig(sessions: [SessionConfig(id: "main", kind: "main")])
        c.coalesceMilliseconds = 100
        c.sessions[0].items = [ItemConfig(title: "T", duration: 10)]
        #expect(try HostConfig.parse(c.tomlString()) == c)
    }
}
