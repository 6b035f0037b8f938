import Glibc
import Testing
@testable import PlayerHost

/// npctl's long-running verbs against a real daemon: `metadata --follow` across a daemon
/// restart, and `watch` in a real terminal (tmux). Every wait polls with a deadline.
@Suite(.serialized) struct NpctlLiveTests {
    /// `--follow` waits for a daemon that is not running yet, keeps printing across `npctl
    /// daemon stop; npctl daemon start`, and ends with 0 on Ctrl-C (SIGINT), as playerctl's.
    @Test func followSurvivesADaemonRestart() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("PLAYERHOST_SOCKET='\(dir)/s' timeout 30 '\(DaemonHarness.npctl)' daemon stop >/dev/null 2>&1; rm -rf '\(dir)'") }
        let config = DaemonHarness.packageRoot + "/examples/demo.toml"
        // bash, for a coprocess and reads with deadlines. Lines are read until main is seen
        // playing (the first value may be the state just before the demo's autoplay); after
        // the restart, any new line proves the follower went on, and pausing main must reach it.
        let script = """
            start() { timeout 30 "$N" daemon start -- --config "$C" >/dev/null; }
            coproc F { exec timeout 60 "$N" metadata --follow --format "{{status}} {{title}}"; }
            exec 3<&"${F[0]}"; pid=$F_PID
            start
            a=""
            while [ "$a" != "Playing Magnificent" ] && read -r -t 20 a <&3; do :; done
            timeout 30 "$N" daemon stop >/dev/null
            start
            timeout 30 "$N" pause
            b=""
            while [ "$b" != "Paused Magnificent" ] && read -r -t 20 b <&3; do :; done
            kill -INT "$pid"; wait "$pid"; rc=$?
            echo "$a"; echo "$b"; echo "rc=$rc"
            """
        let r = try runShell("PLAYERHOST_SOCKET='\(dir)/s' XDG_STATE_HOME='\(dir)/state' N='\(DaemonHarness.npctl)' C='\(config)' bash -c '\(script)'")
        #expect(r.output == "Playing Magnificent\nPaused Magnificent\nrc=0\n", "\(r.output)")
    }

    /// `loop --follow` and `shuffle --follow` print playerctl's words now and on each change
    /// (the command center's mode: a change comes as a commands or players event).
    @Test func loopAndShuffleFollowTheirMode() throws {
        let demo = try NpctlEndToEndTests.Demo()
        defer { demo.close() }
        let script = """
            coproc F { exec timeout 20 "$N" loop --follow; }
            exec 3<&"${F[0]}"; pid=$F_PID
            read -r -t 20 a <&3
            timeout 20 "$N" loop Track
            read -r -t 20 b <&3
            kill "$pid"; wait "$pid"
            coproc G { exec timeout 20 "$N" -F shuffle; }
            exec 4<&"${G[0]}"; pid=$G_PID
            read -r -t 20 c <&4
            timeout 20 "$N" shuffle On
            read -r -t 20 d <&4
            kill "$pid"; wait "$pid"
            echo "$a $b $c $d"
            """
        let r = try runShell("PLAYERHOST_SOCKET='\(demo.daemon.socketPath)' N='\(DaemonHarness.npctl)' bash -c '\(script)'")
        #expect(r.output == "Playlist Track Off On\n", "\(r.output)")
    }

    /// A private tmux server running a shell, polled with deadlines.
    final class Tmux {
        let socket: String
        init(directory: String) throws {
            socket = directory + "/tmux"
            let r = try runShell("tmux -S '\(socket)' new-session -d -x 100 -y 30 'env PS1=\"$ \" bash --norc --noprofile' 2>&1")
            guard r.status == 0 else { throw NpctlEndToEndTests.Failed("tmux: \(r.output)") }
        }
        func keys(_ k: String) throws { try runShell("tmux -S '\(socket)' send-keys \(k)") }
        func screen() throws -> String { try runShell("tmux -S '\(socket)' capture-pane -p").output }
        /// Polls the screen until `done` holds or 20 s pass; returns the last screen.
        @discardableResult
        func wait(_ what: String, _ done: (String) -> Bool) throws -> String {
            let deadline = InfoSnapshot.hostNow() + 20
            var s = try screen()
            while !done(s) {
                if InfoSnapshot.hostNow() > deadline {
                    Issue.record("tmux: waited 20 s for \(what); screen:\n\(s)")
                    return s
                }
                s = try screen()
            }
            return s
        }
        func close() { _ = try? runShell("tmux -S '\(socket)' kill-server") }
    }

    static func line(_ screen: String, _ n: Int) -> String {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        return n < lines.count ? String(lines[n]) : ""
    }

    @Test func watchShowsTheProgressAdvancingAndTakesKeys() throws {
        let demo = try NpctlEndToEndTests.Demo()
        defer { demo.close() }
        let tmux = try Tmux(directory: demo.daemon.directory)
        defer { tmux.close() }
        let run = "echo MARKER; PLAYERHOST_SOCKET='\(demo.daemon.socketPath)' '\(DaemonHarness.npctl)' watch"
        try tmux.keys("\"\(run)\" Enter")
        let first = try tmux.wait("the view") { $0.contains("npctl watch — Now Playing: main") && Self.line($0, 2).contains("/5:24") }
        #expect(Self.line(first, 1) == "▶ Playing  U2 — Magnificent")
        #expect(first.contains(">*  main     main       host  playing  yes     yes"), "\(first)")
        // The position moves with no event from the daemon: the time changes and the event
        // list stays as it was (the daemon sends nothing while main plays steadily).
        // The values subscribing sends arrive on the daemon's next loop turn, so the list is
        // taken once the time has moved once, then compared when it has moved again.
        func time(_ s: String) -> Substring { Self.line(s, 2).split(separator: " ").last ?? "" }
        let t0 = time(first)
        let settled = try tmux.wait("the position to advance") { time($0) != t0 }
        let events = settled.components(separatedBy: "Events\n").last ?? ""
        let t1 = time(settled)
        let later = try tmux.wait("the position to advance again") { time($0) != t1 }
        #expect(later.components(separatedBy: "Events\n").last == events, "no events arrived: \(later)")

        try tmux.keys("Space")
        let paused = try tmux.wait("space to pause") { Self.line($0, 1).hasPrefix("⏸ Paused") }
        #expect(paused.contains("togglePlayPause on main: success"))
        #expect(paused.contains("infoChanged main: paused U2 — Magnificent"))
        #expect(try demo.nowPlaying()["playbackState"] == "paused")

        try tmux.keys("q")
        // The shell's screen is back as it was (the view's lines gone), its prompt waiting
        // (`wait` records an issue at its deadline otherwise).
        try tmux.wait("q to restore the screen") {
            $0.contains("\nMARKER\n") && !$0.contains("npctl watch —") && $0.split(separator: "\n").last == "$"
        }

        // Ctrl-C restores it too.
        try tmux.keys("\"clear; \(run)\" Enter")
        try tmux.wait("the view again") { $0.contains("npctl watch — Now Playing: main") }
        try tmux.keys("C-c")
        try tmux.wait("Ctrl-C to restore the screen") { $0.contains("MARKER") && !$0.contains("npctl watch —") }
    }

    /// Not a terminal: a line per change.
    @Test func watchPrintsLinesWhenNotATerminal() throws {
        let demo = try NpctlEndToEndTests.Demo()
        defer { demo.close() }
        let script = """
            coproc W { exec timeout 30 "$N" watch; }
            read -r -t 20 a <&"${W[0]}"
            timeout 20 "$N" pause
            b=""
            while [ "${b#Paused}" = "$b" ] && read -r -t 20 b <&"${W[0]}"; do :; done
            kill -INT "$W_PID"; wait "$W_PID"; rc=$?
            echo "$a"; echo "$b"; echo "rc=$rc"
            """
        let r = try runShell("PLAYERHOST_SOCKET='\(demo.daemon.socketPath)' N='\(DaemonHarness.npctl)' bash -c '\(script)' </dev/null")
        #expect(r.output == "Playing: U2 — Magnificent  [main]\nPaused: U2 — Magnificent  [main]\nrc=0\n", "\(r.output)")
    }
}
