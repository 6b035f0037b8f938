import CUV

/// Watches a foreign file descriptor for readiness (for libraries with their own sockets, such as
/// D-Bus). The descriptor stays owned by the caller.
public final class FDPoll: LoopHandle {
    /// Readiness conditions.
    public struct Events: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let readable = Events(rawValue: Int32(UV_READABLE.rawValue))
        public static let writable = Events(rawValue: Int32(UV_WRITABLE.rawValue))
        public static let disconnect = Events(rawValue: Int32(UV_DISCONNECT.rawValue))
    }

    private var callback: ((Result<Events, LoopError>) -> Void)?
    private var raw: UnsafeMutablePointer<uv_poll_t> {
        UnsafeMutablePointer<uv_poll_t>(OpaquePointer(handle))
    }
    public let fileDescriptor: Int32

    public init(loop: EventLoop, fileDescriptor fd: Int32) throws(LoopError) {
        let p = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
        fileDescriptor = fd
        super.init(loop: loop, pointer: p)
        let status = uv_poll_init(loop.raw, p, fd)
        if status < 0 {
            failedInit()
            throw LoopError(code: status, operation: "uv_poll_init(fd \(fd))")
        }
        didInit()
    }

    /// Starts (or changes) watching for `events`.
    public func start(_ events: Events, _ callback: @escaping (Result<Events, LoopError>) -> Void) throws(LoopError) {
        try checkOpen("uv_poll_start")
        self.callback = callback
        let status = uv_poll_start(raw, events.rawValue) { p, status, events in
            let me = LoopHandle.object(p, as: FDPoll.self)
            if status < 0 {
                me.callback?(.failure(LoopError(code: status, operation: "poll fd \(me.fileDescriptor)")))
            } else {
                me.callback?(.success(Events(rawValue: events)))
            }
        }
        try LoopError.check(status, "uv_poll_start")
    }

    public func stop() {
        guard !isClosing else { return }
        uv_poll_stop(raw)
    }

    override func didClose() { callback = nil }
}
