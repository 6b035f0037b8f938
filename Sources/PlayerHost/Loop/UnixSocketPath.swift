import CUV

/// Unix socket path rules. `sockaddr_un.sun_path` holds 108 bytes with the terminating NUL, and
/// libuv 1.44 silently truncates longer paths, binding somewhere else; we refuse them instead.
public enum UnixSocketPath {
    /// The longest path, in bytes, that fits.
    public static let maxLength = 107

    public static func validate(_ path: String) throws(LoopError) {
        if path.isEmpty || path.utf8.count > maxLength {
            throw LoopError(code: Int32(UV_ENAMETOOLONG.rawValue),
                            operation: "socket path \(path.utf8.count) bytes long (limit \(maxLength)): \(path)")
        }
    }
}
