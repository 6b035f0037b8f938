import Glibc
import Logging
import Testing
@testable import PlayerHost
@testable import PlayerHostClient

/// Fairness (issue 16, item 2) without a daemon: the framer and a connection serve a bounded
/// share per call, the control server's time budget lets another client in between an expensive
/// batch (in-process, on a loop of its own), and a reply that would pass the output limit is an
/// error reply. (Clients that do not read, held back and cut off by the real daemon:
/// `SocketTransportLimitsEndToEndTests`; a huge reply over the protocol: `ClientLimitsOverSocketTests`.)
@Suite struct FairnessTests {
    @Test func theFramerHandsOutAtMostTheBudgetAndSaysWhereItStopped() throws {
        var framer = LineFramer(maxLine: 100)
        let input = Array("a\nbb\nccc\ndd".utf8)
        var lines: [String] = []
        let taken = try input.withUnsafeBytes { b in
            try framer.feed(b, maxLines: 2) { lines.append(String(decoding: $0, as: UTF8.self)) }
        }
        #expect(lines == ["a", "bb"])
        #expect(taken == 5, "stopped right after the second newline")
        let rest = try Array(input[taken...]).withUnsafeBytes { b in
            try framer.feed(b, maxLines: 2) { lines.append(String(decoding: $0, as: UTF8.self)) }
        }
        #expect(lines == ["a", "bb", "ccc"])
        #expect(rest == input.count - taken, "the unfinished tail is kept by the framer")
    }

    @Test func aConnectionServesAtMostItsBudgetPerCall() throws {
        var table = MethodTable()
        table.register(.sync("t.echo", summary: "") { _ in "ok" })
        let rpc = RPCConnection(id: 1, dispatcher: RPCDispatcher(table: table))
        let burst = Array(String(repeating: #"{"jsonrpc":"2.0","method":"t.echo","id":1}"# + "\n", count: 10).utf8)
        let (taken, disposition) = burst.withUnsafeBytes { rpc.receive($0, maxLines: 4) }
        #expect(disposition == .keepOpen)
        #expect(taken == burst.count / 10 * 4)
        #expect(rpc.output.filter { $0 == 0x0A }.count == 4, "four replies, the rest waits")
    }

    @Test func theFramerStopsAfterTheLineThatUsesTheBudgetUp() throws {
        var framer = LineFramer(maxLine: 100)
        let input = Array("a\nbb\nccc\n".utf8)
        var lines: [String] = []
        let taken = try input.withUnsafeBytes { b in
            try framer.feed(b, maxLines: .max, stopAfter: { lines.count == 2 }) {
                lines.append(String(decoding: $0, as: UTF8.self))
            }
        }
        #expect(lines == ["a", "bb"])
        #expect(taken == 5, "the third line waits for the next turn")
    }

    /// Issue 16: a connection's pipelined expensive requests are split across loop turns by the
    /// time budget (the count budget is out of reach here), another connection's ping is answered
    /// in between, and every request is still answered, in order. Structural, not timed: each
    /// request costs more than the whole budget, so a turn serves one of them, and the ping,
    /// sent after the flooder's first request ran, must run before its last.
    @Test func theTimeBudgetLetsAnotherClientInBetweenAnExpensiveBatch() throws {
        let loop = try makeLoop()
        let order = Box<[String]>([])
        var table = MethodTable()
        table.register(.sync("t.expensive", summary: "") { _ in
            let start = EventLoop.hrtime()
            while EventLoop.hrtime() < start + 50_000 {}  // 50 µs of work: over the 10 µs budget
            order.value.append("expensive")
            return "done"
        })
        table.register(.sync("t.ping", summary: "") { _ in
            order.value.append("ping")
            return "pong"
        })
        var limits = RPCLimits()
        limits.requestsPerTurn = 100_000
        limits.turnBudgetMicroseconds = 10
        let server = ControlServer(loop: loop, dispatcher: RPCDispatcher(table: table, limits: limits),
                                   path: tempSocketPath(), logger: Logger(label: "fairness-test"))
        try server.start()
        let flooder = try RawPeer(path: server.path)
        let pinger = try RawPeer(path: server.path)
        try runLoop(loop) { server.connectionCount == 2 }

        let count = 200
        var batch: [UInt8] = []
        for i in 1...count { batch += requestLine("t.expensive", id: Int64(i)) }
        try flooder.sendAll(batch)  // ~12 kB: one read takes it all
        try runLoop(loop) { !order.value.isEmpty }
        #expect(order.value.count < count, "the batch was not served in one turn")
        try pinger.sendAll(requestLine("t.ping", id: 1))
        // Both served and every reply written out (the peers read them after the loop stops).
        try runLoop(loop) { order.value.count == count + 1 && server.queuedOutputBytes == 0 }

        let pingAt = order.value.firstIndex(of: "ping") ?? count
        #expect(pingAt < count, "the ping was answered before the flooder's last request (at \(pingAt))")
        #expect(order.value.filter { $0 == "expensive" }.count == count)
        for i in 1...count {
            let reply = try flooder.readMessage(timeout: 10)
            #expect(reply["id"] == .int(Int64(i)) && reply["result"] == "done")
        }
        #expect(try pinger.readMessage(timeout: 10)["result"] == "pong")

        flooder.close()
        pinger.close()
        server.stopAccepting()
        server.closeAllNow(reason: "test over")
        try runUntilIdle(loop)
        // The loop's own next-turn handle (an idle handle, kept for the loop's life) stays.
        #expect(leftoverHandles(loop).filter { $0 != "idle" }.isEmpty)
        closeLoop(loop)
    }

    @Test func aReplyOverTheOutputLimitBecomesAnErrorReply() throws {
        var table = MethodTable()
        table.register(.sync("t.big", summary: "") { _ in .string(String(repeating: "x", count: 5000)) })
        table.register(.sync("t.small", summary: "") { _ in "ok" })
        var limits = RPCLimits()
        limits.maxOutputBytes = 4096
        let rpc = RPCConnection(id: 1, dispatcher: RPCDispatcher(table: table, limits: limits))
        let lines = Array((#"{"jsonrpc":"2.0","method":"t.big","id":1}"# + "\n" + #"{"jsonrpc":"2.0","method":"t.small","id":2}"# + "\n").utf8)
        #expect(lines.withUnsafeBytes { rpc.receive($0) } == .keepOpen)
        let replies = String(decoding: rpc.output, as: UTF8.self).split(separator: "\n")
        #expect(replies.count == 2)
        let first = try JSONParser.parse(Array(replies[0].utf8))
        #expect(first["error"]?["code"] == .int(Int64(RPCErrorCode.limitExceeded.rawValue)))
        #expect(first["error"]?["data"]?["limit"] == 4096)
        #expect(first["id"] == 1)
        #expect(replies[1].contains(#""result":"ok""#), "the next request is served")
    }
}
