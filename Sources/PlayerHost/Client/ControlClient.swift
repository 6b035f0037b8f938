import Glibc
import PlayerHostBase
import PlayerHostRPC

/// A blocking JSON-RPC client over the control socket, for npctl, scripts written in Swift,
/// tests and the benchmark. Every wait has a deadline. Notifications that arrive while waiting
/// for a reply are kept in `notifications`; requests from the host go to `requestHandler`.
public final class ControlClient: RPCClientEndpoint {
    public let path: String
    private var fd: Int32
    private var inbox: [UInt8] = []
    private var inboxStart = 0
    /// Where the search for the next newline resumes: bytes before it hold none, so a large reply
    /// arriving in many reads is scanned once, not once per read.
    private var scanned = 0
    private var nextID: Int64 = 1
    /// Seconds to wait for any one reply.
    public var timeout: Double
    /// Notifications received so far (oldest first).
    public var notifications: [JSON] = []
    /// Answers requests the host sends (e.g. `command.handle`); unset → method not found.
    public var requestHandler: ((String, JSON) -> Result<JSON, RPCError>)?

    /// Connects to `path`.
    public init(path: String, timeout: Double = 10) throws(ClientError) {
        self.path = path
        self.timeout = timeout
        guard path.utf8.count <= UnixSocketConnector.maxPathLength else {
            throw .io("socket path too long (\(path.utf8.count) bytes, limit \(UnixSocketConnector.maxPathLength)): \(path)")
        }
        switch UnixSocketConnector.connect(path: path) {
        case .success(let fd):
            self.fd = fd
        case .failure(let e):
            if e.code == ENOENT || e.code == ECONNREFUSED { throw .noDaemon(path: path) }
            throw .io("connect \(path): \(e)")
        }
    }

    deinit { close() }

    /// The socket, for a caller that waits on it together with other descriptors (`poll`).
    /// Check `hasBufferedInput` first: a message may already be read into memory.
    public var fileDescriptor: Int32 { fd }

    /// True when a complete message or notification waits in memory, so `poll` on the
    /// socket would not report it.
    public var hasBufferedInput: Bool {
        !notifications.isEmpty || inbox[inboxStart...].contains(0x0A)
    }

    public func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }

    /// Calls `method` with params by name (an object) or by position (an array).
    @discardableResult
    public func call(_ method: String, params: JSON) throws(ClientError) -> JSON {
        let id = nextID
        nextID += 1
        var line: [UInt8] = []
        RPCEncoder.request(method: method, params: params, id: id, into: &line)
        return try exchange(line, id: id)
    }

    /// Writes raw bytes (tests use this for hostile input).
    public func send(_ bytes: [UInt8]) throws(ClientError) {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, bytes.count - off, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE || errno == ECONNRESET { throw .closed }
                throw .io("write: \(String(cString: strerror(errno)))")
            }
            off += n
        }
    }

    /// Reads one line (without its newline) within the timeout.
    public func readLine() throws(ClientError) -> [UInt8] {
        let deadline = Self.now() + timeout
        while true {
            if let nl = inbox[max(inboxStart, scanned)...].firstIndex(of: 0x0A) {
                let line = Array(inbox[inboxStart..<nl])
                inboxStart = nl + 1
                if inboxStart > 65536 || inboxStart == inbox.count {
                    inbox.removeFirst(inboxStart)
                    inboxStart = 0
                }
                scanned = inboxStart
                return line
            }
            scanned = inbox.count
            // A deadline already past still looks once (timeout 0 means "what has arrived").
            let remaining = deadline - Self.now()
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let pr = poll(&pfd, 1, remaining <= 0 ? 0 : Int32(min(remaining * 1000 + 1, 2_000_000_000)))
            if pr < 0 {
                if errno == EINTR { continue }
                throw .io("poll: \(String(cString: strerror(errno)))")
            }
            if pr == 0 {
                if Self.now() >= deadline { throw .timeout(seconds: timeout) }
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 65536, 0) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                if errno == ECONNRESET { throw .closed }
                throw .io("read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { throw .closed }
            inbox.append(contentsOf: chunk[0..<n])
        }
    }

    /// Reads and parses one message.
    public func readMessage() throws(ClientError) -> JSON {
        let line = try readLine()
        let parsed = line.withUnsafeBytes { b in
            Result { () throws(JSONParseError) in try JSONParser.parse(b, maxDepth: 512) }
        }
        switch parsed {
        case .success(let value): return value
        case .failure(let error): throw .protocolViolation(error.message)
        }
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
