import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient

/// A seeded, bounded fuzz of every method `rpc.discover` lists (but `host.shutdown`), with valid
/// and mutated params, pipelined over several connections against the real daemon. Checks:
/// exactly one reply per request id, the daemon never dies, another connection's `host.ping` is
/// answered throughout, and the daemon's memory stays bounded.
///
/// `FUZZ_SECONDS` (default 12, at most 60 here) and `FUZZ_SEED` (default a fixed seed, so CI
/// replays the same requests) change the run; `scripts/fuzz.sh SECONDS SEED` runs a longer one.
@Suite("Fuzz", .serialized)
struct FuzzTests {
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    @Test("every rpc.discover method, valid and mutated params, over several connections")
    func fuzzEveryDiscoveredMethod() throws {
        let seconds = min(Double(Self.environment("FUZZ_SECONDS") ?? "") ?? 12, Self.environment("FUZZ_LONG") == nil ? 60 : 86_400)
        let seed = UInt64(Self.environment("FUZZ_SEED") ?? "") ?? 0x5EED_F0F0
        let tag = "fuzz seed \(seed) (replay: scripts/fuzz.sh \(Int(seconds)) \(seed))"

        let daemon = try DaemonHarness()
        defer { daemon.close() }
        // Its own config directory: the fuzz calls host.reload, which must not read the user's.
        var environment: [String: String] = [:]
        for key in ["PATH", "HOME", "LANG", "XDG_RUNTIME_DIR"] { environment[key] = Self.environment(key) }
        environment["XDG_CONFIG_HOME"] = daemon.directory + "/config"
        try #require(try daemon.start(environment: environment), "daemon did not start: \(daemon.stderrText)")
        guard let pid = daemon.process?.pid else { Issue.record("no pid"); return }

        let control = try daemon.client(timeout: 10)
        let document = try control.call("rpc.discover")
        let methods = FuzzMethod.all(from: document)
        try #require(methods.count > 10, "rpc.discover listed \(methods.count) methods")
        var maker = FuzzRequestMaker(seed: seed, methods: methods)
        let excluded: Set<String> = ["host.shutdown"]

        // Warm up once so the baseline counts the daemon's steady allocations, not its first ones.
        _ = try control.call("host.stats")
        let rssBefore = residentKiB(pid: pid) ?? 0

        var peers = try (0..<4).map { _ in try FuzzPeer(path: daemon.socketPath) }
        var nextID: Int64 = 1
        var sent = 0, rounds = 0
        var calls: [String: Int] = [:]
        var lastLines: [String] = []
        let end = ControlClient.now() + seconds
        while ControlClient.now() < end {
            rounds += 1
            for peer in peers {
                for _ in 0..<(1 + maker.random.below(24)) {
                    let r = maker.line(id: nextID, excluding: excluded)
                    peer.enqueue(r.bytes, id: nextID, what: r.method)
                    calls[r.method, default: 0] += 1
                    lastLines.append(String(decoding: r.bytes.prefix(300), as: UTF8.self))
                    if lastLines.count > 8 { lastLines.removeFirst() }
                    nextID += 1
                    sent += 1
                }
            }
            pumpFuzzPeers(peers, until: ControlClient.now() + 30)
            // Drain the daemon's stderr (the harness reads it only while its loop runs): a full
            // pipe would block the daemon's synchronous log writes, a hang of the test's making.
            daemon.runUntil(0.001) { false }
            for peer in peers {
                for reply in peer.replies { if let r = reply["result"] { maker.remember(r) } }
                peer.replies.removeAll()
            }
            let unanswered = peers.flatMap { $0.pending.map { "\($0.key) \($0.value)" } }
            let hungUp = peers.filter(\.hungUp).count
            let extra = peers.flatMap(\.unexpected)
            #expect(unanswered.isEmpty, "\(tag): \(unanswered.count) requests never answered: \(unanswered.prefix(10)); last sent: \(lastLines)")
            #expect(hungUp == 0, "\(tag): the daemon hung up on \(hungUp) reading clients; last sent: \(lastLines)")
            #expect(extra.isEmpty, "\(tag): unexpected replies: \(extra.prefix(10))")
            // Ping on its own connection, answered throughout.
            var pong: JSON?
            do { pong = try control.call("host.ping") } catch {
                Issue.record("\(tag): host.ping failed after \(sent) requests: \(error); daemon exit \(String(describing: daemon.exit)); last sent: \(lastLines)")
            }
            #expect(pong == .string("pong"), "\(tag): ping answered \(String(describing: pong))")
            if !unanswered.isEmpty || hungUp > 0 || pong == nil || !extra.isEmpty {
                // A hung daemon: SIGQUIT makes the Swift runtime print where it is.
                if daemon.waitForExit(deadline: 2) == nil { _ = kill(pid, SIGQUIT) }
                let exit = daemon.waitForExit(deadline: 20)
                let trace = daemon.stderrText.range(of: "Thread 0").map { String(daemon.stderrText[$0.lowerBound...].prefix(6000)) }
                    ?? String(daemon.stderrText.suffix(6000))
                Issue.record("\(tag): daemon exit \(String(describing: exit)); stderr: \(trace)")
                break
            }
            // Now and then a connection goes away mid-stream and a new one takes its place.
            if maker.random.chance(10) {
                let i = maker.random.below(peers.count)
                peers[i] = try FuzzPeer(path: daemon.socketPath)
            }
        }
        peers.removeAll()

        let rssAfter = residentKiB(pid: pid) ?? 0
        // Generous: the fuzz creates sessions, targets and methods that live on; this catches a
        // leak per request, not a cache.
        #expect(rssAfter - rssBefore < 256 * 1024, "\(tag): RSS grew from \(rssBefore) KiB to \(rssAfter) KiB over \(sent) requests")
        #expect(daemon.exit == nil, "\(tag): the daemon exited: \(String(describing: daemon.exit)) \(daemon.stderrText.suffix(2000))")
        #expect(Set(calls.keys).count > methods.count / 2, "\(tag): only \(calls.count) methods were called")
        print("fuzz: seed \(seed), \(Int(seconds)) s, \(rounds) rounds, \(sent) requests, \(calls.count) methods, RSS \(rssBefore) → \(rssAfter) KiB")
        control.close()
    }
}
