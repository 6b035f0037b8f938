import Testing
@testable import PlayerHost

/// The web remote's write pacing (issue 25): a change to 200 pages is asked of lws at most 32 a
/// loop turn, so a socket client read between batches waits for one batch, not 200 writes.
@Suite struct WritableQueueTests {
    @Test func twoHundredPagesGoOutInBatchesOfThirtyTwoInOrder() {
        var q = WritableQueue<Int>(perTurn: 32)
        for c in 0..<200 { q.enqueue(c) }
        var batches: [[Int]] = []
        while !q.isEmpty { batches.append(q.nextBatch()) }
        #expect(batches.map(\.count) == [32, 32, 32, 32, 32, 32, 8])
        #expect(batches.flatMap { $0 } == Array(0..<200))
        #expect(q.nextBatch().isEmpty)
    }

    @Test func askingTwiceBeforeItsBatchAsksOnce() {
        var q = WritableQueue<Int>(perTurn: 32)
        q.enqueue(1)
        q.enqueue(2)
        q.enqueue(1)
        #expect(q.nextBatch() == [1, 2])
        q.enqueue(1)
        #expect(q.nextBatch() == [1])
    }

    @Test func aDestroyedConnectionIsNotHandedOut() {
        var q = WritableQueue<Int>(perTurn: 2)
        for c in 0..<4 { q.enqueue(c) }
        q.forget(1)
        q.forget(3)
        #expect(q.nextBatch() == [0, 2])
        #expect(q.isEmpty)
        // A new connection at a freed one's name, asked for later: once.
        q.enqueue(1)
        #expect(q.nextBatch() == [1])
        #expect(q.nextBatch().isEmpty)
    }

    @Test func aBatchSkipsForgottenOnesWithoutShrinking() {
        var q = WritableQueue<Int>(perTurn: 2)
        for c in 0..<5 { q.enqueue(c) }
        q.forget(0)
        #expect(q.nextBatch() == [1, 2])
        #expect(q.nextBatch() == [3, 4])
    }
}
