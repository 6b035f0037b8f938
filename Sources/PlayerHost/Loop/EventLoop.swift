import CUV

/// One libuv loop. Every handle belongs to exactly one loop and is used only on the thread that
/// runs it; `AsyncWakeup.send()` is the only thread-safe entry.
public final class EventLoop {
    /// How `run` returns.
    public enum RunMode: Sendable {
        /// Until no active handle or request is left, or `stop()` is called.
        case untilIdle
        /// Poll once, blocking for events if there are none pending.
        case once
        /// Poll once without blocking.
        case noWait

        var uv: uv_run_mode {
            switch self {
            case .untilIdle: return UV_RUN_DEFAULT
            case .once: return UV_RUN_ONCE
            case .noWait: return UV_RUN_NOWAIT
            }
        }
    }

    let raw: UnsafeMutablePointer<uv_loop_t>
    /// True once `close()` succeeded.
    public private(set) var isClosed = false
    /// One read buffer for every stream of this loop: libuv hands it to exactly one read callback
    /// at a time, which consumes it before returning, so no per-read allocation is needed.
    let readBuffer: UnsafeMutableRawBufferPointer
    static let readBufferSize = 64 * 1024
    /// Work deferred to the next turn (`onNextTurn`); made on first use.
    var nextTurn: NextTurn?

    public init() throws(LoopError) {
        raw = .allocate(capacity: 1)
        let status = uv_loop_init(raw)
        if status < 0 {
            raw.deallocate()
            throw LoopError(code: status, operation: "uv_loop_init")
        }
        readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
        raw.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        if !isClosed {
            // Closing is the owner's job; do it here rather than leak or free live handles.
            _ = try? close()
        }
        readBuffer.deallocate()
        // Kept until now (not freed in close) so counting handles after close reads valid memory.
        raw.deallocate()
    }

    static func from(_ loop: UnsafeMutablePointer<uv_loop_t>?) -> EventLoop {
        Unmanaged<EventLoop>.fromOpaque(loop!.pointee.data!).takeUnretainedValue()
    }

    /// Runs the loop. Returns true if handles or requests are still active.
    /// A closed loop has nothing to run and returns false at once.
    @discardableResult
    public func run(_ mode: RunMode = .untilIdle) -> Bool {
        guard !isClosed else { return false }
        return uv_run(raw, mode.uv) != 0
    }

    /// Makes `run` return after the current iteration.
    public func stop() {
        guard !isClosed else { return }
        uv_stop(raw)
    }

    /// The loop's cached time in milliseconds (updated at the start of each iteration).
    public var nowMilliseconds: UInt64 { isClosed ? closedAt : uv_now(raw) }
    private var closedAt: UInt64 = 0

    /// Refreshes the loop's cached time.
    public func updateTime() {
        guard !isClosed else { return }
        uv_update_time(raw)
    }

    /// A monotonic clock in nanoseconds (libuv's `uv_hrtime`); the host's injected clock reads it.
    public static func hrtime() -> UInt64 { uv_hrtime() }

    /// True while any referenced handle or request keeps the loop alive.
    public var isAlive: Bool { !isClosed && uv_loop_alive(raw) != 0 }

    /// How many handles the loop knows of, open or closing. Zero after `close()`: tests assert it.
    public var handleCount: Int {
        // libuv poisons a closed loop's memory; uv_loop_close succeeding means no handle was left.
        guard !isClosed else { return 0 }
        var count = 0
        withUnsafeMutablePointer(to: &count) { ptr in
            uv_walk(raw, { _, arg in
                arg!.assumingMemoryBound(to: Int.self).pointee += 1
            }, ptr)
        }
        return count
    }

    /// How many handles are active (timers armed, streams reading, …). Used to prove the idle
    /// daemon arms nothing.
    public var activeHandleCount: Int {
        guard !isClosed else { return 0 }
        var count = 0
        withUnsafeMutablePointer(to: &count) { ptr in
            uv_walk(raw, { handle, arg in
                if uv_is_active(handle) != 0 && uv_has_ref(handle) != 0 {
                    arg!.assumingMemoryBound(to: Int.self).pointee += 1
                }
            }, ptr)
        }
        return count
    }

    /// Closes every handle still open, runs the loop until their close callbacks ran, and closes
    /// the loop. After it returns no handle of this loop is left and its memory is released.
    /// Handles opened by close callbacks meanwhile are closed too.
    public func close() throws(LoopError) {
        guard !isClosed else { return }
        while true {
            uv_walk(raw, { handle, _ in
                guard let handle, uv_is_closing(handle) == 0 else { return }
                if let data = handle.pointee.data {
                    Unmanaged<LoopHandle>.fromOpaque(data).takeUnretainedValue().close()
                } else {
                    uv_close(handle, nil)
                }
            }, nil)
            // With handles closing, libuv polls without blocking; a close callback may open (and
            // arm) a new handle, which the next pass closes before it could block the loop.
            let alive = uv_run(raw, UV_RUN_ONCE) != 0
            if !alive && handleCount == 0 { break }
        }
        closedAt = uv_now(raw)
        try LoopError.check(uv_loop_close(raw), "uv_loop_close")
        isClosed = true
    }
}
