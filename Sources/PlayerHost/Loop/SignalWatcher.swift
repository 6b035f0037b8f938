import CUV

/// Delivers a Unix signal on the loop thread (libuv's self-pipe), so handlers may do real work.
public final class SignalWatcher: LoopHandle {
    private var callback: ((Int32) -> Void)?
    private var raw: UnsafeMutablePointer<uv_signal_t> {
        UnsafeMutablePointer<uv_signal_t>(OpaquePointer(handle))
    }

    public init(loop: EventLoop) throws(LoopError) {
        let p = UnsafeMutablePointer<uv_signal_t>.allocate(capacity: 1)
        super.init(loop: loop, pointer: p)
        let status = uv_signal_init(loop.raw, p)
        if status < 0 {
            failedInit()
            throw LoopError(code: status, operation: "uv_signal_init")
        }
        didInit()
    }

    /// Watches `signal`; the callback receives the signal number.
    public func start(signal: Int32, _ callback: @escaping (Int32) -> Void) throws(LoopError) {
        try checkOpen("uv_signal_start")
        self.callback = callback
        let status = uv_signal_start(raw, { s, signum in
            LoopHandle.object(s, as: SignalWatcher.self).callback?(signum)
        }, signal)
        try LoopError.check(status, "uv_signal_start(\(signal))")
    }

    public func stop() {
        guard !isClosing else { return }
        uv_signal_stop(raw)
    }

    override func didClose() { callback = nil }
}
