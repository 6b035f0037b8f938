// ph-bench: round-trip benchmark for the control socket.
//
// Measures, over ONE connection:
//   (a) sequential round trips: write one request, read its reply, repeat;
//   (b) pipelined batches: write `--pipeline` requests in one write(), read that many replies.
// With `--socket` it speaks newline-delimited JSON-RPC (`host.ping`) to playerhostd; with
// `--redis` it runs the very same loops speaking Redis inline `PING\r\n` / `+PONG\r\n`, so both
// servers are measured by the same client.
//
// The hot loop is deliberately thin: request bytes are built once, buffers are reused, and replies
// are counted by their newlines instead of being parsed. The first reply (and the first batch) is
// parsed and checked before anything is timed, so a server that answers garbage fails loudly.
//
// Output: a human line per measurement plus a machine-readable `RESULT key=value…` line.
import Glibc
import PlayerHost

// MARK: - Options

struct Options {
    var socket: String?
    var redis: String?
    var count = 200_000
    var warmup = 10_000
    var pipeline = 32
    var modes: Set<String> = ["sequential", "pipelined"]
    /// With a value: the scale benchmark (Scale.swift) instead of pings.
    var scale: Int?
    var pid = 0
    /// Fan-out instead of ping loops: this many subscribers (Fanout.swift).
    var fanout: Int?
    var fanoutRounds = 200
    var flood = 500
}

func usage() -> Never {
    let text = """
        usage: ph-bench [--socket PATH] [--redis PATH] [--count N] [--warmup N] [--pipeline N]
                        [--mode sequential|pipelined|both]
          --socket PATH   playerhostd control socket (JSON-RPC host.ping)
          --redis PATH    redis-server unix socket (inline PING), measured by the same loops
          --count N       requests per measurement (default 200000)
          --warmup N      untimed requests before each measurement (default 10000)
          --pipeline N    requests per batch in pipelined mode (default 32)
          --mode M        which loops to run (default both)
          --scale N       instead: p50 of nowPlaying.get, session.get, command.send, player.seek with
                          10 then N eligible sessions (--count each), and N sessions' create/close time
          --pid P         the daemon's pid, for memory per session (--scale)
          --fanout N      instead: one event to N subscribers (nowPlaying / SUBSCRIBE), latency
                          until the last has it, then a flood; playerhostd needs coalesce_ms = 0;
                          with both --socket and --redis their rounds are interleaved
          --rounds N      fan-out latency rounds (default 200)
          --flood K       changes in the flood (default 500)

        """
    writeStderr(text)
    exit(2)
}

func writeStderr(_ s: String) {
    _ = s.withCString { Glibc.write(2, $0, strlen($0)) }
}

func fail(_ message: String) -> Never {
    writeStderr("ph-bench: \(message)\n")
    exit(1)
}

func parseOptions() -> Options {
    var o = Options()
    var args = CommandLine.arguments.dropFirst()
    func value(_ name: String) -> String {
        guard let v = args.popFirst() else { fail("\(name) needs a value") }
        return v
    }
    func number(_ name: String) -> Int {
        guard let n = Int(value(name)), n >= 0 else { fail("\(name) needs a non-negative integer") }
        return n
    }
    while let a = args.popFirst() {
        switch a {
        case "--socket": o.socket = value(a)
        case "--redis": o.redis = value(a)
        case "--count": o.count = number(a)
        case "--warmup": o.warmup = number(a)
        case "--pipeline": o.pipeline = number(a)
        case "--scale": o.scale = number(a)
        case "--pid": o.pid = number(a)
        case "--fanout": o.fanout = number(a)
        case "--rounds": o.fanoutRounds = max(1, number(a))
        case "--flood": o.flood = max(1, number(a))
        case "--mode":
            switch value(a) {
            case "sequential": o.modes = ["sequential"]
            case "pipelined": o.modes = ["pipelined"]
            case "both": o.modes = ["sequential", "pipelined"]
            default: fail("--mode is sequential, pipelined or both")
            }
        case "-h", "--help": usage()
        default: fail("unknown argument '\(a)' (try --help)")
        }
    }
    if o.socket == nil && o.redis == nil { usage() }
    if o.pipeline < 1 { fail("--pipeline must be at least 1") }
    if o.count < o.pipeline { fail("--count must be at least --pipeline") }
    return o
}

// MARK: - Socket

@inline(__always)
func nowNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

func connectUnix(_ path: String) -> Int32 {
    let fd: Int32
    switch UnixSocketConnector.connect(path: path) {
    case .success(let d): fd = d
    case .failure(let e): fail("connect \(path): \(e)")
    }
    // A hung server must not hang the benchmark: a read that waits 10 s fails it.
    var tv = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    return fd
}

/// One connection with a reusable receive buffer. Replies are newline-terminated in both
/// protocols, so "N replies arrived" is "N newlines arrived".
final class Conn {
    let fd: Int32
    let buf: UnsafeMutableRawPointer
    let cap = 1 << 16
    /// Bytes of an incomplete reply left over from the last read (only used by `readLines`).
    var carry: [UInt8] = []

    init(path: String) {
        fd = connectUnix(path)
        buf = .allocate(byteCount: cap, alignment: 64)
    }

    deinit {
        Glibc.close(fd)
        buf.deallocate()
    }

    @inline(__always)
    func writeAll(_ p: UnsafeRawPointer, _ n: Int) {
        var off = 0
        while off < n {
            let w = Glibc.write(fd, p + off, n - off)
            if w < 0 {
                if errno == EINTR { continue }
                fail("write: \(String(cString: strerror(errno)))")
            }
            off += w
        }
    }

    /// Reads until `n` newlines have arrived. The hot path: no parsing, no allocation.
    @inline(__always)
    func awaitNewlines(_ n: Int) {
        var remaining = n
        while remaining > 0 {
            let r = Glibc.read(fd, buf, cap)
            if r <= 0 {
                if r < 0 && errno == EINTR { continue }
                fail(r == 0 ? "server closed the connection" : "read: \(String(cString: strerror(errno)))")
            }
            var p = UnsafeRawPointer(buf)
            var left = r
            while left > 0, let nl = memchr(p, 0x0A, left) {
                remaining -= 1
                let used = UnsafeRawPointer(nl) - p + 1
                p += used
                left -= used
            }
        }
        // Replies never straddle a round trip here: the server sends nothing unasked, and we only
        // return once every awaited reply's newline arrived, so the buffer ends on a newline.
        if remaining < 0 { fail("received \(-remaining) more replies than requests") }
    }

    /// Reads exactly `n` complete lines (without newlines), for verification only.
    func readLines(_ n: Int) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        while lines.count < n {
            if let nl = carry.firstIndex(of: 0x0A) {
                lines.append(Array(carry[..<nl]))
                carry.removeFirst(nl + 1)
                continue
            }
            let r = Glibc.read(fd, buf, cap)
            if r <= 0 {
                if r < 0 && errno == EINTR { continue }
                fail(r == 0 ? "server closed the connection" : "read: \(String(cString: strerror(errno)))")
            }
            carry.append(contentsOf: UnsafeRawBufferPointer(start: buf, count: r))
        }
        if !carry.isEmpty { fail("unexpected bytes after the replies: \(String(decoding: carry, as: UTF8.self))") }
        return lines
    }
}

// MARK: - Protocols

struct Target {
    let name: String
    let path: String
    /// One request, with its terminator.
    let single: [UInt8]
    /// `pipeline` requests back to back.
    let batch: [UInt8]
    /// Checks the replies to `single` (one line) or `batch` (`pipeline` lines).
    let verify: (_ lines: [[UInt8]], _ isBatch: Bool) -> String?
}

func jsonRPCTarget(path: String, pipeline: Int) -> Target {
    func request(id: Int) -> [UInt8] {
        Array(#"{"jsonrpc":"2.0","method":"host.ping","id":\#(id)}"#.utf8) + [0x0A]
    }
    var batch: [UInt8] = []
    for i in 1...pipeline { batch += request(id: i) }
    return Target(name: "playerhostd", path: path, single: request(id: 1), batch: batch) { lines, isBatch in
        for (i, line) in lines.enumerated() {
            let text = String(decoding: line, as: UTF8.self)
            let value: JSON
            do throws(JSONParseError) { value = try JSONParser.parse(line) } catch { return "reply \(i + 1) is not JSON (\(error.message)): \(text)" }
            let expectedID = Int64(isBatch ? i + 1 : 1)
            guard value["jsonrpc"] == "2.0", value["result"] == "pong", value["id"] == .int(expectedID) else {
                return "reply \(i + 1) is not a pong with id \(expectedID): \(text)"
            }
        }
        return nil
    }
}

func redisTarget(path: String, pipeline: Int) -> Target {
    let single = Array("PING\r\n".utf8)
    let batch = Array(repeating: single, count: pipeline).flatMap { $0 }
    return Target(name: "redis", path: path, single: single, batch: batch) { lines, _ in
        for (i, line) in lines.enumerated() where line != Array("+PONG\r".utf8) {
            return "reply \(i + 1) is not +PONG: \(String(decoding: line, as: UTF8.self))"
        }
        return nil
    }
}

// MARK: - Loops

struct Measurement {
    var requests: Int
    var seconds: Double
    /// Per round trip (sequential) or per batch (pipelined), in nanoseconds, sorted.
    var samples: [UInt64]

    var rate: Double { Double(requests) / seconds }
    func percentile(_ p: Double) -> Double {
        let i = min(samples.count - 1, Int((Double(samples.count) * p).rounded(.up)) - 1)
        return Double(samples[max(0, i)]) / 1000
    }
}

/// `rounds` times: write `request` (holding `perRound` requests), wait for `perRound` replies.
func run(_ conn: Conn, _ request: [UInt8], perRound: Int, rounds: Int, warmupRounds: Int) -> Measurement {
    var samples = [UInt64](repeating: 0, count: rounds)
    return request.withUnsafeBytes { req -> Measurement in
        let p = req.baseAddress!
        let n = req.count
        for _ in 0..<warmupRounds {
            conn.writeAll(p, n)
            conn.awaitNewlines(perRound)
        }
        let start = nowNanos()
        samples.withUnsafeMutableBufferPointer { s in
            var t0 = start
            for i in 0..<rounds {
                conn.writeAll(p, n)
                conn.awaitNewlines(perRound)
                let t1 = nowNanos()
                s[i] = t1 &- t0
                t0 = t1
            }
        }
        let elapsed = nowNanos() - start
        samples.sort()
        return Measurement(requests: rounds * perRound, seconds: Double(elapsed) / 1e9, samples: samples)
    }
}

func report(_ target: Target, mode: String, unit: String, pipeline: Int, _ m: Measurement) {
    /// `x` rounded to `digits` decimals (1 or 3 here), without Foundation.
    func f(_ x: Double, _ digits: Int = 1) -> String {
        let scale = digits == 3 ? 1000.0 : 10.0
        return String((x * scale).rounded() / scale)
    }
    let rate = Int(m.rate.rounded())
    print("\(target.name) \(mode)\(mode == "pipelined" ? " (\(pipeline))" : ""): \(m.requests) requests in \(f(m.seconds, 3)) s = \(rate) req/s; per \(unit): p50 \(f(m.percentile(0.5))) µs, p99 \(f(m.percentile(0.99))) µs")
    print("RESULT target=\(target.name) mode=\(mode) pipeline=\(mode == "pipelined" ? pipeline : 1) requests=\(m.requests) rps=\(rate) p50_us=\(f(m.percentile(0.5))) p99_us=\(f(m.percentile(0.99)))")
}

func bench(_ target: Target, _ o: Options) {
    let conn = Conn(path: target.path)
    // Correctness first, untimed: one request, then one batch, parsed in full.
    target.single.withUnsafeBytes { conn.writeAll($0.baseAddress!, $0.count) }
    if let problem = target.verify(conn.readLines(1), false) { fail("\(target.name): \(problem)") }
    target.batch.withUnsafeBytes { conn.writeAll($0.baseAddress!, $0.count) }
    if let problem = target.verify(conn.readLines(o.pipeline), true) { fail("\(target.name): \(problem)") }

    if o.modes.contains("sequential") {
        let m = run(conn, target.single, perRound: 1, rounds: o.count, warmupRounds: o.warmup)
        report(target, mode: "sequential", unit: "round trip", pipeline: 1, m)
    }
    if o.modes.contains("pipelined") {
        let rounds = o.count / o.pipeline
        let m = run(conn, target.batch, perRound: o.pipeline, rounds: rounds,
                    warmupRounds: (o.warmup + o.pipeline - 1) / o.pipeline)
        report(target, mode: "pipelined", unit: "batch", pipeline: o.pipeline, m)
    }
}

// MARK: - Main

let options = parseOptions()
if let n = options.scale {
    guard let path = options.socket, n > 10 else { fail("--scale needs --socket and more than 10 sessions") }
    scaleBench(path: path, sessions: n, count: options.count, pid: options.pid)
    exit(0)
}
if let n = options.fanout {
    if let ph = options.socket, let redis = options.redis {
        // Both given: their rounds interleaved, so the machine's load weighs on both alike.
        benchFanoutPaired(playerhostdFanout(path: ph), redisFanout(path: redis), subscribers: n,
                          rounds: options.fanoutRounds, flood: options.flood)
        exit(0)
    }
    if let path = options.socket { benchFanout(playerhostdFanout(path: path), subscribers: n, rounds: options.fanoutRounds, flood: options.flood) }
    if let path = options.redis { benchFanout(redisFanout(path: path), subscribers: n, rounds: options.fanoutRounds, flood: options.flood) }
    exit(0)
}
if let path = options.socket { bench(jsonRPCTarget(path: path, pipeline: options.pipeline), options) }
if let path = options.redis { bench(redisTarget(path: path, pipeline: options.pipeline), options) }
