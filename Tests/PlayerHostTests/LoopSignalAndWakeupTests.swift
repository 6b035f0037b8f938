import Foundation
import Glibc
import Testing
@testable import PlayerHost

/// raise(2) with `signal` unblocked on the calling thread for the duration: the handler runs
/// before this returns.
private func raiseUnblocked(_ signal: Int32) -> Int32 {
    var set = sigset_t()
    var old = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, signal)
    pthread_sigmask(SIG_UNBLOCK, &set, &old)
    defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
    return raise(signal)
}

@Suite struct LoopSignalAndWakeupTests {
    @Test func raisedSignalIsDeliveredOnTheLoop() throws {
        let loop = try makeLoop()
        let watcher = try SignalWatcher(loop: loop)
        let received = Box<[Int32]>([])
        let loopThread = pthread_self()
        let onLoopThread = Box(false)
        try watcher.start(signal: SIGUSR1) { signum in
            received.value.append(signum)
            onLoopThread.value = pthread_equal(pthread_self(), loopThread) != 0
        }
        #expect(watcher.isActive)
        // Test bodies run on dispatch worker threads, which block signals: a thread-directed
        // raise() would stay pending. Unblock SIGUSR1 on this thread around it.
        #expect(raiseUnblocked(SIGUSR1) == 0)
        #expect(received.value.isEmpty, "delivery waits for the loop, not the signal handler")
        try runLoop(loop) { !received.value.isEmpty }
        #expect(received.value == [SIGUSR1])
        #expect(onLoopThread.value)

        // kill(getpid()) lands on whichever thread does not block it; libuv still delivers it here.
        #expect(kill(getpid(), SIGUSR1) == 0)
        try runLoop(loop) { received.value.count == 2 }
        #expect(received.value == [SIGUSR1, SIGUSR1])

        watcher.stop()
        #expect(!watcher.isActive)
        closeLoop(loop)
    }

    @Test func signalWatcherRestartsWithANewSignal() throws {
        let loop = try makeLoop()
        let watcher = try SignalWatcher(loop: loop)
        let received = Box<[Int32]>([])
        try watcher.start(signal: SIGUSR2) { received.value.append($0) }
        try watcher.start(signal: SIGWINCH) { received.value.append(-$0) }
        #expect(kill(getpid(), SIGWINCH) == 0)
        try runLoop(loop) { !received.value.isEmpty }
        #expect(received.value == [-SIGWINCH])
        closeLoop(loop)
    }

    @Test func invalidSignalIsRefused() throws {
        let loop = try makeLoop()
        let watcher = try SignalWatcher(loop: loop)
        #expect(throws: LoopError.self) { try watcher.start(signal: 0) { _ in } }
        closeLoop(loop)
    }

    @Test func sendFromAnotherThreadWakesTheLoop() throws {
        let loop = try makeLoop()
        let calls = Box(0)
        let onLoopThread = Box(false)
        let loopThread = pthread_self()
        let wakeup = try AsyncWakeup(loop: loop) {
            calls.value += 1
            onLoopThread.value = pthread_equal(pthread_self(), loopThread) != 0
        }
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            wakeup.send()
            finished.signal()
        }
        thread.start()
        // The wakeup is referenced and active, so run(.once) blocks until the other thread sends.
        try runLoop(loop) { calls.value >= 1 }
        #expect(calls.value == 1)
        #expect(onLoopThread.value)
        finished.wait()
        closeLoop(loop)
    }

    @Test func manySendsCoalesce() throws {
        let loop = try makeLoop()
        let calls = Box(0)
        let wakeup = try AsyncWakeup(loop: loop) { calls.value += 1 }

        // Sends before the loop runs coalesce into exactly one callback.
        wakeup.send()
        wakeup.send()
        wakeup.send()
        try runLoop(loop) { calls.value >= 1 }
        loop.run(.noWait)
        #expect(calls.value == 1)

        // A storm from another thread: at least one callback, at most one per send.
        calls.value = 0
        let sends = 10_000
        let finished = DispatchSemaphore(value: 0)
        Thread {
            for _ in 0..<sends { wakeup.send() }
            finished.signal()
        }.start()
        try runLoop(loop) { calls.value >= 1 }
        finished.wait()
        loop.run(.noWait)  // whatever the last sends still wake
        #expect(calls.value >= 1)
        #expect(calls.value <= sends)
        closeLoop(loop)
    }

    @Test func sendRacingWithCloseIsHarmless() throws {
        let loop = try makeLoop()
        let calls = Box(0)
        let wakeup = try AsyncWakeup(loop: loop) { calls.value += 1 }
        let finished = DispatchSemaphore(value: 0)
        Thread {
            // Keeps sending while, and after, the loop thread closes the handle.
            for _ in 0..<200_000 { wakeup.send() }
            finished.signal()
        }.start()
        try runLoop(loop) { calls.value >= 1 }
        let closed = Box(false)
        wakeup.close { closed.value = true }
        try runLoop(loop) { closed.value }
        finished.wait()
        wakeup.send()
        closeLoop(loop)
    }

    @Test func unreferencedWakeupDoesNotKeepTheLoopAlive() throws {
        let loop = try makeLoop()
        let wakeup = try AsyncWakeup(loop: loop) {}
        #expect(loop.activeHandleCount == 1)
        #expect(loop.isAlive)
        wakeup.isReferenced = false
        #expect(loop.activeHandleCount == 0)
        #expect(loop.run(.untilIdle) == false)
        closeLoop(loop)
    }
}
