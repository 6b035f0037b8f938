import Testing
@testable import PlayerHost

/// `EventLoop.onNextTurn`: work runs after the current callback, in order, work queued meanwhile
/// waits a turn, and nothing stays active (an idle loop arms nothing).
@Suite struct LoopNextTurnTests {
    @Test func runsLaterInOrderAndLeavesNothingActive() throws {
        let loop = try makeLoop()
        let order = Box<[String]>([])
        loop.onNextTurn { order.value.append("a") }
        loop.onNextTurn {
            order.value.append("b")
            loop.onNextTurn { order.value.append("c") }
        }
        #expect(order.value.isEmpty, "nothing runs inside the call that queued it")
        #expect(loop.activeHandleCount == 1)
        loop.run(.noWait)
        #expect(order.value == ["a", "b"], "work queued while the queue runs waits for the next turn")
        loop.run(.noWait)
        #expect(order.value == ["a", "b", "c"])
        #expect(loop.activeHandleCount == 0, "idle once the queue is empty")
        closeLoop(loop)
    }

    @Test func workQueuedAfterCloseIsDropped() throws {
        let loop = try makeLoop()
        let ran = Box(0)
        loop.onNextTurn { ran.value += 1 }
        closeLoop(loop)
        loop.onNextTurn { ran.value += 1 }
        #expect(ran.value == 0)
    }
}
