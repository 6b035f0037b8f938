import CUV
import Glibc

/// libuv's async handle: the one way another thread may wake the loop. `send()` is thread-safe;
/// several sends before the loop runs coalesce into one callback.
public final class AsyncWakeup: LoopHandle, @unchecked Sendable {
    private var callback: (() -> Void)?
    private var raw: UnsafeMutablePointer<uv_async_t> {
        UnsafeMutablePointer<uv_async_t>(OpaquePointer(handle))
    }
    /// Guards `sendable`: another thread cannot know when the loop thread closes the handle, and
    /// `uv_async_send` on a freed handle would write to freed memory.
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private var sendable = false

    public init(loop: EventLoop, _ callback: @escaping () -> Void) throws(LoopError) {
        let p = UnsafeMutablePointer<uv_async_t>.allocate(capacity: 1)
        self.callback = callback
        lock = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        super.init(loop: loop, pointer: p)
        let status = uv_async_init(loop.raw, p) { a in
            LoopHandle.object(a, as: AsyncWakeup.self).callback?()
        }
        if status < 0 {
            failedInit()
            throw LoopError(code: status, operation: "uv_async_init")
        }
        sendable = true
        didInit()
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Wakes the loop; the callback runs on the loop thread. Safe from any thread, at any time: once
    /// `close` was called it does nothing.
    public func send() {
        pthread_mutex_lock(lock)
        if sendable { uv_async_send(raw) }
        pthread_mutex_unlock(lock)
    }

    override func willClose() {
        pthread_mutex_lock(lock)
        sendable = false
        pthread_mutex_unlock(lock)
    }

    override func didClose() { callback = nil }
}
