import Glibc
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

    @Test func completionScriptsForTheThreeShells() throws {
        guard case .print(let bash) = parse("--generate-completion-script", "bash"),
              case .print(let zsh) = parse("--generate-completion-script=zsh"),
              case .print(let fish) = parse("--generate-completion-script", "fish") else {
            Issue.record("no scripts")
            return
        }
        #expect(bash.contains("complete -F _playerhostd playerhostd") && bash.contains("--check-config"))
        #expect(zsh.hasPrefix("#compdef playerhostd") && zsh.contains("'--config=[") && zsh.contains(":_files'"))
        #expect(fish.contains("complete -c playerhostd -l config -r -F"))
        #expect(!bash.contains("ready-fd") && !zsh.contains("ready-fd") && !fish.contains("ready-fd"))
        #expect(parse("--generate-completion-script", "tcsh") == .usageError("'--generate-completion-script' takes bash, zsh or fish, not 'tcsh'"))
        // The bash script is valid bash and completes option names and log levels.
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let script = dir + "/c.bash"
        _ = bash.withCString { p in
            let f = fopen(script, "w")
            defer { if let f { fclose(f) } }
            return f.map { fputs(p, $0) } ?? -1
        }
        let r = try runShell("""
            bash -c '. \(script); COMP_WORDS=(playerhostd --log-level w); COMP_CWORD=2; _playerhostd; echo "${COMPREPLY[*]}"; \
            COMP_WORDS=(playerhostd --print); COMP_CWORD=1; _playerhostd; echo "${COMPREPLY[*]}"'
            """)
        #expect(r.output == "warning\n--print-config\n", "\(r.output)")
    }
}
