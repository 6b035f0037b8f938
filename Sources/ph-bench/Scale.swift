// The scale benchmark (`--scale N`, issue 7): per-operation latency with 10 sessions, then with
// N eligible sessions, in the same run on the same connection, and how long creating and closing
// N sessions takes. Each request is sent alone and its reply awaited (p50 over `--count`).
import Glibc
import PlayerHost

/// The daemon's resident memory in KiB (from /proc; 0 when unreadable).
func residentKiB(pid: Int) -> Int {
    guard pid > 0, let f = fopen("/proc/\(pid)/status", "r") else { return 0 }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, f) != nil {
        let s = String(cBuffer: line)
        if s.hasPrefix("VmRSS:") {
            return Int(s.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
        }
    }
    return 0
}

/// The daemon's CPU time (user + system) in seconds, from /proc (0 when unreadable): on a
/// shared machine wall time measures the other tenants too; CPU time measures the daemon.
func cpuSeconds(pid: Int) -> Double {
    guard pid > 0, let f = fopen("/proc/\(pid)/stat", "r") else { return 0 }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 1024)
    guard fgets(&line, 1024, f) != nil else { return 0 }
    let text = String(cBuffer: line)
    // Fields after the ")" that ends the command name: state is field 3, utime 14, stime 15.
    guard let close = text.lastIndex(of: ")") else { return 0 }
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) else { return 0 }
    return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// One JSON-RPC request line.
func rpcLine(_ method: String, _ params: String, id: Int) -> [UInt8] {
    Array(#"{"jsonrpc":"2.0","method":"\#(method)","params":\#(params),"id":\#(id)}"#.utf8) + [0x0A]
}

/// Sends `lines` in writes of `chunk` requests, awaiting each chunk's replies before the next,
/// so the daemon's output limit is never approached. Returns the seconds it took.
func pipelined(_ conn: Conn, _ lines: [[UInt8]], chunk: Int = 512) -> Double {
    let start = nowNanos()
    var i = 0
    while i < lines.count {
        let part = lines[i..<min(i + chunk, lines.count)]
        let bytes = part.flatMap { $0 }
        bytes.withUnsafeBytes { conn.writeAll($0.baseAddress!, $0.count) }
        conn.awaitNewlines(part.count)
        i += chunk
    }
    return Double(nowNanos() - start) / 1e9
}

/// The requests that make session `id` eligible (issue 7's definition), plus a queue.
func eligibleSession(_ id: String, load: Bool) -> [[UInt8]] {
    var out = [
        rpcLine("session.create", #"{"id":"\#(id)","kind":"main"}"#, id: 1),
        rpcLine("audio.configure", #"{"session":"\#(id)","category":"playback"}"#, id: 2),
        rpcLine("audio.activate", #"{"session":"\#(id)"}"#, id: 3),
        rpcLine("command.bindDefaults", #"{"session":"\#(id)"}"#, id: 4),
    ]
    if load { out.append(rpcLine("player.load", #"{"session":"\#(id)","items":[{"title":"t","duration":600}]}"#, id: 5)) }
    return out
}

/// p50 in µs of `count` sequential round trips of `request`.
func p50(_ conn: Conn, _ request: [UInt8], count: Int) -> Double {
    run(conn, request, perRound: 1, rounds: count, warmupRounds: count / 10).percentile(0.5)
}

/// Checks one reply in full: a result, not an error.
func expectResult(_ conn: Conn, _ request: [UInt8], _ what: String) {
    request.withUnsafeBytes { conn.writeAll($0.baseAddress!, $0.count) }
    let line = conn.readLines(1)[0]
    guard let v = try? JSONParser.parse(line), v["result"] != nil else {
        fail("\(what): \(String(decoding: line, as: UTF8.self))")
    }
}

func scaleBench(path: String, sessions n: Int, count: Int, pid: Int) {
    let conn = Conn(path: path)
    let small = 10
    let ops: [(String, [UInt8])] = [
        ("nowPlaying.get", rpcLine("nowPlaying.get", "{}", id: 9)),
        ("session.get", rpcLine("session.get", #"{"session":"s0"}"#, id: 9)),
        ("command.send", rpcLine("command.send", #"{"command":"togglePlayPause","session":"s0"}"#, id: 9)),
        ("player.seek", rpcLine("player.seek", #"{"session":"s0","position":1}"#, id: 9)),
    ]
    _ = pipelined(conn, (0..<small).flatMap { eligibleSession("s\($0)", load: true) })
    for (name, r) in ops { expectResult(conn, r, name) }
    var before: [Double] = []
    for (_, r) in ops { before.append(p50(conn, r, count: count)) }

    let rssBefore = residentKiB(pid: pid)
    let cpu0 = cpuSeconds(pid: pid)
    let created = pipelined(conn, (small..<n).flatMap { eligibleSession("s\($0)", load: false) })
    let cpuCreate = cpuSeconds(pid: pid) - cpu0
    let rssAfter = residentKiB(pid: pid)
    expectResult(conn, rpcLine("session.get", #"{"session":"s\#(n - 1)"}"#, id: 9), "the last session")
    var after: [Double] = []
    for (_, r) in ops { after.append(p50(conn, r, count: count)) }
    let cpu1 = cpuSeconds(pid: pid)
    let closed = pipelined(conn, (small..<n).map { rpcLine("session.close", #"{"session":"s\#($0)"}"#, id: 6) })
    let cpuClose = cpuSeconds(pid: pid) - cpu1

    func f(_ x: Double) -> String { String((x * 100).rounded() / 100) }
    print("created \(n - small) eligible sessions (create + audio.configure + audio.activate + command.bindDefaults, pipelined) in \(f(created)) s (target <= 5 s); daemon CPU \(f(cpuCreate)) s")
    print("closed \(n - small) sessions in \(f(closed)) s (target <= 5 s); daemon CPU \(f(cpuClose)) s")
    if pid > 0 {
        let per = Double(rssAfter - rssBefore) * 1024 / Double(n - small)
        print("memory per idle eligible session: \(Int(per.rounded())) bytes (VmRSS \(rssBefore) → \(rssAfter) KiB; target <= 8192)")
        print("RESULT scale=\(n) bytes_per_session=\(Int(per.rounded()))")
    }
    for (i, (name, _)) in ops.enumerated() {
        let ratio = before[i] > 0 ? after[i] / before[i] : 0
        print("\(name) p50: \(f(before[i])) µs with \(small) sessions, \(f(after[i])) µs with \(n): ratio \(f(ratio)) (target <= 1.5)")
        print("RESULT scale=\(n) op=\(name) p50_small_us=\(f(before[i])) p50_large_us=\(f(after[i])) ratio=\(f(ratio))")
    }
    print("RESULT scale=\(n) create_s=\(f(created)) close_s=\(f(closed)) create_cpu_s=\(f(cpuCreate)) close_cpu_s=\(f(cpuClose))")
}
