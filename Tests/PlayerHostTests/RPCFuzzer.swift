import Glibc
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostRPC

/// A small seeded generator (SplitMix64): the same seed gives the same run of requests, so a
/// failing seed can be replayed with `scripts/fuzz.sh SECONDS SEED`.
struct FuzzRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    mutating func pick<T>(_ a: [T]) -> T { a[below(a.count)] }
}

/// One method as `rpc.discover` describes it: its parameters' names, types and whether required.
struct FuzzMethod {
    var name: String
    var params: [(name: String, type: String, required: Bool)]

    /// Every method of an OpenRPC document.
    static func all(from document: JSON) -> [FuzzMethod] {
        (document["methods"]?.arrayValue ?? []).compactMap { m in
            guard let name = m["name"]?.stringValue else { return nil }
            let params: [(String, String, Bool)] = (m["params"]?.arrayValue ?? []).compactMap { p in
                guard let n = p["name"]?.stringValue else { return nil }
                return (n, p["schema"]?["type"]?.stringValue ?? "any", p["required"]?.boolValue ?? false)
            }
            return FuzzMethod(name: name, params: params)
        }
    }
}

/// Makes request lines for the fuzz: mostly well-typed params (with strings drawn from what the
/// daemon said before, so ids of sessions and commands are hit), some mutated (wrong types,
/// missing or extra params, params that are not an object), a few lines that are not JSON-RPC.
struct FuzzRequestMaker {
    var random: FuzzRandom
    let methods: [FuzzMethod]
    /// Strings seen in replies (ids, names), reused as parameter values.
    private(set) var seen: [String] = []

    init(seed: UInt64, methods: [FuzzMethod]) {
        random = FuzzRandom(seed: seed)
        self.methods = methods
    }

    mutating func remember(_ reply: JSON) {
        switch reply {
        case .string(let s) where s.utf8.count <= 64:
            if seen.count < 200 { seen.append(s) } else { seen[random.below(seen.count)] = s }
        case .array(let a): for v in a.prefix(8) { remember(v) }
        case .object(let o): for (_, v) in o.prefix(16) { remember(v) }
        default: break
        }
    }

    mutating func value(_ type: String) -> JSON {
        switch type {
        case "string":
            if !seen.isEmpty && random.chance(50) { return .string(random.pick(seen)) }
            return .string(random.pick(["", "x", "clock", "fuzz", "play", "pause", "next", "file:///dev/null",
                                        "http://127.0.0.1:1/x", "ünïcødé ♫", String(repeating: "a", count: 1500),
                                        "\u{0}", "-1", "playing", "paused", "stopped"]))
        case "integer": return .int(random.pick([0, 1, -1, 2, 7, 100, 10_000, Int64.max, Int64.min]))
        case "number": return .double(random.pick([0, 0.5, -1, 1e-9, 1e308, 3600, -0.0]))
        case "boolean": return .bool(random.chance(50))
        case "array":
            return .array((0..<random.below(4)).map { _ in value(random.pick(["string", "integer", "object"])) })
        case "object":
            if random.chance(30) { return .object([:]) }
            var o: [String: JSON] = [:]
            for _ in 0..<random.below(4) {
                o[random.pick(["title", "artist", "duration", "rate", "x", "id", "url", "position"])] =
                    value(random.pick(["string", "number", "integer", "boolean"]))
            }
            return .object(o)
        default: return value(random.pick(["string", "integer", "number", "boolean", "object", "array"]))
        }
    }

    /// The params of one call of `m`: valid-looking, or (one time in three) mutated.
    mutating func params(for m: FuzzMethod) -> JSON {
        var o: [String: JSON] = [:]
        for p in m.params where p.required || random.chance(50) { o[p.name] = value(p.type) }
        guard random.chance(33) else { return .object(o) }
        switch random.below(6) {
        case 0: if let k = o.keys.first { o[k] = nil }                      // a required one missing
        case 1: if let k = o.keys.first { o[k] = value("any") }             // wrong type
        case 2: o["unexpected"] = value("any")                             // extra param
        case 3: return .array([value("any")])                              // by-position
        case 4: return value(random.pick(["string", "integer", "boolean"])) // not a structure
        default: return .null
        }
        return .object(o)
    }

    /// One request line with `id`, for a method other than `excluded`; sometimes a line the daemon
    /// must answer with an error (bad JSON, wrong version) — still exactly one reply for `id`.
    mutating func line(id: Int64, excluding excluded: Set<String>) -> (method: String, params: JSON, bytes: [UInt8]) {
        let candidates = methods.filter { !excluded.contains($0.name) }
        let m = random.pick(candidates)
        let p = params(for: m)
        var out: [UInt8] = []
        if random.chance(3) {
            // Valid JSON, not a valid request: a wrong version or a method that is not a string.
            let bad: JSON = random.chance(50)
                ? .object(["jsonrpc": "1.0", "id": .int(id), "method": .string(m.name)])
                : .object(["jsonrpc": "2.0", "id": .int(id), "method": .int(7), "params": p])
            bad.write(into: &out)
            out.append(0x0A)
            return ("(invalid request)", bad, out)
        }
        RPCEncoder.request(method: m.name, params: p, id: id, into: &out)
        return (m.name, p, out)
    }
}

/// A fuzz client on a non-blocking socket: sends request lines, collects replies by id and
/// answers whatever the daemon asks it (as a command target or a method provider might be asked).
final class FuzzPeer {
    let fd: Int32
    private var inbox: [UInt8] = []
    var pending: [Int64: String] = [:]
    var unexpected: [String] = []
    var replies: [JSON] = []
    var outbox: [UInt8] = []
    var hungUp = false

    init(path: String) throws {
        switch UnixSocketConnector.connect(path: path) {
        case .success(let fd): self.fd = fd
        case .failure(let e): throw RawPeer.Failure(description: "connect \(path): \(e)")
        }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    deinit { Glibc.close(fd) }

    /// Writes what the socket takes now.
    func flush() {
        while !outbox.isEmpty && !hungUp {
            let n = outbox.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 { outbox.removeFirst(n); continue }
            if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
            hungUp = true
        }
    }

    var wantsWrite: Bool { !outbox.isEmpty && !hungUp }

    /// Reads what is there and handles each complete line.
    func readAvailable() {
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { inbox += buf[0..<n]; continue }
            if n == 0 || (errno != EAGAIN && errno != EINTR) { hungUp = true }
            break
        }
        var start = 0
        while let nl = inbox[start...].firstIndex(of: 0x0A) {
            let line = inbox[start..<nl]
            start = nl + 1
            handle(line: line)
        }
        inbox.removeFirst(start)
    }
}

/// The daemon's resident set size in KiB, from /proc (nil when it cannot be read).
func residentKiB(pid: Int32) -> Int? {
    guard let f = fopen("/proc/\(pid)/status", "r") else { return nil }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 512)
    while fgets(&line, 512, f) != nil {
        let s = String(cBuffer: line)
        if s.hasPrefix("VmRSS:") {
            return Int(String(s.dropFirst(6).filter(\.isNumber)))
        }
    }
    return nil
}

/// Waits (poll, with a deadline) until every peer has its replies or the deadline passes.
func pumpFuzzPeers(_ peers: [FuzzPeer], until deadline: Double) {
    while ControlClient.now() < deadline {
        for p in peers { p.flush() }
        if peers.allSatisfy({ $0.pending.isEmpty || $0.hungUp }) { return }
        var fds = peers.map { pollfd(fd: $0.fd, events: Int16(POLLIN) | ($0.wantsWrite ? Int16(POLLOUT) : 0), revents: 0) }
        let ms = Int32(max(1, min(200, (deadline - ControlClient.now()) * 1000)))
        _ = poll(&fds, nfds_t(fds.count), ms)
        for (i, f) in fds.enumerated() where f.revents != 0 { peers[i].readAvailable() }
    }
}
