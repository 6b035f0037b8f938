import Glibc
import Testing
@testable import PlayerHost

/// Example tests in swift-argument-parser's style: the real `npctl` against a real demo
/// daemon, each command compared with its whole output (stdout and stderr merged) and exit
/// status. Sessions are paused first wherever a time is printed, so the text is exact.
@Suite(.serialized) struct NpctlExampleTests {
    typealias Demo = NpctlEndToEndTests.Demo

    /// Runs every `(command, status, output)` and expects exactly that.
    static func expect(_ demo: Demo, _ examples: [(String, Int64, String)],
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (args, status, output) in examples {
            let r = try demo.npctl(args)
            #expect(r.status == status && r.output == output, "npctl \(args) → \(r.status): \(r.output)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test func globalOptionsGoBeforeOrAfterTheVerb() throws {
        let demo = try Demo()
        defer { demo.close() }
        let pip = "Paused: Apple — WWDC22 — Explore media metadata publishing  0:00/21:00  [pip]\n"
        try Self.expect(demo, [
            ("--session pip now", 0, pip),
            ("now --session pip", 0, pip),
            ("--socket '\(demo.daemon.socketPath)' --session pip now", 0, pip),
            ("-p playerhost status", 0, "Playing\n"),
            ("status --player playerhost", 0, "Playing\n"),
            ("status -p %any", 0, "Playing\n"),
            ("-s -p nope status", 1, ""),
            ("-p nope status", 1, "No players found\nnpctl: no player 'nope' (players: playerhost)\n"),
            ("-v", 0, "v\(HostVersion.string)\n"),
            ("--version", 0, "v\(HostVersion.string)\n"),
            ("-l", 0, "playerhost\n"),
            ("--json -f x status", 2, "npctl: --json and --format do not go together: pick one\n"),
            ("--json loop -f x", 2, "npctl: --json and --format do not go together: pick one\n"),
            ("--all pause", 0, ""),
            ("--all now --format '{{session}} {{status}}'", 0, "main Paused\npip Paused\nrace Paused\n"),
            ("--json --all play", 0, """
                {"command":"play","session":"main","status":"success"}
                {"command":"play","session":"pip","status":"success"}
                {"command":"play","session":"race","status":"success"}

                """),
        ])
        // The same JSON either way round, paused so that elapsed holds still (the timestamp
        // is each reply's own instant).
        try Self.expect(demo, [("pause --session pip", 0, ""), ("position 0 --session pip", 0, "")])
        var before = try demo.json("--session pip --json now").objectValue ?? [:]
        var after = try demo.json("now --session pip --json").objectValue ?? [:]
        #expect(before.removeValue(forKey: "timestamp") != nil)
        after["timestamp"] = nil
        #expect(JSON.object(before) == JSON.object(after))
        #expect(JSON.object(before) == [
            "session": "pip", "playbackState": "paused", "volume": 1.0, "muted": false,
            "info": ["artist": "Apple", "title": "WWDC22 — Explore media metadata publishing", "duration": 1260.0,
                     "elapsed": 0.0, "rate": 0.0, "defaultRate": 1.0, "queueIndex": 0, "queueCount": 1],
        ])
    }

    @Test func playerctlFormatKeysAndLanguages() throws {
        let demo = try Demo()
        defer { demo.close() }
        _ = try demo.json(#"call session.create '{"id":"loc","kind":"main"}'"#)
        // It publishes automatically: the localized title comes in its item.
        _ = try demo.json(#"call player.load '{"session":"loc","items":[{"title":{"und":"Hello","es":"Hola"},"artist":"Band"}]}'"#)
        _ = try demo.json(#"call player.stop '{"session":"loc"}'"#)
        try Self.expect(demo, [
            ("pause", 0, ""),
            ("position 0", 0, ""),
            ("metadata --format '{{xesam:artist}} - {{xesam:title}} {{duration(mpris:length)}}'", 0, "U2 - Magnificent 5:24\n"),
            // playerctl prints the last key's value only.
            ("metadata xesam:album mpris:length", 0, "324000000\n"),
            ("metadata xesam:album", 0, "No Line on the Horizon\n"),
            // status's context has no metadata (album is empty), as playerctl's.
            ("status --format '{{playerName}}: [{{album}}] {{emoji(status)}} {{default(genre, \"-\")}} {{markup_escape(\"a&b\")}}'", 0,
             "playerhost: [] ⏸️ - a&amp;b\n"),
            ("metadata --format '{{album}} {{mpris:length / 1000000}} {{trunc(title, 3)}}'", 0, "No Line on the Horizon 324.0 Mag…\n"),
            ("status --format '{{uc(title'", 1, "Could not execute command: unexpected end of expression\n"),
            ("status --format '{{shout(title)}}'", 1, "Could not execute command: unknown template function: shout\n"),
            ("--json status --format x", 2, "npctl: --json and --format do not go together: pick one\n"),
            ("now --session loc", 0, "Stopped: Band — Hello  0:00  [loc]\n"),
            ("now --session loc --lang es", 0, "Stopped: Band — Hola  0:00  [loc]\n"),
            ("now --session loc --lang es-MX", 0, "Stopped: Band — Hola  0:00  [loc]\n"),
            ("now --session loc --lang fr", 0, "Stopped: Band — Hello  0:00  [loc]\n"),
            ("--lang es metadata --session loc title", 0, "Hola\n"),
            ("now --lang es", 0, "Paused: U2 — Magnificent  0:00/5:24  [main]\n"),
            ("--lang es", 0, "Paused: U2 — Magnificent  0:00/5:24  [main]\n"),
        ])
        // The default comes from the locale: LC_ALL over LANG; C means und.
        for (env, title) in [("LANG=es_ES.UTF-8", "Hola"), ("LANG=fr_FR.UTF-8 LC_ALL=es_ES.UTF-8", "Hola"), ("LANG=C", "Hello")] {
            let r = try runShell("env \(env) PLAYERHOST_SOCKET='\(demo.daemon.socketPath)' '\(DaemonHarness.npctl)' metadata --session loc title")
            #expect(r == (0, title + "\n"), "\(env)")
        }
    }

    @Test func verbsPeopleReachFor() throws {
        let demo = try Demo()
        defer { demo.close() }
        try Self.expect(demo, [
            ("toggle", 0, ""),
            ("status --format '{{status}}'", 0, "Paused\n"),
            ("position 1:30", 0, ""),
            ("position", 0, "90.000000\n"),
            ("position -5", 0, ""),
            ("position", 0, "85.000000\n"),
            ("position +1:00", 0, ""),
            ("position", 0, "145.000000\n"),
            ("position 30-", 0, ""),
            ("position", 0, "115.000000\n"),
            ("position 0:01:05", 0, ""),
            ("position", 0, "65.000000\n"),
            ("position 1:60", 1, "Could not execute command: Could not parse position as a number: 1:60\nnpctl: position takes \(PositionRequest.forms)\n"),
            ("next", 0, ""),
            ("prev", 0, ""),
            ("queue", 0, "> 1. U2 — Magnificent  5:24\n  2. U2 — Moment of Surrender  7:24\n  3. U2 — Unknown Caller  6:03\n"),
            ("stauts", 2, "Could not execute command: Command not recognized: stauts\nnpctl: unknown verb 'stauts' — did you mean 'status'?\n"),
            ("--session pip plya", 2, "Could not execute command: Command not recognized: plya\nnpctl: unknown verb 'plya' — did you mean 'play'?\n"),
            ("xyzzy", 2, "Could not execute command: Command not recognized: xyzzy\nnpctl: unknown verb 'xyzzy' (npctl --help lists the verbs)\n"),
            ("rate abc", 2, "npctl: The value 'abc' is invalid for '<rate>'\n"),
            ("rate 3", 1, "npctl: changePlaybackRate: rate 3.0 is not one of supportedPlaybackRates (supported: 0.5, 0.75, 1, 1.25, 1.5, 2)\n"),
            ("activate", 2, "npctl: name a session, e.g. npctl activate pip\n"),
        ])
        #expect(try demo.json("call player.get '{\"session\":\"main\"}'")["itemIndex"] == 0)

        // loop goes through the command center; with changeRepeatMode disabled it refuses and
        // the player's mode stays as it was (no way around the command center).
        try Self.expect(demo, [("loop one", 0, ""), ("loop", 0, "Track\n")])
        _ = try demo.json(#"call command.enable '{"session":"main","command":"changeRepeatMode","enabled":false}'"#)
        try Self.expect(demo, [("loop all", 1, "npctl: changeRepeatMode is disabled on session 'main'\n")])
        #expect(try demo.json("call player.get '{\"session\":\"main\"}'")["repeatMode"] == "one")

        // activate: audio.activate, the repair for an interrupted (or deactivated) session.
        _ = try demo.json(#"call audio.deactivate '{"session":"pip"}'"#)
        #expect(try demo.json("call session.get '{\"session\":\"pip\"}'")["audio"]?["active"] == false)
        try Self.expect(demo, [("activate pip", 0, "pip's audio session is active\n")])
        #expect(try demo.json("call session.get '{\"session\":\"pip\"}'")["audio"]?["active"] == true)
    }

    /// Every verb's help has examples; paragraphs are wrapped by the parser, not mid-sentence
    /// in the source (so no line is followed by one starting in lower case inside a paragraph
    /// of a narrow terminal's width).
    /// Issue 23: completions offer files for `open` and `add` (bash's `-f`), the values of the
    /// mode verbs, and the running daemon's session ids after `--session`.
    @Test func completionsOfferFilesModesAndSessions() throws {
        let bash = try runShell("'\(DaemonHarness.npctl)' --generate-completion-script bash").output
        func body(_ function: String) -> String {
            guard let start = bash.range(of: "\n\(function)() {\n") else { return "" }
            let rest = bash[start.upperBound...]
            return String(rest[..<(rest.range(of: "\n}\n")?.lowerBound ?? rest.endIndex)])
        }
        for verb in ["open", "add"] {
            #expect(body("_npctl_\(verb)").contains("__npctl_add_completions -f"), "\(verb) completes no files")
        }
        #expect(body("_npctl_loop").contains("Playlist"))
        #expect(body("_npctl_shuffle").contains("Toggle"))
        #expect(body("_npctl_mute").contains("toggle"))
        #expect(body("_npctl_open").contains("---completion open -- --session"))
        // -p and -i, taken off the command line before the parser, are declared for completion.
        #expect(body("_npctl_status").contains("---completion status -- --player"))
        #expect(body("_npctl_status").contains("---completion status -- --ignore-player"))
        #expect(body("_npctl").contains("---completion -- --player"), "-p before the verb")
        for shell in ["zsh", "fish"] {
            let script = try runShell("'\(DaemonHarness.npctl)' --generate-completion-script \(shell)").output
            #expect(script.contains("---completion status -- --player") || script.contains("status -- --player"), "\(shell)")
        }
    }

    /// Issue 23: `npctl status -p <TAB>` (and `-i`, and `-p` before the verb) offers the players
    /// `npctl -l` lists, from the running daemon: the bash script run as bash runs it.
    @Test func bashCompletesPlayerNamesAfterP() throws {
        let f = try ImportFixture()
        defer { f.close() }
        try f.startFake("fake")
        #expect(try f.waitUntil(10) { try f.sessionIDs() == ["mpris-fake"] })
        let dir = f.harness.directory
        _ = try runShell("mkdir -p '\(dir)/bin' && ln -sf '\(DaemonHarness.npctl)' '\(dir)/bin/npctl' && '\(DaemonHarness.npctl)' --generate-completion-script bash >'\(dir)/npctl.bash'")
        func complete(_ line: String) throws -> [String] {
            let script = """
                export PATH='\(dir)/bin':"$PATH" PLAYERHOST_SOCKET='\(f.harness.socketPath)'
                source '\(dir)/npctl.bash'
                COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<<"$COMP_LINE"
                [ "${COMP_LINE% }" != "$COMP_LINE" ] && COMP_WORDS+=('')
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                _npctl npctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"; printf '%s\\n' "${COMPREPLY[@]}"
                """
            let path = dir + "/complete.sh"
            _ = try runShell("cat > '\(path)' <<'COMPLETE_EOF'\n\(script)\nCOMPLETE_EOF")
            return try runShell("timeout 20 bash '\(path)'").output.split(separator: "\n").map(String.init).sorted()
        }
        #expect(try complete("npctl status -p ") == ["%any", "fake", "playerhost"])
        #expect(try complete("npctl status -p f") == ["fake"])
        #expect(try complete("npctl metadata --ignore-player ") == ["%any", "fake", "playerhost"])
        #expect(try complete("npctl -p ") == ["%any", "fake", "playerhost"])
    }

    @Test func everyVerbsHelpHasExamples() throws {
        let verbs = ["now", "status", "volume", "sessions", "watch", "play", "pause", "play-pause", "stop", "next", "previous", "position",
                     "skip-forward", "skip-backward", "rate", "loop", "shuffle", "metadata", "queue", "promote", "demote",
                     "activate", "doctor", "open", "add", "clear", "remove", "move", "close", "plugins", "ping", "call", "daemon", "daemon stop", "daemon status"]
        for verb in verbs {
            let r = try runShell("COLUMNS=1000 '\(DaemonHarness.npctl)' \(verb) --help")
            #expect(r.status == 0, "\(verb)")
            #expect(r.output.contains("\nExamples:\n  npctl "), "\(verb) --help has no examples")
            // At 1000 columns no sentence of the overview or discussion needs a second line.
            let text = r.output.components(separatedBy: "\nUSAGE:").first ?? ""
            for line in text.split(separator: "\n") where !line.hasPrefix(" ") && line != "Examples:" {
                #expect(line.last.map { ".):".contains($0) } ?? true, "\(verb): '\(line)' ends mid-sentence")
            }
        }
    }

    /// The story `scripts/demo.sh` tells: the demo sessions, then an mpv session opened last
    /// (which interrupts the others); every command its closing hint suggests then works.
    @Test(.enabled(if: MPVFixture.toolsAvailable, "needs mpv and sox"))
    func theDemosSuggestionsWork() throws {
        let demo = try Demo()
        defer { demo.close() }
        let tone = demo.daemon.directory + "/concert-a.ogg"
        let made = try runShell("""
            sox -n -r 44100 -c 2 --comment 'title=Concert A' --comment 'artist=The Sine Waves' '\(tone)' synth 120 sine 440 vol 0.2 && echo ok
            """)
        #expect(made.output == "ok\n")
        // What demo.sh runs.
        try Self.expect(demo, [("open --session mpv '\(tone)'", 0, ""), ("loop one --session mpv", 0, "")])
        #expect(try demo.npctl("now").output.hasPrefix("Playing: The Sine Waves — Concert A  "))
        // Without the repair, promote says why it cannot (the bug report's first try): pip never
        // played, so its audio was never activated (issue 22: not at start, nor by mpv).
        try Self.expect(demo, [("promote pip", 1, "npctl: pip cannot become active: audio session not active\n")])
        // The hint's commands, in order.
        let npctl = "PLAYERHOST_SOCKET='\(demo.daemon.socketPath)' '\(DaemonHarness.npctl)'"
        #expect(try demo.npctl("").output.hasPrefix("Playing: The Sine Waves — Concert A  "))
        try Self.expect(demo, [
            ("status", 0, "Playing\n"),
            ("play-pause", 0, ""),
            ("status --format '{{status}} {{session}}'", 0, "Paused mpv\n"),
            ("metadata --format '{{artist}} - {{title}}'", 0, "The Sine Waves - Concert A\n"),
            ("play-pause", 0, ""),
            ("position 30+", 0, ""),
            ("activate pip && \(npctl) promote pip", 0, "pip's audio session is active\npip is now its app's active session\n"),
            ("status --format '{{session}}'", 0, "pip\n"),
            ("activate main && \(npctl) demote pip", 0, "main's audio session is active\npip is no longer its app's active session\n"),
            ("status --format '{{session}}'", 0, "main\n"),
            ("open '\(tone)'", 0, ""),
        ])
        #expect(try demo.npctl("doctor").status == 0)
        // open replaced mpv's queue with the file and plays it.
        #expect(try demo.npctl("queue --session mpv").output == "> 1. The Sine Waves — Concert A  2:00\n")
    }
}
