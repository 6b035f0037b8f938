import Glibc
import Testing
@testable import PlayerHost

/// One `npctl` command line taken from README.md: the words after `npctl`, as the shell reads
/// them, and the README line it comes from.
struct ReadmeCommand: Hashable, CustomStringConvertible {
    let arguments: String
    let line: Int
    /// From a `code span` in the prose rather than a fenced block: it may name a verb without
    /// the operands it needs (`npctl open`), so a missing operand is not held against it.
    let inline: Bool

    var description: String { "README.md:\(line): npctl \(arguments)" }

    /// Every npctl command in `markdown`: each line of a fenced block (split at `;` and `&&`,
    /// its `# comment` dropped, `a | b` alternatives and `[optional]` parts expanded), then
    /// every code span of the prose that starts with `npctl`. Other programs' lines
    /// (`playerctl`, `systemctl`, `scripts/…`, `socat`) are not npctl's and are left out.
    static func extract(from markdown: String) -> [ReadmeCommand] {
        var commands: [ReadmeCommand] = []
        var prose: [String] = []
        var fenced = false
        for (index, text) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if text.trimmingPrefix(while: { $0 == " " }).hasPrefix("```") {
                fenced.toggle()
                prose.append("")
                continue
            }
            prose.append(fenced ? "" : String(text))
            guard fenced else { continue }
            for command in shellCommands(String(text)) {
                if let arguments = npctlArguments(command) {
                    commands.append(ReadmeCommand(arguments: arguments, line: index + 1, inline: false))
                }
            }
        }
        // Code spans: the odd pieces between backticks (a span may wrap a line).
        var line = 1
        for (i, piece) in prose.joined(separator: "\n").split(separator: "`", omittingEmptySubsequences: false).enumerated() {
            defer { line += piece.count(where: { $0 == "\n" }) }
            guard i % 2 == 1 else { continue }
            let span = String(piece).replacing("\n", with: " ")
            for command in shellCommands(span) {
                if let arguments = npctlArguments(command) {
                    commands.append(ReadmeCommand(arguments: arguments, line: line, inline: true))
                }
            }
        }
        return commands
    }

    /// The words after `npctl` or `$bin/npctl`, placeholders filled in; nil for another program.
    static func npctlArguments(_ command: String) -> String? {
        var words = command.split(separator: " ").map(String.init)
        guard let first = words.first, first == "npctl" || first == "$bin/npctl" else { return nil }
        words.removeFirst()
        // The README's placeholders, as a user would fill them in on the demo.
        let placeholders = ["PLAYER": "main", "<it>": "main"]
        return words.map { placeholders[$0] ?? $0 }.joined(separator: " ")
    }

    /// The simple commands of one shell line: the comment cut, split at `;` and `&&` outside
    /// quotes. `cmd a | b | c` (the README's way of listing alternatives, with or without
    /// spaces: `bash|zsh|fish`) gives `cmd a`, `cmd b`, `cmd c`; `[optional parts]` are left out.
    static func shellCommands(_ line: String) -> [String] {
        var segments: [[String]] = [[""]]   // each segment's `|`-separated parts
        var quote: Character?
        var optionalDepth = 0
        var previous: Character = " "
        var characters = Array(line)[...]
        while let c = characters.popFirst() {
            defer { previous = c }
            if let q = quote {
                if c == q { quote = nil }
                if optionalDepth == 0 { segments[segments.count - 1][segments[segments.count - 1].count - 1].append(c) }
                continue
            }
            switch c {
            case "'", "\"":
                quote = c
            case "#" where previous == " ":
                characters = []
                continue
            case "[" where previous == " ":
                optionalDepth += 1
                continue
            case "]" where optionalDepth > 0:
                optionalDepth -= 1
                continue
            case ";":
                segments.append([""])
                continue
            case "&" where characters.first == "&":
                characters.removeFirst()
                segments.append([""])
                continue
            case "|":
                segments[segments.count - 1].append("")
                continue
            default:
                break
            }
            if optionalDepth == 0 { segments[segments.count - 1][segments[segments.count - 1].count - 1].append(c) }
        }
        func trimmed(_ s: String) -> String {
            String(s.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " "))
        }
        var commands: [String] = []
        for parts in segments {
            let head = trimmed(parts[0])
            guard !head.isEmpty else { continue }
            commands.append(head)
            // Alternatives replace the head's last word; a real pipe (`echo … | socat …`) is
            // several words long and is not one.
            let stem = head.split(separator: " ").dropLast().joined(separator: " ")
            for alternative in parts.dropFirst().map(trimmed) where !alternative.isEmpty && !alternative.contains(" ") {
                commands.append(stem + " " + alternative)
            }
        }
        return commands
    }
}

/// Every npctl command line in README.md is checked against the real npctl (issue 22: "the
/// README shows `npctl send togglePlayPause` — no such verb"). Each must parse: its verb and
/// options exist, which a usage error (exit 2, one `npctl: …` line) would deny. Lines that only
/// talk to the daemon also run, in README order, against one private demo daemon (they tell
/// stories: the restart section creates `keep` and then reads it). Lines that would reach past
/// this machine or into the user's real environment run against a socket no daemon listens on,
/// so they stop at connecting: that they got that far is what shows they parsed.
/// playerctl, systemctl and `scripts/` lines are not npctl's and are not checked here.
@Suite(.serialized) struct ReadmeCommandTests {
    static func readme() throws -> String {
        let r = try runShell("cat '\(DaemonHarness.packageRoot)/README.md'")
        #expect(r.status == 0)
        return r.output
    }

    /// Lines that are parsed but not run, and why.
    static func parseOnlyReason(_ c: ReadmeCommand, mpv: Bool) -> String? {
        let words = c.arguments.split(separator: " ")
        if c.arguments.contains("://") { return "a remote URL" }
        if words.contains("watch") { return "interactive" }
        if words.contains("--follow") || words.contains("-F") { return "never ends" }
        if c.arguments.hasPrefix("daemon stop") { return "would stop the daemon the other lines talk to" }
        if c.arguments.hasPrefix("remote enable") || c.arguments.hasPrefix("remote disable") {
            return "would write remote.toml beside the demo's config (examples/) and take a TCP port"
        }
        // `daemon start` runs: the private daemon answers, so it says "already running" and
        // starts nothing (against an empty socket it would start a daemon).
        if !mpv, needsMPV(c) { return "no mpv or sox here" }
        return nil
    }

    /// The mpv section's verbs act on an mpv session, which takes mpv (and sox for its files).
    static func needsMPV(_ c: ReadmeCommand) -> Bool {
        let words = c.arguments.split(separator: " ")
        guard let verb = words.first else { return false }
        return ["open", "add", "clear", "remove", "move", "close"].contains(verb) || c.arguments.hasPrefix("call mpv.")
            || (verb == "play" && words.count > 1 && Int(words[1]) != nil)
    }

    /// Lines that run and fail for a reason their README context gives: what they print.
    static let expectedFailures: [String: String] = [
        // The block's line before closes the mpv session.
        "call mpv.status": "no mpv session",
        // An imported player: it takes a session bus with mpv-mpris on it.
        "-p mpv.instance15175 pause": "No players found",
        // The demo's sessions have no cover.
        "artwork": "the session shows no artwork",
        "artwork --size 300x300": "the session shows no artwork",
        // The demo does not turn the web remote on (it would take a TCP port); `npctl remote` says it is off.
        "remote pair": "the web remote is off",
        "remote pair --name phone": "the web remote is off",
        "remote devices": "the web remote is off",
        "remote revoke phone": "the web remote is off",
    ]

    /// The README's deliberate usage error: "a usage error (`npctl rate abc`, …) is one line and exit 2".
    static let usageErrorExamples: Set<String> = ["rate abc"]

    /// A usage error: npctl's one line and exit 2 (or the parser's own 64).
    static func isUsageError(_ r: (status: Int64, output: String)) -> Bool { r.status == 2 || r.status == 64 }

    @Test func theExtractorReadsTheREADMEsShapes() {
        #expect(ReadmeCommand.shellCommands("$bin/npctl next; $bin/npctl rate 1.5   # two") == ["$bin/npctl next", "$bin/npctl rate 1.5"])
        #expect(ReadmeCommand.shellCommands("npctl activate pip && npctl promote pip") == ["npctl activate pip", "npctl promote pip"])
        #expect(ReadmeCommand.shellCommands("$bin/npctl daemon status | stop | start [-- playerhostd options]")
                == ["$bin/npctl daemon status", "$bin/npctl daemon stop", "$bin/npctl daemon start"])
        #expect(ReadmeCommand.shellCommands("npctl --generate-completion-script bash|zsh|fish")
                == ["npctl --generate-completion-script bash", "npctl --generate-completion-script zsh", "npctl --generate-completion-script fish"])
        #expect(ReadmeCommand.shellCommands("npctl metadata --format '{{a}} # ; | && {{b}}' # c")
                == ["npctl metadata --format '{{a}} # ; | && {{b}}'"])
        #expect(ReadmeCommand.shellCommands(#"echo '{"a":1}' | socat - UNIX-CONNECT:$SOCK"#) == [#"echo '{"a":1}'"#])
        let md = "x `npctl pin PLAYER` y\n```sh\nplayerctl -p playerhost play\n$bin/npctl   # now\n```\n`npctl\nsessions`"
        #expect(ReadmeCommand.extract(from: md) == [
            ReadmeCommand(arguments: "", line: 4, inline: false),
            ReadmeCommand(arguments: "pin main", line: 1, inline: true),
            ReadmeCommand(arguments: "sessions", line: 6, inline: true),
        ])
    }

    @Test func everyREADMECommandParsesAndTheDaemonOnesRun() throws {
        let commands = ReadmeCommand.extract(from: try Self.readme())
        #expect(commands.count > 60, "the extractor lost the README's commands: \(commands.count)")
        let demo = try NpctlEndToEndTests.Demo()
        defer { demo.close() }
        // The files the mpv lines name, in a working directory and a HOME of the test's own
        // (`~/Music/album/*.flac`), so no line reads or writes the user's.
        let work = demo.daemon.directory + "/readme", home = work + "/home"
        let mpv = MPVFixture.toolsAvailable
        let tones = ["song.ogg"] + (1...4).map { "home/Music/album/\($0).flac" }
        let make = tones.map { mpv ? "sox -n -r 8000 -c 1 --comment 'title=\($0)' '\($0)' synth 60 sine 440 vol 0.1" : "touch '\($0)'" }
        let made = try runShell("mkdir -p '\(home)/Music/album' && cd '\(work)' && \(make.joined(separator: " && ")) && echo ok")
        #expect(made.output == "ok\n")
        let nowhere = demo.daemon.directory + "/no-daemon/control.sock"
        func npctl(_ c: ReadmeCommand, socket: String, timeout: Int) throws -> (status: Int64, output: String) {
            try runShell("cd '\(work)' && export HOME='\(home)' && PLAYERHOST_SOCKET='\(socket)' timeout \(timeout) '\(DaemonHarness.npctl)' \(c.arguments) 2>&1 </dev/null")
        }
        var ran = 0, parsed = 0, seen = Set<String>()
        for c in commands {
            // The same line twice (`npctl doctor` in the prose) is checked once.
            guard seen.insert((c.inline ? "i " : "b ") + c.arguments).inserted else { continue }
            // A verb named in the prose without its operands (`npctl open`) exists all the same.
            func missingOperand(_ r: (status: Int64, output: String)) -> Bool { c.inline && r.output.contains("Missing expected argument") }
            if Self.usageErrorExamples.contains(c.arguments) {
                let r = try npctl(c, socket: nowhere, timeout: 10)
                #expect(Self.isUsageError(r), "\(c) is the README's usage error: \(r.status) \(r.output)")
                parsed += 1
            } else if let reason = Self.parseOnlyReason(c, mpv: mpv) {
                // No daemon there: a line that parsed fails at connecting (exit 1, naming the
                // socket; `daemon stop` finds nothing to stop) or waits for the daemon
                // (--follow: killed by timeout, 124). A usage error is immediate, so 3 s
                // cannot hide one.
                let r = try npctl(c, socket: nowhere, timeout: 3)
                let gotToConnecting = r.status == 124 || r.output.contains("no playerhostd at \(nowhere)")
                    || (c.arguments.hasPrefix("daemon stop") && r.output == "playerhostd is not running\n")
                #expect(!Self.isUsageError(r) && gotToConnecting || missingOperand(r),
                        "\(c) (parsed only: \(reason)) → \(r.status): \(r.output)")
                parsed += 1
            } else {
                let r = try npctl(c, socket: demo.daemon.socketPath, timeout: 20)
                if let failure = Self.expectedFailures[c.arguments] {
                    #expect(r.status == 1 && r.output.contains(failure), "\(c) → \(r.status): \(r.output)")
                } else {
                    #expect(r.status == 0 || missingOperand(r), "\(c) → \(r.status): \(r.output)")
                }
                ran += 1
            }
        }
        print("README.md: \(commands.count) npctl command lines, \(seen.count) distinct: \(ran) run, \(parsed) parsed only")
    }
}
