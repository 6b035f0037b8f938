import CUV
import Glibc

/// A byte stream over a Unix-domain socket or a pipe (libuv's `uv_pipe_t`): a connection the
/// server accepted, a client connection, or a child's stdio.
///
/// Writes try the socket directly first and only copy and queue what the kernel did not take, so
/// a reply that fits costs one syscall and no allocation. On a socket that first try is `send(2)`
/// (`MSG_DONTWAIT | MSG_NOSIGNAL`), which skips `write(2)`'s file layer — an event fanned out to
/// a thousand subscribers is a thousand of them; on a pipe it is `uv_try_write`. Either is made
/// only while libuv holds nothing queued, so bytes keep their order. `pendingWriteBytes` bounds
/// what a slow reader can make us hold.
public final class PipeStream: LoopHandle {
    private var onRead: ((UnsafeRawBufferPointer) -> Void)?
    private var onEnd: ((LoopError?) -> Void)?
    // `@exclusivity(unchecked)` below: touched per subscriber of every event; why it is safe in
    // `RPCConnection`'s comment.
    @exclusivity(unchecked) private var onConnect: ((LoopError?) -> Void)?
    private var onWriteError: ((LoopError) -> Void)?
    /// Bytes handed to libuv but not yet written to the socket.
    public var pendingWriteBytes: Int { queuedWriteBytes }
    /// `pendingWriteBytes`' storage. (Read through the property from other modules: the
    /// unchecked exclusivity of a stored property holds only where it is declared.)
    @exclusivity(unchecked) private var queuedWriteBytes = 0
    /// The same, as libuv counts it now: it drops as a large write goes out piece by piece,
    /// where `pendingWriteBytes` changes only when a whole write completes (a slow reader taking
    /// one big reply is making progress all along).
    public var unwrittenBytes: Int {
        isClosing ? 0 : Int(uv_stream_get_write_queue_size(stream))
    }
    /// The first write failure. Set at once; the owner hears of it on the loop's next turn.
    @exclusivity(unchecked) public private(set) var writeFailure: LoopError?
    private var onDrain: (() -> Void)?
    private var drainBelow = 0
    private var shutdownCallback: ((LoopError?) -> Void)?
    /// The descriptor `send(2)` writes to: found on the first write, once the stream is open and
    /// not connecting; -1 for a pipe (`ENOTSOCK`: `uv_try_write` from then on).
    @exclusivity(unchecked) private var socketFD: Int32 = -1
    @exclusivity(unchecked) private var probedSocket = false

    var raw: UnsafeMutablePointer<uv_pipe_t> {
        UnsafeMutablePointer<uv_pipe_t>(OpaquePointer(handle))
    }
    var stream: UnsafeMutablePointer<uv_stream_t> {
        UnsafeMutablePointer<uv_stream_t>(OpaquePointer(handle))
    }

    /// A new, unconnected pipe handle.
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

    /// Connects to the Unix socket at `path`; `completion` gets nil on success.
    public func connect(path: String, _ completion: @escaping (LoopError?) -> Void) throws(LoopError) {
        try UnixSocketPath.validate(path)
        try checkOpen("connect \(path)")
        onConnect = completion
        let req = UnsafeMutablePointer<uv_connect_t>.allocate(capacity: 1)
        uv_pipe_connect(req, raw, path) { req, status in
            let stream = req!.pointee.handle!
            req!.deallocate()
            let me = LoopHandle.object(stream, as: PipeStream.self)
            let cb = me.onConnect
            me.onConnect = nil
            cb?(status < 0 ? LoopError(code: status, operation: "connect") : nil)
        }
    }

    /// Wraps an already-open descriptor (e.g. a socket made elsewhere).
    public func open(fileDescriptor fd: Int32) throws(LoopError) {
        try checkOpen("uv_pipe_open(fd \(fd))")
        try LoopError.check(uv_pipe_open(raw, fd), "uv_pipe_open(fd \(fd))")
    }

    /// The underlying descriptor, or -1.
    public var fileDescriptor: Int32 {
        var fd: uv_os_fd_t = -1
        guard !isClosing, uv_fileno(handle, &fd) == 0 else { return -1 }
        return fd
    }

    /// The peer's uid and pid (SO_PEERCRED) of a connected Unix socket.
    public func peerCredentials() -> (uid: UInt32, pid: Int32)? {
        var uid: uid_t = 0
        var pid: pid_t = 0
        guard ph_peer_uid(fileDescriptor, &uid, &pid) == 0 else { return nil }
        return (uid, pid)
    }

    /// Starts delivering bytes. The buffer is valid only during the callback. `onEnd` runs once,
    /// with nil at end-of-stream or the error; reading stops then.
    public func startReading(
        onRead: @escaping (UnsafeRawBufferPointer) -> Void,
        onEnd: @escaping (LoopError?) -> Void
    ) throws(LoopError) {
        try checkOpen("uv_read_start")
        self.onRead = onRead
        self.onEnd = onEnd
        try readStart()
    }

    /// Starts delivering bytes again after `stopReading`, to the callbacks `startReading` gave.
    /// Does nothing once the stream ended or closed.
    public func resumeReading() {
        guard !isClosing, onRead != nil, !isReading else { return }
        try? readStart()
    }

    /// Whether bytes are being delivered (between `startReading`/`resumeReading` and
    /// `stopReading` or the end of the stream).
    public private(set) var isReading = false

    private func readStart() throws(LoopError) {
        let status = uv_read_start(stream, { h, _, buf in
            let loop = EventLoop.from(h!.pointee.loop)
            buf!.pointee.base = loop.readBuffer.baseAddress!.assumingMemoryBound(to: CChar.self)
            buf!.pointee.len = loop.readBuffer.count
        }, { s, nread, _ in
            let me = LoopHandle.object(s, as: PipeStream.self)
            if nread > 0 {
                let buffer = UnsafeRawBufferPointer(start: me.loop.readBuffer.baseAddress, count: nread)
                me.onRead?(buffer)
            } else if nread < 0 {
                uv_read_stop(me.stream)
                me.isReading = false
                let end = me.onEnd
                me.onEnd = nil
                me.onRead = nil
                let error = LoopError(code: Int32(nread), operation: "read")
                end?(error.isEOF ? nil : error)
            }
        })
        try LoopError.check(status, "uv_read_start")
        isReading = true
    }

    /// Stops delivering bytes (back-pressure); `startReading` resumes.
    public func stopReading() {
        guard !isClosing else { return }
        uv_read_stop(stream)
        isReading = false
    }

    /// Called once when a write fails (the peer went away), on a later loop turn than the `write`
    /// that failed, so a caller never finds its state torn down under it. The stream should then
    /// be closed; later writes are dropped.
    public func onWriteFailure(_ callback: @escaping (LoopError) -> Void) {
        onWriteError = callback
    }

    /// Called each time a completed write brings `pendingWriteBytes` to `threshold` or below
    /// (resume reading once a slow reader caught up).
    public func onWritesDrained(below threshold: Int, _ callback: (() -> Void)?) {
        drainBelow = threshold
        onDrain = callback
    }

    /// Records the first failure and reports it on the next turn.
    private func failWrite(_ error: LoopError) {
        guard writeFailure == nil else { return }
        writeFailure = error
        loop.onNextTurn { [self] in
            guard !isClosing else { return }
            let cb = onWriteError
            onWriteError = nil
            cb?(error)
        }
    }

    /// Writes all of `bytes`, in order after earlier writes. Returns at once; what the socket did
    /// not take is copied and queued. After a failure, writes are dropped.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosing, writeFailure == nil, bytes.count > 0 else { return }
        var offset = 0
        if pendingWriteBytes == 0 {
            let n = writeNow(bytes)
            if n == bytes.count { return }
            if n > 0 {
                offset = n
            } else if n != Int(UV_EAGAIN.rawValue) {
                failWrite(LoopError(code: Int32(n), operation: "write"))
                return
            }
        }
        queueWrite(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
    }

    /// Writes what the kernel takes now, nothing queued: the bytes written, or a negative libuv
    /// error code (`UV_EAGAIN`: none taken).
    @inline(__always)
    private func writeNow(_ bytes: UnsafeRawBufferPointer) -> Int {
        if !probedSocket && onConnect == nil {
            socketFD = fileDescriptor
            probedSocket = socketFD >= 0
        }
        if socketFD >= 0 {
            let n = Glibc.send(socketFD, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            if n >= 0 { return n }
            let e = errno
            if e == EAGAIN || e == EWOULDBLOCK || e == EINTR { return Int(UV_EAGAIN.rawValue) }
            guard e == ENOTSOCK else { return -Int(e) }
            socketFD = -1  // a pipe: libuv writes it
        }
        var buf = uv_buf_t(
            base: UnsafeMutablePointer(mutating: bytes.baseAddress!.assumingMemoryBound(to: CChar.self)),
            len: bytes.count)
        return Int(uv_try_write(stream, &buf, 1))
    }

    /// Convenience for arrays.
    public func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    private func queueWrite(_ bytes: UnsafeRawBufferPointer) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        copy.copyMemory(from: bytes)
        let req = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)
        req.pointee.data = copy.baseAddress
        var buf = uv_buf_t(base: copy.baseAddress!.assumingMemoryBound(to: CChar.self), len: copy.count)
        queuedWriteBytes += bytes.count
        let status = uv_write(req, stream, &buf, 1) { req, status in
            let req = req!
            let stream = req.pointee.handle!
            let me = LoopHandle.object(stream, as: PipeStream.self)
            let count = Int(uv_stream_get_write_queue_size(stream))
            me.queuedWriteBytes = count
            req.pointee.data.deallocate()
            req.deallocate()
            if status < 0 && status != Int32(UV_ECANCELED.rawValue) {
                me.failWrite(LoopError(code: status, operation: "write"))
            } else if status == 0, count <= me.drainBelow, let drained = me.onDrain {
                drained()
            }
        }
        if status < 0 {
            queuedWriteBytes -= bytes.count
            copy.deallocate()
            req.deallocate()
            failWrite(LoopError(code: status, operation: "uv_write"))
        }
    }

    /// Half-closes after every queued write is flushed; `completion` runs then.
    public func shutdown(_ completion: @escaping (LoopError?) -> Void) {
        guard !isClosing else { completion(nil); return }
        let req = UnsafeMutablePointer<uv_shutdown_t>.allocate(capacity: 1)
        let status = uv_shutdown(req, stream) { req, status in
            let stream = req!.pointee.handle!
            req!.deallocate()
            let me = LoopHandle.object(stream, as: PipeStream.self)
            let cb = me.shutdownCallback
            me.shutdownCallback = nil
            cb?(status < 0 ? LoopError(code: status, operation: "shutdown") : nil)
        }
        if status < 0 {
            // E.g. ENOTCONN for a second shutdown: the pending one keeps its completion.
            req.deallocate()
            completion(LoopError(code: status, operation: "uv_shutdown"))
            return
        }
        // libuv never completes a shutdown synchronously, so this is set before it can run.
        shutdownCallback = completion
    }

    override func didClose() {
        onRead = nil
        onEnd = nil
        onConnect = nil
        onWriteError = nil
        onDrain = nil
        shutdownCallback = nil
    }
}
