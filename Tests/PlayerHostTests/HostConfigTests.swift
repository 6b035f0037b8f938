import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostConfig
@testable import PlayerHostRPC

/// The configuration file: parsed, refused with one clear line naming the key, printed back,
/// and what its keys set (the fairness knobs' limits, the log level). `--check-config` and a
/// daemon refusing a bad file are in `DaemonEndToEndTests`.
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

    // MARK: - The fairness knobs and the output budget (issue 16 item 3)

    @Test func theKnobsAreConfigKeysThatReachTheLimits() throws {
        let config = try HostConfig.parse("""
            max_total_output_mb = 2
            requests_per_turn = 4
            turn_budget_us = 250
            output_high_water_kb = 64
            max_stall_ms = 250
            max_subscriptions_per_client = 3
            """)
        var base = RPCLimits()
        base.maxOutputBytes = 1 << 20
        let l = config.rpcLimits(over: base)
        #expect(l.maxTotalOutputBytes == 2 << 20)
        #expect(l.requestsPerTurn == 4)
        #expect(l.turnBudgetMicroseconds == 250)
        #expect(l.effectiveHighWater == 64 << 10)
        #expect(l.maxStallMilliseconds == 250)
        #expect(l.maxOutputBytes == 1 << 20, "the command line's limits stay")
        #expect(config.maxSubscriptionsPerClient == 3)
        #expect(HostConfig().rpcLimits(over: base) == base, "no keys: the defaults")
    }

    @Test func outOfRangeKnobsAreRefusedWithTheKeyAndItsLine() throws {
        for (text, key) in [("coalesce_ms = 10\nrequests_per_turn = 0\n", "requests_per_turn"),
                            ("\nmax_stall_ms = 5\n", "max_stall_ms"),
                            ("turn_budget_us = 0\n", "turn_budget_us"),
                            ("max_total_output_mb = 0\n", "max_total_output_mb"),
                            ("output_high_water_kb = -1\n", "output_high_water_kb"),
                            ("max_subscriptions_per_client = 0\n", "max_subscriptions_per_client")] {
            #expect {
                try HostConfig.parse(text, source: "ph.toml")
            } throws: { error in
                guard case ConfigError.config(let message) = error else { return false }
                return message.hasPrefix("ph.toml:2: \(key): must be") || message.hasPrefix("ph.toml:1: \(key): must be")
            }
        }
    }

    // MARK: - The log level (issue 12 item 6)

    @Test func anUnknownLevelIsAConfigErrorWithItsName() throws {
        #expect(throws: ConfigError.self) { try HostConfig.parse("log_level = \"loud\"\n") }
        #expect(try HostConfig.parse("log_level = \"debug\"\n").effectiveLogLevel == .debug)
        #expect(try HostConfig.parse("").effectiveLogLevel == .info)
    }
}
