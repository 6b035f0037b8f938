import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient

/// A seeded, bounded fuzz of the MPRIS export from a bus peer (issue 21): every exported method
/// and property of both interfaces, well and badly typed, edge values, huge and nested values,
/// wrong paths, interfaces and members, no-reply calls and forged bus-driver signals, pipelined
/// from an in-process sd-bus client against the real daemon on a private dbus-daemon. Meanwhile
/// the socket moves Now Playing between an item with a length and one without (a live stream),
/// so both paths of Seek, SetPosition and Position are hit. Checks: every call is answered
/// (a return or an error, never a timeout), the daemon never dies, answers Peer.Ping and
/// `host.ping` at the end, still owns its name (forged NameLost changed nothing), memory bounded.
///
/// `DBUS_FUZZ_SECONDS` (default 35, at most 60 unless `DBUS_FUZZ_LONG`) and `DBUS_FUZZ_SEED`
/// (default a fixed seed, so CI replays the same requests) change the run;
/// `scripts/fuzz-dbus.sh SECONDS SEED` runs a longer one. To look into a failure,
/// `DBUS_FUZZ_STDERR=<file>` writes the daemon's stderr there and `DBUS_FUZZ_GDB=1` prints its
/// threads' stacks (gdb) when a call went unanswered.
@Suite("DBusFuzz", .serialized)
struct DBusFuzzTests {
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Error replies that mean the daemon did not answer.
    static let unanswered: Set<String> = ["org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout",
                                          "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
                                          "org.freedesktop.DBus.Error.Disconnected"]

    @Test("every exported MPRIS method and property, well and badly typed, from a bus peer")
    func fuzzTheMPRISExport() throws {
        let seconds = min(Double(Self.environment("DBUS_FUZZ_SECONDS") ?? "") ?? 35,
                          Self.environment("DBUS_FUZZ_LONG") == nil ? 60 : 86_400)
        let seed = UInt64(Self.environment("DBUS_FUZZ_SEED") ?? "") ?? 0xDB05_F022
        let tag = "dbus fuzz seed \(seed) (replay: scripts/fuzz-dbus.sh \(Int(seconds)) \(seed))"

        let f = try MPRISFixture()
        defer { f.close() }
        try #require(try f.waitForName(), "the daemon took the MPRIS name")
        guard let pid = f.harness.process?.pid else { Issue.record("no pid"); return }
        let control = try f.harness.client()
        defer { control.close() }
        // A second app with a live stream (no duration): Now Playing moves between it and main.
        let app = try f.harness.client()
        defer { app.close() }
        try app.call("host.hello", ["name": "radio"])
        try app.call("session.create", ["id": "live", "kind": "main"])
        try app.call("audio.configure", ["session": "live", "category": "playback"])
        try app.call("player.load", ["session": "live", "items": [["title": "Live"]]])
        try app.call("command.bindDefaults", ["session": "live"])

        let peer = try DBusTestPeer(address: f.address)
        defer { peer.close() }
        let waiter = HarnessLoopWaiter(f.harness)
        defer { waiter.close() }
        waiter.attach(peer)
        let daemonName = try #require(try peer.owner(of: MPRISBridge.busName), "the MPRIS name has an owner")
        var fuzzer = DBusFuzzer(seed: seed, daemon: daemonName)
        _ = try control.call("host.stats")
        let rssBefore = residentKiB(pid: pid) ?? 0

        var rounds = 0, calls = 0, noReply = 0, signals = 0, unbuildable = 0, unsendable = 0, stateChanges = 0
        var byMember: [String: Int] = [:]
        var lastSent: [String] = []
        var failure: String?
        let end = DBusTestPeer.now() + seconds
        while DBusTestPeer.now() < end, failure == nil {
            rounds += 1
            if rounds % 25 == 1, let track = try peer.property(MPRISBridge.busName, DBusFuzzer.player, "Metadata")?["mpris:trackid"]?.string {
                fuzzer.trackID = track
            }
            if fuzzer.random.chance(10) {
                stateChanges += 1
                changeState(&fuzzer.random, app: app, control: control)
            }
            for _ in 0..<(1 + fuzzer.random.below(48)) {
                guard let (m, request) = fuzzer.next(on: peer.bus) else { unbuildable += 1; continue }
                lastSent.append(request.what)
                if lastSent.count > 12 { lastSent.removeFirst() }
                byMember[request.what.split(separator: " ").first.map(String.init) ?? "?", default: 0] += 1
                if request.isSignal {
                    peer.sendSignal(m)
                    signals += 1
                } else if peer.send(m, expectReply: request.expectsReply, what: request.what) {
                    if request.expectsReply { calls += 1 } else { noReply += 1 }
                } else {
                    unsendable += 1
                }
            }
            // Waits on the harness's loop, so the daemon's stderr is read meanwhile.
            let answered = peer.drain(until: DBusTestPeer.now() + 20)
            let dead = peer.tally.errors.filter { Self.unanswered.contains($0.key) }
            if !answered || !dead.isEmpty || f.harness.exit != nil {
                failure = "\(tag): \(peer.tally.pending) calls unanswered, \(dead) after \(calls) calls; the fuzz's connection "
                    + (peer.isOpen ? "open" : "dropped by the bus") + "; daemon exit "
                    + "\(String(describing: f.harness.exit)); unanswered: \(peer.tally.unansweredCalls.prefix(20)); last sent: \(lastSent); stderr: \(f.harness.stderrText.suffix(3000))"
            }
        }
        if let path = Self.environment("DBUS_FUZZ_STDERR") {
            if let file = fopen(path, "w") {
                fputs(f.harness.stderrText, file)
                fclose(file)
            }
        }
        if let failure {
            Issue.record(Comment(rawValue: failure))
            if Self.environment("DBUS_FUZZ_GDB") != nil {
                print(try runShell("timeout 60 gdb -p \(pid) -batch -ex 'thread apply all bt 40' 2>&1 | grep -E '^#|Thread' | head -120").output)
            }
        }

        // Alive and answering, on both sides, and still the name's owner.
        let ping = try peer.call(MPRISBridge.busName, "/org/mpris/MediaPlayer2", "org.freedesktop.DBus.Peer", "Ping")
        #expect((try? ping.get()) != nil, "\(tag): Peer.Ping after the fuzz: \(ping)")
        #expect(try control.call("host.ping") == "pong", "\(tag): host.ping after the fuzz")
        #expect(try control.call("host.stats")["mpris"]?["status"] == "active", "\(tag): forged NameLost must not change the status")
        #expect(try peer.owner(of: MPRISBridge.busName) == daemonName, "\(tag): the daemon still owns the name")
        #expect(f.harness.exit == nil, "\(tag): the daemon exited: \(String(describing: f.harness.exit))")
        let rssAfter = residentKiB(pid: pid) ?? 0
        #expect(rssAfter - rssBefore < 256 * 1024, "\(tag): RSS grew from \(rssBefore) KiB to \(rssAfter) KiB")
        #expect(byMember.count > 15, "\(tag): only \(byMember.count) kinds of request were sent")

        let errors = peer.tally.errors.sorted { $0.value > $1.value }.prefix(6).map { "\($0.key.split(separator: ".").last ?? "?") \($0.value)" }
        let outcome = failure == nil && f.harness.exit == nil ? "daemon alive, Ping answered" : "FAILED"
        print("dbus fuzz: seed \(seed), \(Int(seconds)) s, \(rounds) rounds, \(calls + noReply + signals) requests (\(calls) calls, "
              + "\(noReply) no-reply, \(signals) forged signals; \(unbuildable) unbuildable, \(unsendable) unsendable), "
              + "\(peer.tally.returned) returns, \(peer.tally.errors.values.reduce(0, +)) error replies [\(errors.joined(separator: ", "))], "
              + "\(stateChanges) socket state changes, RSS \(rssBefore) → \(rssAfter) KiB, outcome: \(outcome)")
    }

    /// One change of what is Now Playing, through the socket (errors are fine: some changes do
    /// not apply to the state the fuzz left).
    func changeState(_ random: inout FuzzRandom, app: ControlClient, control: ControlClient) {
        switch random.below(8) {
        case 0:
            _ = try? app.call("audio.activate", ["session": "live"])
            _ = try? app.call("player.play", ["session": "live"])
        case 1: _ = try? control.call("player.play", ["session": "main"])
        case 2: _ = try? control.call("player.pause", ["session": "main"])
        case 3: _ = try? app.call("player.pause", ["session": "live"])
        case 4: _ = try? app.call("player.seek", ["session": "live", "position": .double(random.pick([0, 1e9, 5e8]))])
        case 5: _ = try? app.call("player.load", ["session": "live", "items": [["title": "Live"]]])
        case 6: _ = try? app.call("player.load", ["session": "live", "items": [["title": "Edge", "duration": .double(1e9)]]])
        default: _ = try? control.call("player.next", ["session": "main"])
        }
    }
}
