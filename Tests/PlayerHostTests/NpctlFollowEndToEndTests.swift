import Glibc
import Testing
@testable import PlayerHost

/// `--follow` against playerctl on the same private bus: `playerctl ARGS` and `npctl ARGS`
/// run side by side, each change is made once, and the lines each prints are compared. Each
/// step reads at most one line per follower, with a deadline; a follower is killed at the end.
@Suite(.serialized) struct NpctlFollowEndToEndTests {
    /// One follow, as `(playerctl's lines, npctl's lines)`: the first line (printed once each is
    /// following), then one line after each step's shell command. A missing line is `(none)`.
    static func follow(_ args: String, steps: [String], bus: String, socket: String, directory: String) throws -> ([String], [String]) {
        var script = """
            export DBUS_SESSION_BUS_ADDRESS='\(bus)' PLAYERHOST_SOCKET='\(socket)' N='\(DaemonHarness.npctl)'
            D='\(directory)/follow.$$'; mkdir -p "$D"; mkfifo "$D/p" "$D/n"
            timeout 60 playerctl \(args) >"$D/p" 2>/dev/null & pp=$!
            timeout 60 '\(DaemonHarness.npctl)' \(args) >"$D/n" 2>/dev/null & np=$!
            exec 3<"$D/p" 4<"$D/n"
            line() { read -r -t 10 a <&3 || a="(none)"; read -r -t 10 b <&4 || b="(none)"; printf '%s\\037%s\\036' "$a" "$b"; }
            line

            """
        for s in steps { script += s + "\nline\n" }
        script += "kill $pp $np 2>/dev/null; wait 2>/dev/null; rm -rf \"$D\"\n"
        let path = directory + "/follow.sh"
        _ = try runShell("cat > '\(path)' <<'FOLLOW_EOF'\n\(script)FOLLOW_EOF")
        let out = try runShell("bash '\(path)'", deadline: 120).output
        let pairs = out.split(separator: "\u{1E}").map { $0.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init) }
        return (pairs.map { $0.first ?? "" }, pairs.map { $0.count > 1 ? $0[1] : "" })
    }

    static func change(_ player: String, _ property: String, _ value: String) -> String {
        "gdbus call --session --dest org.mpris.MediaPlayer2.\(player) --object-path /org/mpris/MediaPlayer2 "
            + "--method org.playerhost.Test.Change \(property) \"\(value)\" >/dev/null"
    }

    /// `-a` and `-p a,b` follow whichever selected player changed last (playerctl's "most
    /// recently active"), pick up a player that appears, and drop one that goes.
    @Test func allPlayersFollowWhicheverChangedLast() throws {
        // The host does not pause one imported player for another: only the test changes them.
        let f = try ImportFixture(config: "[mpris]\ninterrupt_imported = false\n")
        defer { f.close() }
        try f.startFake("a")
        try f.startFake("b")
        #expect(try f.waitUntil(10) { try f.sessionIDs() == ["mpris-a", "mpris-b"] })
        #expect(try f.mpris.waitForName())
        let fake = f.harness.directory + "/fake.py"
        let steps = [
            Self.change("a", "PlaybackStatus", "<'Playing'>"),
            Self.change("b", "PlaybackStatus", "<'Playing'>"),
            Self.change("a", "PlaybackStatus", "<'Paused'>"),
            // A title change is not a status change: nothing for `status`; then b's is.
            Self.change("b", "Metadata", "<{'xesam:title': <'Other'>}>") + "; " + Self.change("b", "PlaybackStatus", "<'Paused'>"),
            // A player that appears is asked first.
            "/usr/bin/python3 '\(fake)' c >/dev/null 2>&1 </dev/null & echo $! >\"$D/c.pid\"",
            // One that goes: the one before it again.
            "kill $(cat \"$D/c.pid\")",
        ]
        let (p, n) = try Self.follow("-a status -F -f '{{playerName}} {{status}}'", steps: steps, bus: f.mpris.address,
                                     socket: f.harness.socketPath, directory: f.harness.directory)
        // The first line is the player asked first at start (playerctl: the last name on the
        // bus; npctl: the last in `-l`'s order): a player either way.
        #expect(p.count == steps.count + 1 && n.count == steps.count + 1, "\(p) \(n)")
        #expect(Array(p.dropFirst()) == ["a Playing", "b Playing", "a Paused", "b Paused", "c Paused", "b Paused"], "playerctl: \(p)")
        #expect(Array(n.dropFirst()) == Array(p.dropFirst()), "npctl: \(n)\nplayerctl: \(p)")
        #expect(n.first == "b Paused", "\(n)")

        // -p b,a without -a: b is preferred while it is there whatever a does.
        let preferred = [
            Self.change("a", "PlaybackStatus", "<'Playing'>"),
            Self.change("b", "PlaybackStatus", "<'Playing'>"),
            Self.change("a", "PlaybackStatus", "<'Paused'>") + "; " + Self.change("b", "PlaybackStatus", "<'Paused'>"),
        ]
        let (p2, n2) = try Self.follow("-p b,a status -F -f '{{playerName}} {{status}}'", steps: preferred, bus: f.mpris.address,
                                       socket: f.harness.socketPath, directory: f.harness.directory)
        #expect(p2 == ["b Paused", "(none)", "b Playing", "b Paused"], "playerctl: \(p2)")
        #expect(n2 == p2, "npctl: \(n2)\nplayerctl: \(p2)")
    }

    /// The exported player, paused at 12.5 s with the corpus's session (`PlayerctlDifferentialTests`).
    static func pausedPlayer() throws -> MPRISFixture {
        let f = try MPRISFixture(startDaemon: false)
        #expect(try f.harness.start(["--config", PlayerctlDifferentialTests.config(f)], environment: f.environment))
        #expect(try f.waitForName())
        // The seek's `Seeked` reaches the bus a moment after `position` returns: a follower
        // started before it would print it. `gdbus monitor` sees it go by.
        let script = """
            export DBUS_SESSION_BUS_ADDRESS='\(f.address)' PLAYERHOST_SOCKET='\(f.harness.socketPath)'
            D='\(f.harness.directory)'; mkfifo "$D/seek"
            timeout 20 gdbus monitor --session --dest \(MPRISBridge.busName) >"$D/seek" 2>&1 & pid=$!
            exec 3<"$D/seek"; a=""
            while [ "${a#*owned by}" = "$a" ] && read -r -t 10 a <&3; do :; done
            '\(DaemonHarness.npctl)' pause && '\(DaemonHarness.npctl)' position 12.5
            while [ "${a#*Seeked (int64 12500000}" = "$a" ] && read -r -t 10 a <&3; do :; done
            kill $pid; rm -f "$D/seek"; echo "${a##*Player.}"
            """
        let path = f.harness.directory + "/seek.sh"
        _ = try runShell("cat > '\(path)' <<'SEEK_EOF'\n\(script)\nSEEK_EOF")
        let settled = try runShell("bash '\(path)' 2>&1", deadline: 60).output
        #expect(settled == "Seeked (int64 12500000,)\n", "\(settled)")
        return f
    }

    /// `position --follow` prints on seeks only (playerctl follows `Seeked`): not on play or
    /// pause, and not with the clock; `status --follow` on status changes only, not on seeks.
    @Test func positionFollowsSeeksAndStatusFollowsTheStatus() throws {
        let f = try Self.pausedPlayer()
        defer { f.close() }
        let follow = { (args: String, steps: [String]) in
            try Self.follow(args, steps: steps, bus: f.address, socket: f.harness.socketPath, directory: f.harness.directory)
        }
        let (p, n) = try follow("position -F", ["\"$N\" play; \"$N\" pause; \"$N\" position 30", "\"$N\" position 5-"])
        #expect(p == ["12.500000", "30.000000", "25.000000"], "playerctl: \(p)")
        #expect(n == p, "npctl: \(n)\nplayerctl: \(p)")
        let (ps, ns) = try follow("-F status", ["\"$N\" play", "\"$N\" position 40; \"$N\" pause"])
        #expect(ps == ["Paused", "Playing", "Paused"], "playerctl: \(ps)")
        #expect(ns == ps, "npctl: \(ns)\nplayerctl: \(ps)")
        let (pm, nm) = try follow("metadata -F -f '{{title}} {{status}}'", ["\"$N\" next", "\"$N\" play"])
        #expect(pm == ["Alpha & <Omega> Paused", "Beta Paused", "Beta Playing"], "playerctl: \(pm)")
        #expect(nm == pm, "npctl: \(nm)\nplayerctl: \(pm)")
    }

    /// A template naming `position` is redone every second whatever the verb (playerctl's
    /// tick): a line a second while playing; while paused the same line, so none.
    @Test func aPositionTemplateTicksEverySecondWhilePlaying() throws {
        let f = try Self.pausedPlayer()
        defer { f.close() }
        let (p, n) = try Self.follow("status -F -f '{{status}} {{position}}'", steps: ["\"$N\" play", "true", "true"],
                                     bus: f.address, socket: f.harness.socketPath, directory: f.harness.directory)
        for (tool, lines) in [("playerctl", p), ("npctl", n)] {
            #expect(lines.first == "Paused 12500000", "\(tool): \(lines)")
            let playing = lines.dropFirst().compactMap { l in l.hasPrefix("Playing ") ? Int(l.dropFirst(8)) : nil }
            #expect(playing.count == 3 && playing == playing.sorted() && Set(playing).count == 3, "\(tool): \(lines)")
        }
    }

    /// `-a --follow` survives a daemon restart as the single follow does: an empty line when the
    /// daemon goes (every player vanished), then the players again once it is back.
    @Test func allPlayersFollowSurvivesADaemonRestart() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("PLAYERHOST_SOCKET='\(dir)/s' timeout 30 '\(DaemonHarness.npctl)' daemon stop >/dev/null 2>&1; rm -rf '\(dir)'") }
        let config = DaemonHarness.packageRoot + "/examples/demo.toml"
        let script = """
            start() { timeout 30 "$N" daemon start -- --config "$C" >/dev/null; }
            mkfifo "$D/f"
            timeout 60 "$N" -a status -F -f "{{playerName}} {{status}}" >"$D/f" & pid=$!
            exec 3<"$D/f"
            start
            a=""
            while [ "$a" != "playerhost Playing" ] && read -r -t 20 a <&3; do :; done
            timeout 30 "$N" daemon stop >/dev/null
            read -r -t 20 gone <&3 || gone="(none)"
            start
            timeout 30 "$N" pause
            b=""
            while [ "$b" != "playerhost Paused" ] && read -r -t 20 b <&3; do :; done
            kill -INT "$pid"; wait "$pid"; rc=$?
            echo "$a"; echo "[$gone]"; echo "$b"; echo "rc=$rc"
            """
        let path = dir + "/restart.sh"
        _ = try runShell("cat > '\(path)' <<'RESTART_EOF'\n\(script)\nRESTART_EOF")
        let r = try runShell("D='\(dir)' PLAYERHOST_SOCKET='\(dir)/s' XDG_STATE_HOME='\(dir)/state' N='\(DaemonHarness.npctl)' C='\(config)' bash '\(path)'",
                             deadline: 120)
        #expect(r.output == "playerhost Playing\n[]\nplayerhost Paused\nrc=0\n", "\(r.output)")
    }
}
