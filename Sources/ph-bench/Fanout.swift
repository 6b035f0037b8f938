// Fan-out: one published event to N subscribers, playerhostd (`nowPlaying` subscribers,
// `info.update` as the publisher) against redis (SUBSCRIBE / PUBLISH), measured by the same loops.
//
//   latency: one change, timed from the publisher's write until the LAST subscriber has the whole
//            event (p50/p99 over rounds);
//   flood:   K changes in one write, timed until every subscriber has all K; deliveries/s = K × N / s.
//
// Subscribers are plain sockets read through poll() (only those still waiting); an event is "had" when its last line
// ended (1 line per playerhostd event; 7 for a redis pub/sub message). The daemon must run with
// `coalesce_ms = 0` (every change is an event) and `--max-connections` above N.
import Glibc
import PlayerHost

/// One side of the comparison.
struct FanoutTarget {
    let name: String
    let path: String
    /// Requests that make a subscriber, and how many lines come back for them.
    let subscribe: [UInt8]
    let subscribeLines: Int
    /// Requests that set up the publisher's side, and their reply lines.
    let setup: [UInt8]
    let setupLines: Int
    /// One change numbered `i`; each must differ from the last (the gate drops identical values).
    let change: (Int) -> [UInt8]
    /// Lines a subscriber receives per change.
    let linesPerEvent: Int
}

func playerhostdFanout(path: String) -> FanoutTarget {
    func req(_ method: String, _ params: JSON, _ id: Int) -> [UInt8] {
        var out: [UInt8] = []
        RPCEncoder.request(method: method, params: params, id: Int64(id), into: &out)
        return out
    }
    let setup = req("session.create", ["id": "fan", "kind": "main", "automaticallyPublishes": false], 1)
        + req("audio.configure", ["session": "fan", "category": "playback"], 2)
        + req("audio.activate", ["session": "fan"], 3)
        + req("command.bindDefaults", ["session": "fan"], 4)
        + req("info.set", ["session": "fan", "info": ["title": "start", "artist": "ph-bench", "rate": 1]], 5)
    return FanoutTarget(
        name: "playerhostd", path: path,
        subscribe: req("events.subscribe", ["topics": ["nowPlaying"]], 1), subscribeLines: 2,
        setup: setup, setupLines: 5,
        change: { i in req("info.update", ["session": "fan", "info": ["title": .string("title \(1_000_000 + i)")]], 10 + i) },
        linesPerEvent: 1)
}

func redisFanout(path: String) -> FanoutTarget {
    // A payload about as long as playerhostd's event line, so both move similar bytes.
    let payload = String(repeating: "x", count: 200)
    return FanoutTarget(
        name: "redis", path: path,
        subscribe: Array("SUBSCRIBE fan\r\n".utf8), subscribeLines: 6,
        setup: Array("PING\r\n".utf8), setupLines: 1,
        change: { i in Array("PUBLISH fan \(1_000_000 + i)\(payload)\r\n".utf8) },
        linesPerEvent: 7)
}

/// N subscriber sockets and a publisher socket.
final class FanoutRig {
    let target: FanoutTarget
    let publisher: Conn
    var subscribers: [Conn] = []
    /// Lines each subscriber still owes.
    var owed: [Int]
    var next = 0

    init(_ target: FanoutTarget, subscribers n: Int) {
        self.target = target
        var lim = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        getrlimit(resource, &lim)
        if lim.rlim_cur < rlim_t(n + 64) {
            lim.rlim_cur = min(lim.rlim_max, rlim_t(n + 64))
            setrlimit(resource, &lim)
        }
        let pub = Conn(path: target.path)
        target.setup.withUnsafeBytes { pub.writeAll($0.baseAddress!, $0.count) }
        pub.awaitNewlines(target.setupLines)
        publisher = pub
        owed = Array(repeating: 0, count: n)
        for i in 0..<n {
            let c = Conn(path: target.path)
            subscribers.append(c)
            target.subscribe.withUnsafeBytes { c.writeAll($0.baseAddress!, $0.count) }
            owed[i] = target.subscribeLines
        }
        drain()
    }

    /// Reads every subscriber until none owes a line (and the publisher's replies, unread ones
    /// being only a buffer to empty).
    func drain() {
        var fds: [pollfd] = []
        var index: [Int] = []
        for (i, o) in owed.enumerated() where o > 0 {
            fds.append(pollfd(fd: subscribers[i].fd, events: Int16(POLLIN), revents: 0))
            index.append(i)
        }
        while !fds.isEmpty {
            let n = poll(&fds, nfds_t(fds.count), 10_000)
            if n < 0 { if errno == EINTR { continue }; fail("poll: \(String(cString: strerror(errno)))") }
            if n == 0 { fail("\(target.name): \(fds.count) subscribers still waiting after 10 s") }
            var k = 0
            while k < fds.count {
                guard fds[k].revents != 0 else { k += 1; continue }
                fds[k].revents = 0
                let i = index[k]
                let c = subscribers[i]
                let r = Glibc.read(c.fd, c.buf, c.cap)
                if r <= 0 { fail("\(target.name): subscriber \(i) closed") }
                owed[i] -= countNewlines(c.buf, r)
                if owed[i] < 0 { fail("\(target.name): subscriber \(i) got \(-owed[i]) lines more than expected") }
                if owed[i] == 0 {
                    // Done: out of the set, so later polls only look at those still waiting.
                    fds.swapAt(k, fds.count - 1); fds.removeLast()
                    index.swapAt(k, index.count - 1); index.removeLast()
                } else {
                    k += 1
                }
            }
        }
    }

    /// Publishes `k` changes in one write; returns nanoseconds until every subscriber had them all.
    func publish(_ k: Int) -> UInt64 {
        var bytes: [UInt8] = []
        for _ in 0..<k {
            bytes += target.change(next)
            next += 1
        }
        for i in owed.indices { owed[i] = k * target.linesPerEvent }
        let t0 = nowNanos()
        bytes.withUnsafeBytes { publisher.writeAll($0.baseAddress!, $0.count) }
        drain()
        let t1 = nowNanos()
        publisher.awaitNewlines(k)  // its replies: untimed
        return t1 - t0
    }
}

func countNewlines(_ p: UnsafeMutableRawPointer, _ n: Int) -> Int {
    var count = 0
    var q = UnsafeRawPointer(p)
    var left = n
    while left > 0, let nl = memchr(q, 0x0A, left) {
        count += 1
        let used = UnsafeRawPointer(nl) - q + 1
        q += used
        left -= used
    }
    return count
}

/// Runs latency rounds and one flood for a target; prints a human line and RESULT lines.
func benchFanout(_ target: FanoutTarget, subscribers n: Int, rounds: Int, flood: Int) {
    let rig = FanoutRig(target, subscribers: n)
    for _ in 0..<min(20, rounds) { _ = rig.publish(1) }   // warm-up
    var samples: [UInt64] = []
    for _ in 0..<rounds { samples.append(rig.publish(1)) }
    samples.sort()
    let m = Measurement(requests: rounds, seconds: 0, samples: samples)
    let p50 = (m.percentile(0.5) * 10).rounded() / 10, p99 = (m.percentile(0.99) * 10).rounded() / 10
    print("\(target.name) fan-out to \(n) subscribers: last one has the event after p50 \(p50) µs, p99 \(p99) µs (\(rounds) rounds)")
    print("RESULT target=\(target.name) mode=fanout subscribers=\(n) p50_us=\(p50) p99_us=\(p99)")
    let ns = rig.publish(flood)
    let rate = Int((Double(flood * n) / (Double(ns) / 1e9)).rounded())
    print("\(target.name) flood: \(flood) changes × \(n) subscribers in \(Double(ns / 1000) / 1000) ms = \(rate) deliveries/s")
    print("RESULT target=\(target.name) mode=flood subscribers=\(n) events=\(flood) deliveries_per_s=\(rate)")
}

/// Both servers in one run, their rounds interleaved (A B B A …), so the load of a shared machine
/// weighs on both alike: prints each target's lines as `benchFanout` does, then the median of the
/// per-pair latency ratios (the figure issue 7's target is judged by).
func benchFanoutPaired(_ a: FanoutTarget, _ b: FanoutTarget, subscribers n: Int, rounds: Int, flood: Int) {
    // Two sets of subscribers open at once (each rig raises the limit for its own only).
    var lim = rlimit()
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    getrlimit(resource, &lim)
    if lim.rlim_cur < rlim_t(2 * n + 64) {
        lim.rlim_cur = min(lim.rlim_max, rlim_t(2 * n + 64))
        setrlimit(resource, &lim)
    }
    let rigA = FanoutRig(a, subscribers: n)
    let rigB = FanoutRig(b, subscribers: n)
    for _ in 0..<min(20, rounds) { _ = rigA.publish(1); _ = rigB.publish(1) }   // warm-up
    var samplesA: [UInt64] = [], samplesB: [UInt64] = [], ratios: [Double] = []
    for i in 0..<rounds {
        let (x, y) = i % 2 == 0 ? (rigA.publish(1), rigB.publish(1)) : { let y = rigB.publish(1); return (rigA.publish(1), y) }()
        samplesA.append(x)
        samplesB.append(y)
        ratios.append(Double(x) / Double(max(1, y)))
    }
    for (target, samples) in [(a, samplesA), (b, samplesB)] {
        let m = Measurement(requests: rounds, seconds: 0, samples: samples.sorted())
        let p50 = (m.percentile(0.5) * 10).rounded() / 10, p99 = (m.percentile(0.99) * 10).rounded() / 10
        print("\(target.name) fan-out to \(n) subscribers: last one has the event after p50 \(p50) µs, p99 \(p99) µs (\(rounds) rounds, interleaved)")
        print("RESULT target=\(target.name) mode=fanout subscribers=\(n) p50_us=\(p50) p99_us=\(p99)")
    }
    ratios.sort()
    let median = (ratios[ratios.count / 2] * 100).rounded() / 100
    print("\(a.name)/\(b.name) fan-out latency, median of \(rounds) interleaved pairs: \(median)")
    print("RESULT mode=fanout-paired subscribers=\(n) ratio=\(median)")
    for (target, rig) in [(a, rigA), (b, rigB)] {
        let ns = rig.publish(flood)
        let rate = Int((Double(flood * n) / (Double(ns) / 1e9)).rounded())
        print("\(target.name) flood: \(flood) changes × \(n) subscribers in \(Double(ns / 1000) / 1000) ms = \(rate) deliveries/s")
        print("RESULT target=\(target.name) mode=flood subscribers=\(n) events=\(flood) deliveries_per_s=\(rate)")
    }
}
