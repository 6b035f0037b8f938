import Glibc

/// sd_notify(3) without libsystemd: one datagram to `$NOTIFY_SOCKET` (a path, or `@name` for the
/// abstract namespace). Failures are ignored, as sd_notify's callers do.
public enum SystemdNotifier {
    @discardableResult
    public static func notify(_ state: String, socket path: String?) -> Bool {
        guard let path, !path.isEmpty, path.utf8.count < 108 else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &addr.sun_path) { dst in
            for (i, b) in bytes.enumerated() { dst[i] = b }
        }
        let len = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let sent = state.withCString { msg in
            withUnsafePointer(to: &addr) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                    sendto(fd, msg, strlen(msg), Int32(MSG_NOSIGNAL), sa, len)
                }
            }
        }
        return sent >= 0
    }
}
