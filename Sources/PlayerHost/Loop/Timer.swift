import CUV

/// A libuv timer. One-shot unless `repeat` is given; nothing fires while it is stopped.
public final class Timer: LoopHandle {
    private var callback: (() -> Void)?
    private var raw: UnsafeMutablePointer<uv_timer_t> {
        UnsafeMutablePointer<uv_timer_t>(OpaquePointer(handle))
    }

    public init(loop: EventLoop) throws(LoopError) {
        let p = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
        super.init(loop: loop, pointer: p)
        let status = uv_timer_init(loop.raw, p)
        if status < 0 {
            failedInit()
            throw LoopError(code: status, operation: "uv_timer_init")
        }
        didInit()
    }

    /// Arms the timer to fire `after` milliseconds from the loop's now, then every `repeat` ms
    /// if non-zero. Re-arming replaces the previous schedule and callback. On a closing timer it
    /// does nothing: whoever closed it (a request settled early, say) already decided it is done.
    public func start(after milliseconds: UInt64, repeat: UInt64 = 0, _ callback: @escaping () -> Void) {
        guard !isClosing else { return }
        self.callback = callback
        uv_timer_start(raw, { t in
            let me = LoopHandle.object(t, as: Timer.self)
            me.callback?()
        }, milliseconds, `repeat`)
    }

    /// Disarms the timer; it keeps its callback for a later `start`.
    public func stop() {
        guard !isClosing else { return }
        uv_timer_stop(raw)
    }

    /// Milliseconds until the timer fires, 0 if due or stopped.
    public var dueIn: UInt64 {
        // libuv 1.44 reports a stopped timer's stale deadline, so check activity first.
        guard !isClosing, uv_is_active(handle) != 0 else { return 0 }
        return uv_timer_get_due_in(raw)
    }

    override func didClose() { callback = nil }
}
