import Glibc
import Testing
@testable import PlayerHost

@Suite struct LoopEventLoopTests {
    @Test func freshLoopIsEmptyAndIdle() throws {
        let loop = try makeLoop()
        #expect(loop.handleCount == 0)
        #expect(loop.activeHandleCount == 0)
        #expect(!loop.isAlive)
        #expect(loop.run(.untilIdle) == false, "an empty loop returns at once")
        #expect(loop.run(.noWait) == false)
        closeLoop(loop)
    }

    @Test func handleAndActiveCounts() throws {
        let loop = try makeLoop()
        let timer = try Timer(loop: loop)
        #expect(loop.handleCount == 1)
        #expect(loop.activeHandleCount == 0, "an unarmed timer is not active")
        #expect(!loop.isAlive)

        timer.start(after: 60_000) {}
        #expect(loop.activeHandleCount == 1)
        #expect(timer.isActive && timer.isReferenced)
        #expect(loop.isAlive)

        timer.isReferenced = false
        #expect(timer.isActive)
        #expect(!timer.isReferenced)
        #expect(loop.activeHandleCount == 0, "an unreferenced timer does not count as active")
        #expect(!loop.isAlive)
        #expect(loop.run(.untilIdle) == false, "an unreferenced timer does not keep run going")

        timer.isReferenced = true
        #expect(loop.activeHandleCount == 1)
        timer.stop()
        #expect(loop.activeHandleCount == 0, "a stopped timer is not active")
        #expect(loop.handleCount == 1)

        let second = try Timer(loop: loop)
        second.start(after: 60_000) {}
        timer.start(after: 60_000) {}
        #expect(loop.handleCount == 2)
        #expect(loop.activeHandleCount == 2)

        second.close()
        #expect(loop.activeHandleCount == 1, "a closing timer is stopped")
        #expect(loop.handleCount == 2, "but known until its close callback ran")
        loop.run(.noWait)
        #expect(loop.handleCount == 1)
        closeLoop(loop)
    }

    @Test func runNoWaitReturnsWithoutBlocking() throws {
        let loop = try makeLoop()
        let timer = try Timer(loop: loop)
        let fired = Box(false)
        timer.start(after: 60_000) { fired.value = true }
        let began = EventLoop.hrtime()
        #expect(loop.run(.noWait) == true, "the armed timer keeps the loop alive")
        #expect(EventLoop.hrtime() - began < 5_000_000_000)
        #expect(!fired.value)
        closeLoop(loop)
        #expect(!fired.value, "closing the loop closed the armed timer without firing it")
    }

    @Test func runOnceProcessesOneRoundOfEvents() throws {
        let loop = try makeLoop()
        let timer = try Timer(loop: loop)
        let fired = Box(0)
        timer.start(after: 1) { fired.value += 1 }
        try runLoop(loop) { fired.value == 1 }
        #expect(fired.value == 1)
        closeLoop(loop)
    }

    @Test func stopMakesRunReturn() throws {
        let loop = try makeLoop()
        let ticker = try Timer(loop: loop)
        let ticks = Box(0)
        ticker.start(after: 1, repeat: 1) {
            ticks.value += 1
            if ticks.value == 3 { loop.stop() }
        }
        #expect(loop.run(.untilIdle) == true, "stopped with the repeating timer still alive")
        #expect(ticks.value == 3)
        // The loop can be run again after a stop.
        try runLoop(loop) { ticks.value >= 4 }
        closeLoop(loop)
    }

    @Test func nowAndUpdateTime() throws {
        let loop = try makeLoop()
        let before = loop.nowMilliseconds
        loop.updateTime()
        #expect(loop.nowMilliseconds >= before)
        let t0 = EventLoop.hrtime()
        #expect(EventLoop.hrtime() >= t0)
        closeLoop(loop)
    }

    @Test func closeWithOpenHandlesLeavesNone() throws {
        let loop = try makeLoop()
        let path = tempSocketPath()
        defer { unlink(path) }
        let fired = Box(0)
        let closedCount = Box(0)
        let writeFailures = Box(0)
        weak var weakTimer: Timer?
        weak var weakServer: PipeServer?
        weak var weakAccepted: PipeStream?
        weak var weakClient: PipeStream?
        weak var weakWakeup: AsyncWakeup?
        weak var weakSignal: SignalWatcher?
        weak var weakPoll: FDPoll?
        weak var weakCapture: Tracker?
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        do {
            let capture = Tracker()
            weakCapture = capture
            let (server, accepted, client) = try connectedPair(loop, path: path)
            let timer = try Timer(loop: loop)
            timer.start(after: 60_000, repeat: 60_000) { _ = capture; fired.value += 1 }
            timer.close { closedCount.value += 1 }  // a pending close(then:) must still run once
            let timer2 = try Timer(loop: loop)
            timer2.start(after: 60_000) { _ = capture; fired.value += 1 }
            try accepted.startReading(onRead: { _ in _ = capture }, onEnd: { _ in _ = capture })
            try client.startReading(onRead: { _ in }, onEnd: { _ in })
            // A write the peer never reads: queued, then cancelled by close without reporting.
            client.onWriteFailure { _ in writeFailures.value += 1 }
            client.write(pattern(4 << 20))
            #expect(client.pendingWriteBytes > 0)
            client.shutdown { _ in closedCount.value += 10 }
            let wakeup = try AsyncWakeup(loop: loop) { _ = capture; fired.value += 1 }
            let sig = try SignalWatcher(loop: loop)
            try sig.start(signal: SIGUSR2) { _ in _ = capture; fired.value += 1 }
            let poll = try FDPoll(loop: loop, fileDescriptor: fds[0])
            try poll.start(.readable) { _ in _ = capture; fired.value += 1 }
            weakTimer = timer2
            weakServer = server
            weakAccepted = accepted
            weakClient = client
            weakWakeup = wakeup
            weakSignal = sig
            weakPoll = poll
        }
        // Server, 2 streams, timer2, wakeup, signal, poll, and 3 still closing: `timer` and
        // connectedPair's watchdog and stopper.
        #expect(loop.handleCount == 10)
        closeLoop(loop)
        #expect(fired.value == 0)
        #expect(writeFailures.value == 0, "a write cancelled by close is not a failure")
        #expect(closedCount.value == 11, "close(then:) ran once, shutdown completion ran once (cancelled)")
        #expect(weakTimer == nil)
        #expect(weakServer == nil)
        #expect(weakAccepted == nil)
        #expect(weakClient == nil)
        #expect(weakWakeup == nil)
        #expect(weakSignal == nil)
        #expect(weakPoll == nil)
        #expect(weakCapture == nil, "every callback was released")
        // Its owner's to remove (ControlServer, after an inode check): libuv never bound the name.
        #expect(access(path, F_OK) == 0, "closing the server leaves its socket file")
    }

    @Test func closeIsIdempotentAndSafeAfterwards() throws {
        let loop = try makeLoop()
        _ = try Timer(loop: loop)
        closeLoop(loop)
        closeLoop(loop)
        #expect(loop.activeHandleCount == 0)
        #expect(!loop.isAlive)
        #expect(loop.run(.noWait) == false)
    }

    @Test func closeHandlesCreatedByCloseCallbacks() throws {
        let loop = try makeLoop()
        let timer = try Timer(loop: loop)
        let late = Box<Timer?>(nil)
        timer.start(after: 60_000) {}
        // A close callback that opens a new handle while the loop is being closed.
        timer.close {
            late.value = try? Timer(loop: loop)
            late.value?.start(after: 60_000) {}
        }
        closeLoop(loop)
        #expect(late.value != nil)
        #expect(late.value?.isClosing == true)
    }
}
