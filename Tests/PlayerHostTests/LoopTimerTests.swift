import Glibc
import Testing
@testable import PlayerHost

@Suite struct LoopTimerTests {
    @Test func oneShotFiresExactlyOnce() throws {
        let loop = try makeLoop()
        let timer = try Timer(loop: loop)
        let fired = Box(0)
        timer.start(after: 1) { fired.value += 1 }
        #expect(timer.isActive)
        try runUntilIdle(loop)
        #expect(fired.value == 1)
        #expect(!timer.isActive, "a one-shot timer is inactive after firing")
        loop.run(.noWait)
        #expect(fired.value == 1)
        closeLoop(loop)
        #expect(fired.value == 1)
    }

    @Test func repeatingFiresNTimesThenStops() throws {
        let loop = try makeLoop()
        let timer = try Timer(loop: loop)
        let fired = Box(0)
        timer.start(after: 1, repeat: 1) { [unowned timer] in
            fired.value += 1
            if fired.value == 5 { timer.stop() }
        }
        try runUntilIdle(loop)
        #expect(fired.value == 5)
        #expect(!timer.isActive)
        #expect(timer.dueIn == 0)
        closeLoop(loop)
        #expect(fired.value == 5)
    }

    @Test func stopPreventsFiring() throws {
        let loop = try makeLoop()
        let stopped = try Timer(loop: loop)
        let fired = Box(0)
        stopped.start(after: 0) { fired.value += 1 }
        stopped.stop()
        #expect(!stopped.isActive)

        // A second timer stops the first from its own callback, after the first's deadline passed
        // but before the loop got to it... and a later timer keeps the loop turning past both.
        let victim = try Timer(loop: loop)
        let killer = try Timer(loop: loop)
        let later = try Timer(loop: loop)
        victim.start(after: 2) { fired.value += 100 }
        killer.start(after: 1) { victim.stop() }
        let laterFired = Box(false)
        later.start(after: 20) { laterFired.value = true }
        try runUntilIdle(loop)
        #expect(laterFired.value)
        #expect(fired.value == 0)
        closeLoop(loop)
        #expect(fired.value == 0)
    }

    @Test func rearmReplacesScheduleAndCallback() throws {
        let loop = try makeLoop()
        let timer = try Timer(loop: loop)
        let first = Box(0)
        let second = Box(0)
        timer.start(after: 60_000) { first.value += 1 }
        #expect(timer.dueIn > 1_000)
        timer.start(after: 1) { second.value += 1 }
        #expect(timer.dueIn <= 1)
        let began = EventLoop.hrtime()
        try runUntilIdle(loop)
        #expect(first.value == 0)
        #expect(second.value == 1)
        #expect(EventLoop.hrtime() - began < 30_000_000_000, "the 60 s schedule was replaced")

        // A stopped timer keeps its callback for a later start, and can be re-armed after firing.
        timer.start(after: 1) { second.value += 10 }
        try runUntilIdle(loop)
        #expect(second.value == 11)
        closeLoop(loop)
    }

    @Test func rearmFromInsideItsOwnCallback() throws {
        let loop = try makeLoop()
        let timer = try Timer(loop: loop)
        let log = Box<[String]>([])
        timer.start(after: 1) { [unowned timer] in
            log.value.append("a")
            timer.start(after: 1) { log.value.append("b") }
        }
        try runUntilIdle(loop)
        #expect(log.value == ["a", "b"])
        closeLoop(loop)
    }

    @Test func closingAnArmedTimerNeverFiresIt() throws {
        let loop = try makeLoop()
        let fired = Box(0)
        let closed = Box(false)
        let timer = try Timer(loop: loop)
        timer.start(after: 0) { fired.value += 1 }
        timer.close { closed.value = true }
        #expect(!timer.isActive)
        try runUntilIdle(loop)
        #expect(closed.value)

        // Closed from another timer's callback in the same timer pass, while already due.
        let victim = try Timer(loop: loop)
        let killer = try Timer(loop: loop)
        victim.start(after: 1) { fired.value += 1 }
        killer.start(after: 0) {
            victim.close()
            killer.close()
        }
        try runUntilIdle(loop)
        #expect(victim.isClosing && killer.isClosing)
        #expect(fired.value == 0)
        closeLoop(loop)
        #expect(fired.value == 0)
    }

    @Test func droppedTimerStillFiresAndIsFreedOnClose() throws {
        let loop = try makeLoop()
        let fired = Box(0)
        weak var weakTimer: Timer?
        weak var weakCapture: Tracker?
        do {
            let capture = Tracker()
            weakCapture = capture
            let timer = try Timer(loop: loop)
            timer.start(after: 1) { _ = capture; fired.value += 1 }
            weakTimer = timer
        }
        #expect(weakTimer != nil, "an open handle retains itself")
        try runUntilIdle(loop)
        #expect(fired.value == 1)
        #expect(weakTimer != nil, "still open after firing: only close releases it")
        #expect(weakCapture != nil)
        closeLoop(loop)
        #expect(weakTimer == nil, "the close callback dropped the self-retain")
        #expect(weakCapture == nil, "the callback (and what it captured) was released")
    }

    @Test func timerClosingItselfFromItsCallbackIsReleased() throws {
        let loop = try makeLoop()
        let fired = Box(0)
        weak var weakTimer: Timer?
        do {
            let timer = try Timer(loop: loop)
            // The callback holds the timer strongly: a cycle only close may break.
            timer.start(after: 1, repeat: 1) {
                fired.value += 1
                timer.close()
            }
            weakTimer = timer
        }
        try runUntilIdle(loop)
        #expect(fired.value == 1)
        #expect(weakTimer == nil, "closing released the timer and the cycle through its callback")
        #expect(loop.handleCount == 0)
        closeLoop(loop)
    }

    @Test func closeThenCallbackRunsFromTheCloseCallback() throws {
        let loop = try makeLoop()
        let timer = try Timer(loop: loop)
        let order = Box<[String]>([])
        timer.start(after: 60_000) { order.value.append("fired") }
        timer.close { order.value.append("closed") }
        #expect(order.value.isEmpty, "then runs from libuv's close callback, not synchronously")
        #expect(timer.isClosing)
        #expect(loop.handleCount == 1, "the handle stays known to libuv until its close callback")
        loop.run(.noWait)
        #expect(order.value == ["closed"])
        #expect(loop.handleCount == 0)
        closeLoop(loop)
        #expect(order.value == ["closed"])
    }

    @Test func closeIsIdempotent() throws {
        let loop = try makeLoop()
        let timer = try Timer(loop: loop)
        let order = Box<[String]>([])
        timer.close { order.value.append("first") }
        // A second close before libuv finished closing: its callback must not run early, and
        // both must run exactly once.
        timer.close { order.value.append("second") }
        timer.close()
        #expect(order.value.isEmpty, "no close callback may run before libuv's close callback")
        loop.run(.noWait)
        #expect(order.value == ["first", "second"])
        // After the close completed, close runs its callback at once.
        timer.close { order.value.append("third") }
        #expect(order.value == ["first", "second", "third"])
        // Everything else is a harmless no-op on a closed timer, starting it included (a request
        // settled early closes its timeout timer before the caller gets to start it).
        timer.start(after: 0) { order.value.append("fired") }
        loop.run(.noWait)
        #expect(order.value == ["first", "second", "third"])
        timer.stop()
        #expect(timer.dueIn == 0)
        #expect(!timer.isActive)
        #expect(!timer.isReferenced)
        timer.isReferenced = true
        closeLoop(loop)
        timer.close()
        #expect(order.value == ["first", "second", "third"])
    }
}
