import CUV

/// libuv's async handle: the one way another thread may wake the loop. `send()` is thread-safe;
/// several sends before the loop runs coalesce into one callback.
public final class AsyncWakeup: LoopHandle, @unchecked Sendable {
    private var callback: (() -> Void)?
    private var raw: UnsafeMutablePointer<uv_async_t> {
        UnsafeMutablePointer<uv_async_t>(OpaquePointer(handle))
    }

    public init(loop: EventLoop, _ callback: @escaping () -> Void) throws(LoopError) {
        let p = UnsafeMutablePointer<uv_async_t>.allocate(capacity: 1)
        self.callback = callback
        super.init(loop: loop, pointer: p)
        let status = uv_async_init(loop.raw, p) { a in
            LoopHandle.object(a, as: AsyncWakeup.self).callback?()
        }
        if status < 0 {
            failedInit()
            throw LoopError(code: status, operation: "uv_async_init")
        }
        didInit()
    }

    /// Wakes the loop; the callback runs on the loop thread. Safe from any thread, until `close`.
    public func send() { uv_async_send(raw) }

    override func didClose() { callback = nil }
}
