import Testing
@testable import PlayerHost

/// playerhostd's own command-line reader (no swift-argument-parser in the daemon).
@Suite struct DaemonCommandLineTests {
    func parse(_ args: String...) -> DaemonCommandLine.Outcome {
        DaemonCommandLine.parse(args, version: "9.9.9")
    }

    @Test func everyOptionInBothSpellings() {
        var want = DaemonCommandLine()
        want.socket = "/s"
        want.daemon = true
        want.config = "c.toml"
        want.stateDir = "/st"
        want.printConfig = true
        want.checkConfig = "x.toml"
        want.logLevel = "debug"
        want.maxConnections = 5
        want.maxLineBytes = 2048
        want.maxOutputBytes = 99
        want.readyFD = 3
        #expect(parse("--socket", "/s", "--daemon", "--config", "c.toml", "--state-dir", "/st", "--print-config",
                      "--check-config", "x.toml", "--log-level", "debug", "--max-connections", "5",
                      "--max-line-bytes", "2048", "--max-output-bytes", "99", "--ready-fd", "3") == .run(want))
        #expect(parse("--socket=/s", "--daemon", "--config=c.toml", "--state-dir=/st", "--print-config",
                      "--check-config=x.toml", "--log-level=debug", "--max-connections=5",
                      "--max-line-bytes=2048", "--max-output-bytes=99", "--ready-fd=3") == .run(want))
        #expect(parse() == .run(DaemonCommandLine()), "defaults")
    }

    @Test func helpAndVersionPrint() {
        guard case .print(let help) = parse("--help") else { Issue.record("no help"); return }
        #expect(help.contains("--check-config <file>") && help.contains("USAGE: playerhostd"))
        #expect(!help.contains("ready-fd"), "the internal option stays hidden")
        #expect(parse("-h") == .print(help))
        #expect(parse("--version") == .print("9.9.9\n"))
    }

    @Test func usageErrorsAreOneLine() {
        for (args, says) in [(["--bogus"], "Unknown option '--bogus'"), (["stray"], "Unexpected argument 'stray'"),
                             (["--socket"], "Missing value"), (["--daemon=yes"], "takes no value"),
                             (["--log-level", "loud"], "unknown log level 'loud'"),
                             (["--max-connections", "many"], "needs an integer"),
                             (["--max-connections", "99999999999999999999"], "needs an integer"),
                             (["--max-line-bytes", "10"], "--max-line-bytes >= 1024"),
                             (["--max-connections", "0"], "--max-connections must be > 0")] {
            guard case .usageError(let message) = DaemonCommandLine.parse(args, version: "") else {
                Issue.record("\(args) accepted")
                continue
            }
            #expect(message.contains(says), "\(args): \(message)")
            #expect(!message.contains("\n"))
        }
    }
}
