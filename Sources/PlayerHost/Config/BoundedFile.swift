import Glibc

/// Reads a whole file the user or a peer may have put anything at: a FIFO, a device, a symbolic
/// link, a 1 GiB sparse file. Opened non-blocking (a FIFO never blocks the open or the read),
/// checked with `fstat` on the opened descriptor (so what is checked is what is read), regular
/// files only, and never more than `maxBytes` read. Blocking file I/O: call it off the loop
/// thread (`WorkerJob`), or before the loop serves anyone.
public enum BoundedFile {
    /// Whether a symbolic link at the path is followed.
    public enum Links: Sendable {
        /// Followed, if the final target is a regular file (a config a dotfile manager links).
        case follow
        /// Refused (`O_NOFOLLOW`): the state file, which only the daemon writes.
        case refuse
    }

    /// The file's bytes, or why not.
    public static func read(_ path: String, maxBytes: Int, links: Links) -> Result<[UInt8], BoundedFileError> {
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (links == .refuse ? O_NOFOLLOW : 0)
        let fd = open(path, flags)
        guard fd >= 0 else {
            let e = errno
            // O_NOFOLLOW on a symbolic link: ELOOP.
            if e == ELOOP, links == .refuse { return .failure(.notRegular(path, kind: "a symbolic link")) }
            return .failure(.cannotOpen(path, errno: e))
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(.cannotRead(path, errno: errno)) }
        guard st.st_mode & S_IFMT == S_IFREG else { return .failure(.notRegular(path, kind: kind(st.st_mode))) }
        // The size says: a 1 GiB sparse file is refused before one byte is read.
        guard Int(st.st_size) <= maxBytes else { return .failure(.tooLarge(path, bytes: Int(st.st_size), limit: maxBytes)) }
        var out: [UInt8] = []
        out.reserveCapacity(Int(st.st_size))
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            // Read one byte past the limit at most: a file growing while read is caught too.
            // (out.count <= maxBytes here, so the sum cannot overflow, even for Int.max.)
            let left = maxBytes - out.count
            let want = left < chunk.count ? left + 1 : chunk.count
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, want) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.cannotRead(path, errno: errno))
            }
            if n == 0 { break }
            out += chunk[0..<n]
            if out.count > maxBytes { return .failure(.tooLarge(path, bytes: out.count, limit: maxBytes)) }
        }
        return .success(out)
    }

    /// What a non-regular file is, for the error.
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        default: return "not a regular file"
        }
    }
}

/// Why `BoundedFile.read` read nothing.
public enum BoundedFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `open` failed (`ENOENT`: there is none).
    case cannotOpen(String, errno: Int32)
    case cannotRead(String, errno: Int32)
    /// A FIFO, a device, a directory, a socket, or a symbolic link not followed.
    case notRegular(String, kind: String)
    /// Larger than the limit (`bytes`: its size, or what was read when it grew past it).
    case tooLarge(String, bytes: Int, limit: Int)

    /// The errno of a failed open or read (nil for the other cases).
    public var errno: Int32? {
        switch self {
        case .cannotOpen(_, let e), .cannotRead(_, let e): return e
        case .notRegular, .tooLarge: return nil
        }
    }

    /// Why, without the path.
    public var reason: String {
        switch self {
        case .cannotOpen(_, let e), .cannotRead(_, let e): return String(cString: strerror(e))
        case .notRegular(_, let kind): return "it is \(kind), not a regular file"
        case .tooLarge(_, let bytes, let limit):
            return "it is \(Self.mebibytes(bytes)), over the limit of \(Self.mebibytes(limit))"
        }
    }

    public var description: String {
        switch self {
        case .cannotOpen(let p, _), .cannotRead(let p, _): return "cannot read \(p): \(reason)"
        case .notRegular(let p, _), .tooLarge(let p, _, _): return "refusing \(p): \(reason)"
        }
    }

    /// `64 MiB`, `1.5 MiB`, `512 bytes`.
    public static func mebibytes(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB"
            : bytes >= 1 << 20 ? "\((Double(bytes) / 1_048_576 * 10).rounded() / 10) MiB" : "\(bytes) bytes"
    }
}
