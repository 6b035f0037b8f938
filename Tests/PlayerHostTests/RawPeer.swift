import Glibc
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostRPC

/// A client socket the tests misuse on purpose: half-closed, never read, written without
/// blocking. `call` (blocking, with a deadline) sets things up before the misbehaviour starts.
final class RawPeer {
    private(set) var fd: Int32
    private var inbox: [UInt8] = []
    private var nextID: Int64 = 1

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(path: String) throws {
        switch UnixSocketConnector.connect(path: path) {
        case .success(let fd): self.fd = fd
        case .failure(let e): throw Failure(description: "connect \(path): \(e)")
        }
    }

    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }

    /// The host stops being able to write to us: its next write fails (EPIPE).
    func shutdownRead() { _ = Glibc.shutdown(fd, Int32(SHUT_RD)) }

    /// Sends what the socket takes without blocking: the count sent (0 when full), nil once the
    /// daemon hung up.
    func sendSome(_ bytes: [UInt8]) -> Int? {
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        if n >= 0 { return n }
        if errno == EAGAIN || errno == EINTR { return 0 }
        return nil
    }

    /// Sends all of `bytes`, blocking.
    func sendAll(_ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "send: \(String(cString: strerror(errno)))")
            }
            off += n
        }
    }

    /// Calls `method` and returns the whole reply object (result or error).
    @discardableResult
    func call(_ method: String, _ params: JSON = [:], timeout: Double = 10) throws -> JSON {
        let id = nextID
        nextID += 1
        var line: [UInt8] = []
        RPCEncoder.request(method: method, params: params, id: id, into: &line)
        try sendAll(line)
        while true {
            let message = try readMessage(timeout: timeout)
            if message["id"] == .int(id), message["method"] == nil { return message }
        }
    }

    /// Reads one message within `timeout` seconds.
    func readMessage(timeout: Double = 10) throws -> JSON {
        let deadline = ControlClient.now() + timeout
        while true {
            if let nl = inbox.firstIndex(of: 0x0A) {
                let line = Array(inbox[..<nl])
                inbox.removeFirst(nl + 1)
                return try line.withUnsafeBytes { b in
                    do { return try JSONParser.parse(b, maxDepth: 512) } catch {
                        throw Failure(description: "bad reply: \(error)")
                    }
                }
            }
            let remaining = deadline - ControlClient.now()
            if remaining <= 0 { throw Failure(description: "timed out") }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, Int32(remaining * 1000) + 1)
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 65536, Int32(MSG_DONTWAIT)) }
            if n == 0 { throw Failure(description: "closed") }
            if n < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                throw Failure(description: "closed: \(String(cString: strerror(errno)))")
            }
            inbox.append(contentsOf: chunk[0..<n])
        }
    }

    /// True once the daemon hung up: reads (and drops) whatever is buffered, without blocking.
    func isHungUp() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 65536, Int32(MSG_DONTWAIT)) }
            if n == 0 { return true }
            if n < 0 { return errno != EAGAIN && errno != EINTR }
        }
    }
}

/// One request line.
func requestLine(_ method: String, _ params: JSON = [:], id: Int64) -> [UInt8] {
    var out: [UInt8] = []
    RPCEncoder.request(method: method, params: params, id: id, into: &out)
    return out
}
