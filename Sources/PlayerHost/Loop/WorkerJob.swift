import CUV
import Synchronization

/// One job on libuv's thread pool (`uv_queue_work`): `work` runs on a worker thread, `done` on
/// the loop's thread once it finished, with what `work` returned (an error message, or nil).
/// Used for blocking file-system work the loop must not wait for (the state file's fsyncs).
///
/// One object per request: it keeps itself alive (a retain in the request's `data`) until the
/// completion callback, which frees the request and releases it. A pending job keeps the loop
/// alive, so `EventLoop.close` runs its completion before the loop ends.
public final class WorkerJob {
    private let work: @Sendable () -> String?
    private var done: ((String?) -> Void)?
    private let request: UnsafeMutablePointer<uv_work_t>
    /// Written by the worker thread, read on the loop thread after libuv's completion handoff
    /// (which orders the two).
    private let outcome = Outcome()

    private final class Outcome: @unchecked Sendable {
        var message: String?
    }

    private init(work: @escaping @Sendable () -> String?, done: @escaping (String?) -> Void) {
        self.work = work
        self.done = done
        request = UnsafeMutablePointer<uv_work_t>.allocate(capacity: 1)
    }

    /// Queues `work` on the thread pool; `done` runs on the loop afterwards (with
    /// "cancelled" if the loop cancelled it). Throws if libuv refused the request, and then
    /// neither runs.
    public static func queue(on loop: EventLoop, work: @escaping @Sendable () -> String?,
                             done: @escaping (String?) -> Void) throws(LoopError) {
        let job = WorkerJob(work: work, done: done)
        job.request.pointee.data = Unmanaged.passRetained(job).toOpaque()
        let status = uv_queue_work(loop.raw, job.request, { req in
            guard let req, let data = req.pointee.data else { return }
            let me = Unmanaged<WorkerJob>.fromOpaque(data).takeUnretainedValue()
            me.outcome.message = me.work()
        }, { req, status in
            guard let req, let data = req.pointee.data else { return }
            let me = Unmanaged<WorkerJob>.fromOpaque(data).takeRetainedValue()
            me.finish(cancelled: status == Int32(UV_ECANCELED.rawValue))
        })
        if status < 0 {
            Unmanaged<WorkerJob>.passUnretained(job).release()
            job.request.deallocate()
            throw LoopError(code: status, operation: "uv_queue_work")
        }
    }

    /// Queues `compute` on the thread pool; `done` runs on the loop afterwards with its value
    /// (nil if the loop cancelled the job). For work that hands back more than a message: a
    /// file read and parsed off the loop (the configuration on reload).
    public static func queue<Value: Sendable>(on loop: EventLoop, compute: @escaping @Sendable () -> Value,
                                              done: @escaping (Value?) -> Void) throws(LoopError) {
        let box = ValueBox<Value>()
        try queue(on: loop, work: {
            box.value.withLock { $0 = compute() }
            return nil
        }, done: { _ in done(box.value.withLock { $0 }) })
    }

    /// The worker's value, handed to the loop thread.
    private final class ValueBox<Value: Sendable>: Sendable {
        let value = Mutex<Value?>(nil)
    }

    private func finish(cancelled: Bool) {
        request.deallocate()
        let done = self.done
        self.done = nil
        done?(cancelled ? "cancelled" : outcome.message)
    }
}
