import Glibc
import Testing
@testable import PlayerHost

/// The real `npctl` binary against a real daemon running the demo config (main playing U2,
/// pip paused, a 4-player multiview), asserting on what a user sees: output and exit codes.
/// No sleeps: every npctl run is bounded by `timeout`, and the daemon harness waits with deadlines.
@Suite(.serialized) struct NpctlEndToEndTests {
    /// A demo daemon and a way to run npctl against it.
    final class Demo {
        let daemon: DaemonHarness

        init(config: Bool = true) throws {
            daemon = try DaemonHarness()
            let args = config ? ["--config", DaemonHarness.packageRoot + "/examples/demo.toml"] : []
            guard try daemon.start(args) else {
                daemon.close()
                throw Failed("playerhostd did not start: \(daemon.stderrText)")
            }
        }

        /// Stops the daemon; call it in a `defer`, which also keeps the daemon alive to the end.
        func close() { daemon.close() }

        /// Runs `npctl ARGS` (a shell fragment, so quotes work) with stdout and stderr merged
        /// (or only stderr with `stderrOnly`); `timeout` is the deadline.
        func npctl(_ args: String, stderrOnly: Bool = false) throws -> (status: Int64, output: String) {
            try NpctlEndToEndTests.npctl(args, socket: daemon.socketPath, stderrOnly: stderrOnly)
        }

        /// A JSON result of `npctl ARGS` (which must succeed).
        func json(_ args: String) throws -> JSON {
            let r = try npctl(args)
            #expect(r.status == 0, "npctl \(args): \(r.output)")
            return try JSONParser.parse(r.output)
        }

        /// The Now Playing value, read back over `call` (independent of the verbs under test).
        func nowPlaying() throws -> JSON { try json("call nowPlaying.get") }

        /// A number printed by npctl.
        func number(_ args: String) throws -> Double {
            let r = try npctl(args)
            #expect(r.status == 0, "npctl \(args): \(r.output)")
            return try #require(Double(r.output.split(separator: "\n").first ?? ""), "npctl \(args) printed \(r.output)")
        }
    }

    struct Failed: Error, CustomStringConvertible { let description: String; init(_ d: String) { description = d } }

    static func npctl(_ args: String, socket: String, stderrOnly: Bool = false) throws -> (status: Int64, output: String) {
        let redirect = stderrOnly ? "2>&1 >/dev/null" : "2>&1"
        return try runShell("PLAYERHOST_SOCKET='\(socket)' timeout 30 '\(DaemonHarness.npctl)' \(args) \(redirect)")
    }

    /// Issue 13: `npctl call` passes positional params (moved from PromisesOverSocketTests, the
    /// one test there that needs the real socket and binary).
    @Test func npctlCallPassesPositionalParams() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        let c = try d.client()
        try c.call("session.create", ["id": "main", "kind": "main"])
        let r = try runShell("PLAYERHOST_SOCKET='\(d.socketPath)' timeout 30 '\(DaemonHarness.npctl)' call session.get '[\"main\"]' 2>&1")
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains("\"main\""))
    }

    @Test func statusShowsTitlePositionAndSession() throws {
        let demo = try Demo()
        defer { demo.close() }
        let status = try demo.npctl("now")
        #expect(status.status == 0)
        #expect(status.output.hasPrefix("Playing: U2 — Magnificent  "), "\(status.output)")
        #expect(status.output.hasSuffix("/5:24  [main]\n"), "\(status.output)")
        #expect(try demo.npctl("") == status || demo.npctl("").output.hasPrefix("Playing: U2 — Magnificent  "), "no verb: now")
        #expect(try demo.npctl("status") == (0, "Playing\n"), "playerctl's status")

        let formatted = try demo.npctl("metadata --format '{{artist}} - {{title}} ({{duration(mpris:length)}}) {{lc(status)}} {{session}}{{nope}}'")
        #expect(formatted.output == "U2 - Magnificent (5:24) playing main\n")

        let raw = try demo.json("now --json")
        #expect(raw["session"] == "main")
        #expect(raw["info"]?["title"] == "Magnificent")

        // -s reads another session; pip is paused at 0.
        #expect(try demo.npctl("now --session pip").output == "Paused: Apple — WWDC22 — Explore media metadata publishing  0:00/21:00  [pip]\n")
        #expect(try demo.npctl("metadata title").output == "Magnificent\n")
        #expect(try demo.npctl("metadata artist").output == "U2\n")
        let missing = try demo.npctl("metadata nope")
        #expect(missing.status == 1)
        #expect(missing.output.hasPrefix("No player could handle this command\n"))
        #expect(try demo.npctl("-s metadata nope") == (1, ""))

        let table = try demo.npctl("sessions").output.split(separator: "\n")
        #expect(table.count == 4)
        #expect(table[1].hasPrefix("*  main  main"))
        #expect(table[3].hasPrefix("   race  multiview  host  no"))

        let badTemplate = try demo.npctl("status --format '{{shout(title)}}'")
        #expect(badTemplate == (1, "Could not execute command: unknown template function: shout\n"))
    }

    @Test func playPauseTogglesThroughTheCommandCenter() throws {
        let demo = try Demo()
        defer { demo.close() }
        #expect(try demo.json("now --json")["playbackState"] == "playing")
        let toggle = try demo.npctl("play-pause")
        #expect(toggle == (0, ""), "success prints nothing, like playerctl")
        #expect(try demo.json("now --json")["playbackState"] == "paused")
        #expect(try demo.npctl("play-pause") == (0, ""))
        #expect(try demo.nowPlaying()["playbackState"] == "playing")
        #expect(try demo.npctl("stop") == (0, ""))
        #expect(try demo.nowPlaying()["playbackState"] == "stopped")

        // -s goes to that session's command center; a session without commands refuses.
        #expect(try demo.npctl("play --session pip") == (0, ""))
        #expect(try demo.json("now --json --session pip")["playbackState"] == "playing")
        _ = try demo.json(#"call session.create '{"id":"bare","kind":"main"}'"#)
        let refused = try demo.npctl("play --session bare")
        #expect(refused.status == 1)
        #expect(refused.output.hasPrefix("No player could handle this command\nnpctl: "), "\(refused.output)")
    }

    @Test func positionSeeksAbsoluteAndRelative() throws {
        let demo = try Demo()
        defer { demo.close() }
        // While playing: the relative seek starts from the position computed now, so the
        // difference is 30 plus the little time the processes took (never less than 30).
        let before = try demo.number("position")
        #expect(try demo.npctl("position 30+") == (0, ""))
        let after = try demo.number("position")
        #expect(after - before >= 29.99 && after - before < 35, "moved \(after - before)")

        // Paused, time stands still: exact.
        #expect(try demo.npctl("pause") == (0, ""))
        let p0 = try demo.number("position")
        #expect(try demo.npctl("position 30+") == (0, ""))
        #expect(abs(try demo.number("position") - (p0 + 30)) < 0.01)
        #expect(try demo.npctl("position 10-") == (0, ""))
        #expect(abs(try demo.number("position") - (p0 + 20)) < 0.01)
        #expect(try demo.npctl("position 42") == (0, ""))
        #expect(try demo.number("position") == 42)
        let elapsed = try #require(try demo.nowPlaying()["info"]?["elapsed"]?.doubleValue)
        #expect(abs(elapsed - 42) < 0.01)
        #expect(try demo.npctl("skip-forward 7") == (0, ""))
        #expect(try demo.number("position") == 49)
        #expect(try demo.npctl("skip-backward") == (0, ""), "the session's preferred interval (15)")
        #expect(try demo.number("position") == 34)

        let bad = try demo.npctl("position soon")
        #expect(bad == (1, "Could not execute command: Could not parse position as a number: soon\nnpctl: position takes \(PositionRequest.forms)\n"))
    }

    @Test func rateLoopShuffleAndNext() throws {
        let demo = try Demo()
        defer { demo.close() }
        #expect(try demo.npctl("rate 1.5") == (0, ""))
        #expect(try demo.number("rate") == 1.5)
        let unsupported = try demo.npctl("rate 3")
        #expect(unsupported.status == 1)
        // The demo binds no repeat/shuffle command, so these go to player 0 (config: repeat all).
        #expect(try demo.npctl("loop").output == "Playlist\n")
        #expect(try demo.npctl("loop Track") == (0, ""))
        #expect(try demo.npctl("loop").output == "Track\n")
        #expect(try demo.json("call player.get '{\"session\":\"main\"}'")["repeatMode"] == "one")
        #expect(try demo.npctl("shuffle").output == "Off\n")
        #expect(try demo.npctl("shuffle toggle") == (0, ""))
        #expect(try demo.npctl("shuffle").output == "On\n")
        #expect(try demo.npctl("shuffle off") == (0, ""))
        #expect(try demo.npctl("shuffle") == (0, "Off\n"))
        #expect(try demo.npctl("loop bogus") == (1, "Could not execute command: Got unknown loop status: 'bogus' (expected 'none', 'playlist', or 'track').\n"))
        #expect(try demo.npctl("next") == (0, ""))
        #expect(try demo.nowPlaying()["info"]?["queueIndex"] != 0)
    }

    @Test func promoteMakesPipNowPlayingAndExplainsRefusals() throws {
        let demo = try Demo()
        defer { demo.close() }
        // pip never played, so its audio was never activated (issue 22: sessions activate on
        // their first play): activate it first, as the README says.
        #expect(try demo.npctl("promote pip").output.hasSuffix("pip cannot become active: audio session not active\n"))
        #expect(try demo.npctl("activate pip").status == 0)
        #expect(try demo.npctl("promote pip") == (0, "pip is now its app's active session\n"))
        #expect(try demo.nowPlaying()["session"] == "pip")
        #expect(try demo.npctl("now").output.hasSuffix("[pip]\n"))
        // Media keys now reach pip, not main.
        #expect(try demo.npctl("play") == (0, ""))
        #expect(try demo.json("now --json --session pip")["playbackState"] == "playing")

        #expect(try demo.npctl("demote pip") == (0, "pip is no longer its app's active session\n"))
        #expect(try demo.nowPlaying()["session"] == "main")
        #expect(try demo.npctl("promote main").status == 0)

        _ = try demo.json(#"call session.create '{"id":"bare","kind":"main"}'"#)
        let refused = try demo.npctl("promote bare")
        #expect(refused.status == 1)
        #expect(refused.output.split(separator: "\n").count == 1, "one line: \(refused.output)")
        #expect(refused.output.hasPrefix("npctl: bare cannot become active: "))
        #expect(refused.output.contains("no available command"))
        #expect(try demo.nowPlaying()["session"] == "main")
        #expect(try demo.npctl("demote race").status == 1, "race is not its app's active session")
    }

    @Test func doctorNamesFaultsAndFixes() throws {
        let demo = try Demo()
        defer { demo.close() }
        for call in [#"session.create '{"id":"amb","kind":"main"}'"#,
                     #"audio.configure '{"session":"amb","category":"ambient"}'"#,
                     #"audio.activate '{"session":"amb"}'"#,
                     #"command.bindDefaults '{"session":"amb"}'"#,
                     #"command.enable '{"session":"amb","command":"skipForward","enabled":false}'"#] {
            _ = try demo.json("call " + call)
        }
        let amb = try demo.npctl("doctor amb")
        #expect(amb.status == 0, "a report, not a failure: \(amb.output)")
        #expect(amb.output.contains("amb — kind main, app host"))
        #expect(amb.output.contains("✗ cannot become active"))
        #expect(amb.output.contains("✗ error: category ambient is mixable: never Now Playing"))
        #expect(amb.output.contains(#"fix: npctl call audio.configure '{"session":"amb","category":"playback"}'"#), "\(amb.output)")
        #expect(amb.output.contains("skipForward has a target but is disabled"))
        #expect(!amb.output.contains("✓ title"), "no title published")

        let all = try demo.npctl("doctor")
        #expect(all.status == 0)
        #expect(all.output.hasPrefix("Now Playing: main\n"))
        for id in ["main", "pip", "race", "amb"] { #expect(all.output.contains("\n\(id) — kind ")) }
        #expect(all.output.contains("✓ can become active"))
        #expect(all.output.contains("✓ play "))

        let doctorJSON = try demo.json("doctor amb --json")
        let codes = doctorJSON.arrayValue?.first?["faults"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        #expect(codes.contains("mixableCategory"))

        let missing = try demo.npctl("doctor nope")
        #expect(missing == (1, "npctl: no session 'nope'\n"))
    }

    @Test func followPrintsTheCurrentValueThenEachChange() throws {
        let demo = try Demo()
        defer { demo.close() }
        // bash, for a coprocess and reads with a deadline: the reader takes lines until main is
        // seen playing (so the subscription is in place) before changing anything, then stops
        // the follower.
        let script = """
            coproc F { exec timeout 20 "$N" now --follow; }
            exec 3<&"${F[0]}"; pid=$F_PID
            read -r -t 20 first <&3; a="$first"
            while [ "${a#Playing}" = "$a" ] && read -r -t 20 a <&3; do :; done
            timeout 20 "$N" pause
            read -r -t 20 b <&3
            kill "$pid"; wait "$pid"
            echo "$first"; echo "$a"; echo "$b"
            """
        let lines = try runShell("PLAYERHOST_SOCKET='\(demo.daemon.socketPath)' N='\(DaemonHarness.npctl)' bash -c '\(script)'")
            .output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.dropFirst().first?.hasPrefix("Playing: U2 — Magnificent") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("Paused: U2 — Magnificent") == true, "\(lines)")
        // The first line is the value subscribing sends, which should be the current one (what
        // nowPlaying.get says: playing). Since main's single publication path, right after the
        // daemon starts it can be the state before the demo's autoplay (paused), followed at
        // once by the playing value — a daemon-side race, reported; npctl prints what it gets.
        withKnownIssue("first nowPlaying value after start can predate autoplay", isIntermittent: true) {
            #expect(lines.first?.hasPrefix("Playing: U2 — Magnificent") == true, "\(lines)")
        }
    }

    @Test func missingDaemonOrNothingPlayingIsOneClearLine() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let socket = dir + "/absent.sock"
        let absent = "npctl: no playerhostd at \(socket) — start it with `npctl daemon start`\n"
        for verb in ["doctor", "sessions", "now"] {
            let r = try Self.npctl(verb, socket: socket, stderrOnly: true)
            #expect(r == (1, absent), "\(verb)")
        }
        // playerctl's verbs say what playerctl says when no player is on the bus, then why.
        for verb in ["status", "play", "position 30+", "metadata", "-p playerhost loop"] {
            let r = try Self.npctl(verb, socket: socket, stderrOnly: true)
            #expect(r == (1, "No players found\n" + absent), "\(verb)")
            #expect(try Self.npctl("-s " + verb, socket: socket, stderrOnly: true) == (1, ""), "-s \(verb)")
        }

        // A daemon with no sessions: nothing is Now Playing.
        let demo = try Demo(config: false)
        defer { demo.close() }
        for verb in ["now", "rate"] {
            let r = try demo.npctl(verb, stderrOnly: true)
            #expect(r == (1, "npctl: nothing is Now Playing; name a session with --session\n"), "\(verb)")
        }
        // The exported player is there, Stopped with no track, as playerctl shows it.
        #expect(try demo.npctl("status") == (0, "Stopped\n"))
        #expect(try demo.npctl("loop") == (0, "None\n"))
        #expect(try demo.npctl("position") == (0, "0.000000\n"))
        #expect(try demo.npctl("play", stderrOnly: true).output.hasPrefix("No player could handle this command\n"))
        #expect(try demo.npctl("metadata", stderrOnly: true).output.hasPrefix("No player could handle this command\n"))
        #expect(try demo.npctl("now --json") == (0, "null\n"))
    }
}

/// `npctl daemon start|status|stop`, as the README's first command uses them.
@Suite(.serialized) struct NpctlDaemonLifecycleTests {
    @Test func startWithPassthroughConfigThenStatusThenStop() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let npctl = "PLAYERHOST_SOCKET='\(dir)/s' XDG_STATE_HOME='\(dir)/state' timeout 30 '\(DaemonHarness.npctl)'"
        let start = try runShell("\(npctl) daemon start -- --config '\(DaemonHarness.packageRoot)/examples/demo.toml' 2>&1")
        #expect(start.status == 0, "\(start.output)")
        let sessions = try runShell("\(npctl) sessions")
        #expect(sessions.output.contains("race") && sessions.output.contains("pip"))
        #expect(try runShell("\(npctl) daemon status").status == 0)
        let stop = try runShell("\(npctl) daemon stop")
        #expect(stop.status == 0 && stop.output.contains("stopped"))
        #expect(try runShell("\(npctl) daemon status").status == 3)
    }
}
