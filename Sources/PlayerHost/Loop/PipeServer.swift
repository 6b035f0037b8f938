import CUV

/// A listening Unix-domain socket.
public final class PipeServer: LoopHandle {
    private var onConnection: ((LoopError?) -> Void)?
    private var raw: UnsafeMutablePointer<uv_pipe_t> {
        UnsafeMutablePointer<uv_pipe_t>(OpaquePointer(handle))
    }
    private var stream: UnsafeMutablePointer<uv_stream_t> {
        UnsafeMutablePointer<uv_stream_t>(OpaquePointer(handle))
    }

    public init(loop: EventLoop) throws(LoopError) {
        let p = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
        super.init(loop: loop, pointer: p)
        let status = uv_pipe_init(loop.raw, p, 0)
        if status < 0 {
            failedInit()
            throw LoopError(code: status, operation: "uv_pipe_init")
        }
        didInit()
    }

    /// Binds to `path`, which must not exist. The socket file's mode follows the process umask at
    /// this moment; set it before calling so the file is never briefly more open than intended.
    public func bind(path: String) throws(LoopError) {
        try UnixSocketPath.validate(path)
        try checkOpen("bind \(path)")
        try LoopError.check(uv_pipe_bind(raw, path), "bind \(path)")
    }

    /// Starts listening; `onConnection` runs for each pending connection, to be `accept`ed.
    public func listen(backlog: Int32 = 128, _ onConnection: @escaping (LoopError?) -> Void) throws(LoopError) {
        try checkOpen("listen")
        self.onConnection = onConnection
        let status = uv_listen(stream, backlog) { s, status in
            let me = LoopHandle.object(s, as: PipeServer.self)
            me.onConnection?(status < 0 ? LoopError(code: status, operation: "listen") : nil)
        }
        try LoopError.check(status, "listen")
    }

    /// Accepts one pending connection.
    public func accept() throws(LoopError) -> PipeStream {
        try checkOpen("accept")
        let client = try PipeStream(loop: loop)
        let status = uv_accept(stream, client.stream)
        if status < 0 {
            client.close()
            throw LoopError(code: status, operation: "accept")
        }
        return client
    }

    override func didClose() { onConnection = nil }
}
