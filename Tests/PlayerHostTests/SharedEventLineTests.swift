import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostHost
@testable import PlayerHostModel
@testable import PlayerHostRPC

/// An event fanned out to many subscribers is queued to each as the same bytes, not a copy
/// (`RPCConnection.sharedLine`), and still goes out in order with everything else, in one write
/// per connection per flush. No socket: the transport is a closure that records each write.
@Suite struct SharedEventLineTests {
    /// A connection whose writes are recorded, as the server's transport would make them.
    final class Recorded {
        let rpc: RPCConnection
        var writes: [[UInt8]] = []

        init(id: Int = 1) {
            rpc = RPCConnection(id: id, dispatcher: RPCDispatcher(table: Self.table()))
            rpc.onOutput = { [unowned self] in rpc.drainOutput { writes.append(Array($0)) } }
        }

        static func table() -> MethodTable {
            var t = MethodTable()
            t.register(.sync("t.echo", summary: "") { _ in "ok" })
            return t
        }

        var text: String { String(decoding: writes.joined(), as: UTF8.self) }
    }

    let line1 = Array("{\"jsonrpc\":\"2.0\",\"method\":\"e\",\"params\":1}\n".utf8)
    let line2 = Array("{\"jsonrpc\":\"2.0\",\"method\":\"e\",\"params\":2}\n".utf8)

    @Test func aLoneEventIsTheSharedBytesAndOneWrite() {
        let c = Recorded()
        #expect(c.rpc.queueEvent(line1))
        // The connection holds the caller's buffer itself: nothing was copied into `output`.
        #expect(c.rpc.output.isEmpty && c.rpc.sharedLine == line1)
        #expect(c.rpc.unsentBytes == line1.count && c.rpc.hasOutput)
        c.rpc.flushQueued()
        #expect(c.writes == [line1])
        #expect(!c.rpc.hasOutput && c.rpc.unsentBytes == 0 && !c.rpc.isQueuedForFlush)
    }

    @Test func twoEventsBeforeTheFlushGoOutInOrderInOneWrite() {
        let c = Recorded()
        #expect(c.rpc.queueEvent(line1))
        #expect(!c.rpc.queueEvent(line2), "queued once per batch")
        #expect(c.rpc.pendingOutput == line1 + line2)
        c.rpc.flushQueued()
        #expect(c.writes == [line1 + line2])
    }

    @Test func aReplyAfterAQueuedEventFollowsItInTheSameWrite() {
        let c = Recorded()
        _ = c.rpc.queueEvent(line1)
        // A request answered while the event waits for the batch: the reply is written with
        // it, behind it (the client sees them in the order they were produced).
        Array("{\"jsonrpc\":\"2.0\",\"method\":\"t.echo\",\"id\":7}\n".utf8).withUnsafeBytes { _ = c.rpc.receive($0) }
        c.rpc.onOutput?()
        #expect(c.writes.count == 1)
        #expect(c.text == String(decoding: line1, as: UTF8.self) + "{\"jsonrpc\":\"2.0\",\"result\":\"ok\",\"id\":7}\n")
        c.rpc.flushQueued()
        #expect(c.writes.count == 1, "nothing left for the batch's turn")
    }

    @Test func aThousandSubscribersHoldOneBufferAndEachGetsOneWrite() throws {
        let subs = RPCSubscribers()
        let cs = (1...1000).map { Recorded(id: $0) }
        for c in cs { try subs.subscribe(c.rpc, ["nowPlaying"]) }
        let event = PublishedEvent(.nowPlaying(nil))
        subs.receive(event)
        subs.receive(event)
        subs.flush()
        let expected = event.notificationLine + event.notificationLine
        #expect(cs.allSatisfy { $0.writes == [expected] })
        #expect(subs.deliveries == 2000 && !subs.hasUnflushed)
    }

    @Test func aClosedConnectionDropsItsSharedLine() {
        let c = Recorded()
        _ = c.rpc.queueEvent(line1)
        c.rpc.close()
        #expect(!c.rpc.hasOutput)
        c.rpc.flushQueued()
        #expect(c.writes.isEmpty)
    }
}
