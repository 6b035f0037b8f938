import CUV

/// Work to run on the loop's next turn (libuv's idle handle, active only while work is queued, so
/// an idle daemon still arms nothing).
///
/// This is how an I/O failure reaches its owner *after* the call that caused it returned: a write
/// that fails inside `NowPlayingService.drive` or `ProvidedMethods.forward` must not close the
/// connection (and fail its pending requests, closing their timers) under the caller's feet.
/// swift-nio keeps the same rule. Work queued while the queue runs waits for the turn after.
public final class NextTurn: LoopHandle {
    private var queue: [() -> Void] = []
    private var raw: UnsafeMutablePointer<uv_idle_t> {
        UnsafeMutablePointer<uv_idle_t>(OpaquePointer(handle))
    }

    init(loop: EventLoop) throws(LoopError) {
        let p = UnsafeMutablePointer<uv_idle_t>.allocate(capacity: 1)
        super.init(loop: loop, pointer: p)
        let status = uv_idle_init(loop.raw, p)
        if status < 0 {
            failedInit()
            throw LoopError(code: status, operation: "uv_idle_init")
        }
        didInit()
    }

    /// Work waiting for the next turn.
    public var pendingCount: Int { queue.count }

    func enqueue(_ work: @escaping () -> Void) {
        guard !isClosing else { return }
        queue.append(work)
        if queue.count == 1 {
            uv_idle_start(raw) { h in
                LoopHandle.object(h, as: NextTurn.self).runQueued()
            }
        }
    }

    private func runQueued() {
        let batch = queue
        queue.removeAll(keepingCapacity: true)
        uv_idle_stop(raw)
        for work in batch { work() }
    }

    override func didClose() { queue.removeAll() }
}

extension EventLoop {
    /// Runs `work` on the loop's next turn, after the current callback returned. Dropped if the
    /// loop closes first.
    public func onNextTurn(_ work: @escaping () -> Void) {
        guard !isClosed else { return }
        if nextTurn == nil || nextTurn!.isClosing {
            nextTurn = try? NextTurn(loop: self)
        }
        nextTurn?.enqueue(work)
    }
}
