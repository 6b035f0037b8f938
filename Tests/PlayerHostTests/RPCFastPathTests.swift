import Testing
@testable import PlayerHost
@testable import PlayerHostRPC

/// The request fast path (`RequestScanner`) must be invisible: whatever it accepts, the strict
/// parser accepts with the same envelope, and a connection answers every line byte for byte as it
/// does without it.
@Suite struct RPCFastPathTests {
    /// A deterministic generator (SplitMix64), so a failure reproduces.
    struct Rng {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func pick<T>(_ a: [T]) -> T { a[Int(next() % UInt64(a.count))] }
    }

    static let keys = [#""id""#, #""jsonrpc""#, #""method""#, #""params""#, #""x""#, #""i\u0064""#,
                       #""méthode""#, #""""#, "id", #""id"#]
    static let values = [
        "1", "-1", "0", "-0", "01", "1.5", "1e3", "2E1", "123456789012345678", "1234567890123456789",
        "-123456789012345678", "9223372036854775807", #""2.0""#, #""1.0""#, #""host.ping""#, #""sum""#,
        #""nope""#, #""a\"b""#, #""é""#, #""tab\there""#, "true", "false", "null", "{}", "[]", "{ }",
        "[ ]", "[1]", #"{"a":1}"#, #"{"a":1,"b":2}"#, "tru", "nul", #""unterminated"#, "", "-", "+1",
    ]
    static let spaces = ["", "", "", " ", "\t", "\r", "  "]

    /// A line built from envelope-ish pieces, often valid, often subtly not.
    static func randomLine(_ r: inout Rng) -> String {
        var parts: [String] = []
        let n = Int(r.next() % 6)
        for i in 0..<n {
            // Mostly the real keys, so many lines are requests worth answering.
            let key = r.next() % 3 == 0 ? r.pick(keys) : r.pick([#""jsonrpc""#, #""method""#, #""id""#, #""params""#])
            let value: String
            switch key {
            case #""jsonrpc""# where r.next() % 4 != 0: value = #""2.0""#
            case #""method""# where r.next() % 4 != 0: value = r.pick([#""host.ping""#, #""sum""#, #""nope""#])
            default: value = r.pick(values)
            }
            let colon = r.next() % 20 == 0 ? "" : ":"
            parts.append(r.pick(spaces) + key + r.pick(spaces) + colon + r.pick(spaces) + value + r.pick(spaces))
            if i < n - 1 && r.next() % 25 == 0 { parts[parts.count - 1] += "," }  // a stray comma
        }
        var line = r.pick(spaces) + "{" + parts.joined(separator: r.next() % 30 == 0 ? " " : ",") + "}" + r.pick(spaces)
        switch r.next() % 20 {
        case 0: line += "x"
        case 1: line = String(line.dropLast())
        case 2: line = "[" + line + "]"
        default: break
        }
        return line
    }

    static func dispatcher(maxDepth: Int = RPCLimits().maxDepth) -> RPCDispatcher {
        var limits = RPCLimits()
        limits.maxDepth = maxDepth
        let d = RPCDispatcher(limits: limits)
        d.table.register(.sync("host.ping", summary: "", result: .string) { _ in "pong" })
        d.table.register(.sync("sum", summary: "", params: [.optional("a", .integer), .optional("b", .integer)]) { call throws(RPCError) in
            .int(Int64((try call.params.optionalInt("a") ?? 0) + (try call.params.optionalInt("b") ?? 0)))
        })
        return d
    }

    /// Every line through two connections, one with the fast path and one without.
    static func assertSameReplies(_ lines: [String], maxDepth: Int = RPCLimits().maxDepth) {
        let fastD = dispatcher(maxDepth: maxDepth), slowD = dispatcher(maxDepth: maxDepth)
        let fast = RPCConnection(id: 1, dispatcher: fastD)
        let slow = RPCConnection(id: 1, dispatcher: slowD)
        slow.usesFastPath = false
        for line in lines {
            let bytes = Array((line + "\n").utf8)
            let a = bytes.withUnsafeBytes { fast.receive($0) }
            let b = bytes.withUnsafeBytes { slow.receive($0) }
            #expect(a == b, "disposition differs for \(line)")
            #expect(fast.output == slow.output,
                    "reply differs for \(line): \(String(decoding: fast.output, as: UTF8.self)) vs \(String(decoding: slow.output, as: UTF8.self))")
            fast.output.removeAll()
            slow.output.removeAll()
        }
        #expect(fastD.linesReceived == slowD.linesReceived)
        #expect(fastD.requestsServed == slowD.requestsServed)
    }

    @Test func commonRequestsTakeTheFastPath() {
        let lines = [
            #"{"jsonrpc":"2.0","method":"host.ping","id":1}"#,
            #"{"jsonrpc":"2.0","method":"host.ping","params":{},"id":"abc"}"#,
            #" { "id" : -42 , "method" : "host.ping" , "jsonrpc" : "2.0" , "params" : [] } "#,
            #"{"jsonrpc":"2.0","method":"host.ping"}"#,
            #"{"jsonrpc":"2.0","method":"host.ping","id":null,"extra":true}"#,
        ]
        for line in lines {
            let scanned = Array(line.utf8).withUnsafeBytes { RequestScanner.scan($0, maxDepth: 128) }
            #expect(scanned != nil, "not on the fast path: \(line)")
        }
        Self.assertSameReplies(lines)
    }

    @Test func scannerAcceptsOnlyWhatTheParserReadsTheSame() throws {
        var r = Rng(state: 0x5EED)
        var accepted = 0
        for _ in 0..<20000 {
            let line = Self.randomLine(&r)
            let bytes = Array(line.utf8)
            guard let scanned = bytes.withUnsafeBytes({ RequestScanner.scan($0, maxDepth: 128) }) else { continue }
            accepted += 1
            let parsed = try JSONParser.parse(bytes, maxDepth: 128)
            guard case .object(let o) = parsed else {
                Issue.record("scanner accepted a non-object: \(line)")
                continue
            }
            #expect(o["method"] != nil, "accepted without a method: \(line)")
            #expect(RequestEnvelope(members: o) == scanned, "envelope differs for \(line)")
        }
        #expect(accepted > 500)  // the generator really exercises the fast path (892 with this seed)
    }

    @Test func randomLinesGetTheSameReplies() {
        var r = Rng(state: 42)
        Self.assertSameReplies((0..<20000).map { _ in Self.randomLine(&r) })
    }

    @Test func depthLimitsStillApply() {
        let lines = [#"{"jsonrpc":"2.0","method":"host.ping","id":1}"#, #"{"jsonrpc":"2.0","method":"sum","params":{},"id":1}"#]
        for depth in 0...2 { Self.assertSameReplies(lines, maxDepth: depth) }
    }
}
