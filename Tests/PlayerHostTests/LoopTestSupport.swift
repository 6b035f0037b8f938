import CUV
import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostLoop

/// A mutable cell that callbacks on the loop thread can share with the test body.
final class Box<T> {
    var value: T
    init(_ value: T) { self.value = value }
}

/// An object whose lifetime a test observes through a weak reference (e.g. captured by a callback
/// to prove the wrapper released it on close).
final class Tracker {}

/// A new loop for one test. SIGPIPE is ignored process-wide first: writes to a vanished peer must
/// surface as EPIPE through `onWriteFailure`, never kill the test process.
func makeLoop() throws -> EventLoop {
    signal(SIGPIPE, SIG_IGN)
    return try EventLoop()
}

/// The handles a test left open on `loop`, by type (`timer`, `pipe`, …): every handle that is
/// not closing. Asked *before* `loop.close()`, which force-closes whatever is left — after it
/// the count is zero whatever leaked.
func leftoverHandles(_ loop: EventLoop) -> [String] {
    guard !loop.isClosed else { return [] }
    var names: [String] = []
    withUnsafeMutablePointer(to: &names) { ptr in
        uv_walk(loop.raw, { handle, arg in
            guard let handle, uv_is_closing(handle) == 0 else { return }
            let name = String(cString: uv_handle_type_name(uv_handle_get_type(handle)))
            arg!.assumingMemoryBound(to: [String].self).pointee.append(name)
        }, ptr)
    }
    return names.sorted()
}

/// Ends a test of the loop layer itself: `loop.close()` closes whatever handles are left (many
/// loop tests leave some on purpose — that cleanup is part of what they test) and fails if libuv
/// still finds one (`uv_loop_close` → EBUSY). Tests of code built on the loop, whose leftovers
/// are leaks, end with `closeLoopExpectingNoLeaks`.
func closeLoop(_ loop: EventLoop, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        try loop.close()
    } catch {
        Issue.record("loop.close() threw \(error)", sourceLocation: sourceLocation)
    }
}

/// Fails if a handle is still open on `loop` (the test, or the code under test, forgot to close
/// it) — counted before closing, since `loop.close()` force-closes leftovers — then closes it.
func closeLoopExpectingNoLeaks(_ loop: EventLoop, sourceLocation: SourceLocation = #_sourceLocation) {
    let left = leftoverHandles(loop)
    #expect(left.isEmpty, "handles left open: \(left)", sourceLocation: sourceLocation)
    closeLoop(loop, sourceLocation: sourceLocation)
}

/// A libuv prepare handle (test-only) that stops the loop, just before it would block polling,
/// once `done()` holds. `run(.once)` runs due timers *before* polling: without this, a timer that
/// satisfies the condition there would still leave the loop blocked until the next event.
final class StopWhenDone: LoopHandle {
    private var done: (() -> Bool)?

    init(loop: EventLoop, _ done: @escaping () -> Bool) {
        let p = UnsafeMutablePointer<uv_prepare_t>.allocate(capacity: 1)
        self.done = done
        super.init(loop: loop, pointer: p)
        _ = uv_prepare_init(loop.raw, p)  // cannot fail
        didInit()
        _ = uv_prepare_start(p) { h in
            let me = LoopHandle.object(h, as: StopWhenDone.self)
            if me.done?() == true { me.loop.stop() }
        }
        isReferenced = false
    }

    override func didClose() { done = nil }
}

/// Runs the loop one iteration at a time until `done()` holds, with a referenced watchdog timer on
/// the same loop: if it fires first the test fails and the loop stops. The helpers are closed
/// before returning (their close callbacks run on the next iteration). Returns false on timeout.
@discardableResult
func runLoop(
    _ loop: EventLoop,
    timeout milliseconds: UInt64 = 10_000,
    sourceLocation: SourceLocation = #_sourceLocation,
    until done: @escaping () -> Bool
) throws -> Bool {
    let timedOut = Box(false)
    let watchdog = try Timer(loop: loop)
    watchdog.start(after: milliseconds) {
        timedOut.value = true
        loop.stop()
    }
    let stopper = StopWhenDone(loop: loop, done)
    while !done() && !timedOut.value {
        loop.run(.once)
    }
    stopper.close()
    watchdog.close()
    if timedOut.value {
        Issue.record("timed out after \(milliseconds) ms waiting for a loop event", sourceLocation: sourceLocation)
    }
    return !timedOut.value
}

/// Runs the loop until no referenced handle is active (`.untilIdle`), guarded by an unreferenced
/// watchdog that cannot itself keep the loop alive. The watchdog's close callback has run when
/// this returns. Returns false on timeout.
@discardableResult
func runUntilIdle(
    _ loop: EventLoop,
    timeout milliseconds: UInt64 = 10_000,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> Bool {
    let timedOut = Box(false)
    let watchdog = try Timer(loop: loop)
    watchdog.isReferenced = false
    watchdog.start(after: milliseconds) {
        timedOut.value = true
        loop.stop()
    }
    loop.run(.untilIdle)
    watchdog.close()
    loop.run(.noWait)
    if timedOut.value {
        Issue.record("timed out after \(milliseconds) ms: the loop never went idle", sourceLocation: sourceLocation)
    }
    return !timedOut.value
}

/// A short, unique socket path under /tmp (far below the 107-byte limit).
func tempSocketPath() -> String {
    let suffix = String(UInt32.random(in: 0 ... .max), radix: 36)
    return "/tmp/ph-\(getpid())-\(suffix).sock"
}

/// Appends the bytes of a read callback's buffer (valid only during the callback).
func append(_ bytes: UnsafeRawBufferPointer, to array: inout [UInt8]) {
    array.append(contentsOf: bytes.bindMemory(to: UInt8.self))
}

/// A deterministic payload whose bytes reveal loss, duplication or reordering (xorshift64, eight
/// bytes per step so multi-MiB payloads are cheap in debug builds).
func pattern(_ count: Int, seed: UInt64 = 0) -> [UInt8] {
    var x: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ (seed &* 0x2545_F491_4F6C_DD1D)
    if x == 0 { x = 1 }
    return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        var i = 0
        while i < count {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            withUnsafeBytes(of: x.littleEndian) { word in
                let n = min(8, count - i)
                for j in 0..<n { buffer[i + j] = word[j] }
            }
            i += 8
        }
        initialized = count
    }
}

/// A connected client/server pair of streams over a fresh Unix socket: the listening server, the
/// accepted stream, the client stream. Neither stream is reading yet.
func connectedPair(
    _ loop: EventLoop,
    path: String = tempSocketPath(),
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> (server: PipeServer, accepted: PipeStream, client: PipeStream) {
    let server = try PipeServer(loop: loop)
    try server.bind(path: path)
    let accepted = Box<PipeStream?>(nil)
    try server.listen { [unowned server] error in
        #expect(error == nil, sourceLocation: sourceLocation)
        do { accepted.value = try server.accept() } catch {
            Issue.record("accept failed: \(error)", sourceLocation: sourceLocation)
        }
    }
    let client = try PipeStream(loop: loop)
    let connected = Box<LoopError??>(nil)
    try client.connect(path: path) { connected.value = .some($0) }
    try runLoop(loop, sourceLocation: sourceLocation) { accepted.value != nil && connected.value != nil }
    #expect(connected.value == .some(nil), "connect failed", sourceLocation: sourceLocation)
    guard let stream = accepted.value else {
        throw LoopError(code: -1, operation: "test: no accepted connection")
    }
    return (server, stream, client)
}
