import Testing
@testable import PlayerHost

/// The leak check every loop test ends with can fail: a handle left open is reported.
@Suite struct LeakCheckTests {
    @Test func aTimerLeftOpenIsReportedAndOneClosedIsNot() throws {
        let loop = try makeLoop()
        let forgotten = try Timer(loop: loop)
        forgotten.start(after: 60_000) {}
        let closed = try Timer(loop: loop)
        closed.close()
        #expect(leftoverHandles(loop) == ["timer"], "the forgotten timer, not the closing one")
        forgotten.close()
        #expect(leftoverHandles(loop).isEmpty)
        closeLoopExpectingNoLeaks(loop)
    }

    @Test func anUnarmedHandleLeftOpenCountsToo() throws {
        let loop = try makeLoop()
        let idle = try Timer(loop: loop)
        #expect(leftoverHandles(loop) == ["timer"])
        // What `loop.close()` hides: after it, nothing is left whatever leaked.
        try loop.close()
        #expect(loop.handleCount == 0 && leftoverHandles(loop).isEmpty)
        _ = idle
    }
}
