import Glibc

/// A blocking connect to a Unix stream socket, shared by every synchronous client
/// (ControlClient, ph-bench). Returns the descriptor, or an errno.
public enum UnixSocketConnector {
    /// The longest path, in bytes, that fits `sockaddr_un.sun_path` with its NUL — the same bound
    /// as the loop's `maxPathLength`, kept here so clients need no libuv.
    public static let maxPathLength = 107

    public static func connect(path: String) -> Result<Int32, Errno> {
        guard path.utf8.count <= maxPathLength else { return .failure(Errno(ENAMETOOLONG)) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(Errno(errno)) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { dst in
            for (i, b) in path.utf8.enumerated() { dst[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if rc != 0 {
            let code = errno
            close(fd)
            return .failure(Errno(code))
        }
        return .success(fd)
    }

    /// An errno value with its message.
    public struct Errno: Error, Equatable, CustomStringConvertible {
        public let code: Int32
        public init(_ code: Int32) { self.code = code }
        public var description: String { String(cString: strerror(code)) }
    }
}
