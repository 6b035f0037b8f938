import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostConfig

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
        #expect(throws: ConfigError.self) { try HostConfig.parse("[[session]]\nid = 3\nkind = \"main\"") }
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
        #expect(throws: ConfigError.self) { try HostConfig.load(path: "/nonexistent/p.toml", required: true) }
    }

    @Test func printsBackAsTOMLThatParsesToTheSame() throws {
        var c = HostConfig(sessions: [SessionConfig(id: "main", kind: "main")])
        c.coalesceMilliseconds = 100
        c.sessions[0].items = [ItemConfig(title: "T", duration: 10)]
        #expect(try HostConfig.parse(c.tomlString()) == c)
    }

    /// Each bad file and the words its one-line error must hold (the key's path, its line when
    /// it is written once, what was expected and what was found).
    static let refused: [(toml: String, says: [String])] = [
        ("[[session]]\nid = \"main\"\nkind = \"main\"\ncategroy = \"playback\"\n",
         ["x.toml:4: session[0].categroy: unknown key (did you mean 'category'?)"]),
        ("coalesce = 3\n", ["x.toml:1: coalesce: unknown key", "coalesce_ms"]),
        ("coalesce_ms = \"x\"\n", ["x.toml:1: coalesce_ms: expected an integer, found a string"]),
        ("command_timeout_ms = 2.5\n", ["command_timeout_ms: expected an integer, found a float"]),
        ("placeholders = [\"Unknown\", 3]\n", ["placeholders[1]: expected a string, found an integer"]),
        ("[session]\nid = \"a\"\n", ["session: expected an array of tables, found a table"]),
        ("[[session]]\nid = \"a\"\nkind = \"main\"\n[[session]]\nid = \"b\"\nkind = \"main\"\nactivate = \"yes\"\n",
         ["session[1].activate: expected a boolean, found a string"]),
        ("[[session]]\nid = \"a\"\nkind = \"main\"\n[[session.item]]\ntitle = \"T\"\nduration = \"long\"\n",
         ["session[0].item[0].duration: expected a number, found a string"]),
        ("[[plugin]]\npath = \"/bin/true\"\nargv = []\n", ["plugin[0].argv: unknown key (did you mean 'args'?)"]),
        ("[mpris]\nenabled = \"no\"\n", ["mpris.enabled: expected a boolean, found a string"]),
    ]

    @Test(arguments: refused.indices) func unknownKeysAndWrongTypesAreRefusedNamingTheKey(_ i: Int) {
        let (toml, says) = Self.refused[i]
        do {
            _ = try HostConfig.parse(toml, source: "x.toml")
            Issue.record("accepted: \(toml)")
        } catch {
            for words in says { #expect(error.description.contains(words), "\(error.description)") }
            #expect(!error.description.contains("coalesce_ms.coalesce_ms"))
        }
    }

    @Test func durationTakesIntegersAndFloats() throws {
        let c = try HostConfig.parse("[[session]]\nid = \"a\"\nkind = \"main\"\n[[session.item]]\ntitle = \"T\"\nduration = 2.5\n")
        #expect(c.sessions[0].items?[0].duration == 2.5)
    }

    /// The schema is the list of what the file may say: a key the types decode but the schema
    /// lacks would be refused as unknown, a key in the schema the types ignore would be dropped.
    @Test func schemaNamesEveryCodingKey() {
        func names(_ keys: [ConfigKey]) -> Set<String> { Set(keys.map(\.name)) }
        #expect(names(HostConfig.schema) == Set(HostConfig.CodingKeys.allCases.map(\.stringValue)))
        #expect(names(SessionConfig.schema) == Set(SessionConfig.CodingKeys.allCases.map(\.stringValue)))
        #expect(names(ItemConfig.schema) == Set(ItemConfig.CodingKeys.allCases.map(\.stringValue)))
        #expect(names(PluginConfig.schema) == Set(PluginConfig.CodingKeys.allCases.map(\.stringValue)))
        #expect(names(MPRISConfig.schema) == Set(MPRISConfig.CodingKeys.allCases.map(\.stringValue)))
        #expect(names(MPVConfig.schema) == Set(MPVConfig.CodingKeys.allCases.map(\.stringValue)))
    }

    /// The real binary: `--check-config` says what is wrong (exit 1) or ok (exit 0) without
    /// starting, and a daemon given the bad file refuses to start with the same message.
    @Test func checkConfigAndStartRefuseATypo() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let bad = d.directory + "/bad.toml", good = d.directory + "/good.toml"
        _ = try runShell("printf '[[session]]\\nid = \"main\"\\nkind = \"main\"\\ncategroy = \"playback\"\\n' > '\(bad)'")
        _ = try runShell("printf 'coalesce_ms = 100\\n' > '\(good)'")
        let checked = try runShell("'\(DaemonHarness.playerhostd)' --check-config '\(bad)' 2>&1; echo \"exit $?\"")
        #expect(checked.output.contains("bad.toml:4: session[0].categroy: unknown key"), "\(checked.output)")
        #expect(checked.output.hasSuffix("exit 1\n"), "\(checked.output)")
        let ok = try runShell("'\(DaemonHarness.playerhostd)' --check-config '\(good)' 2>&1; echo \"exit $?\"")
        #expect(ok.output == "\(good): ok\nexit 0\n")

        #expect(try d.start(["--config", bad]) == false)
        #expect(d.waitForExit()?.status == 78)
        #expect(d.stderrText.contains("session[0].categroy: unknown key"), "\(d.stderrText)")
        #expect(access(d.socketPath, F_OK) != 0)
    }
}
