import CUV
import Glibc

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
    ///
    /// The socket is made and bound here and handed to libuv with `uv_pipe_open`, not with
    /// `uv_pipe_bind`: libuv remembers a name it bound and unlinks it when the handle closes,
    /// even if the path meanwhile names another program's socket. Removing the file is the
    /// owner's call (`ControlServer.stopAccepting` checks the inode first).
    public func bind(path: String) throws(LoopError) {
        try UnixSocketPath.validate(path)
        try checkOpen("bind \(path)")
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw LoopError(code: -errno, operation: "socket") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { dst in
            for (i, b) in path.utf8.enumerated() { dst[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if rc != 0 {
            let code = errno
            Glibc.close(fd)
            throw LoopError(code: -code, operation: "bind \(path)")
        }
        let status = uv_pipe_open(raw, fd)
        if status < 0 {
            Glibc.close(fd)
            unlink(path)  // bound a moment ago, by us
            throw LoopError(code: status, operation: "uv_pipe_open(bind \(path))")
        }
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
