import Glibc

/// The helper's file access: every input is opened without waiting on a FIFO or device
/// (O_NONBLOCK), must be a regular file (checked with fstat on the opened descriptor, so the file
/// checked is the file read), and is size-capped before a byte is read.
///
/// Links: files the user names (a media file, a cover image) are followed to their target, as
/// music libraries are often symlinked — what matters is that the target is a regular file. The
/// daemon's own cache files are never followed (`followLinks: false`): a link there is not its own.
enum Files {
    struct Refused: Error { var message: String }

    /// Opens `path` for reading as a regular file; the descriptor is the caller's to close.
    static func openRegular(_ path: String, followLinks: Bool) throws(Refused) -> (fd: Int32, size: Int) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (followLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            let why = errno == ELOOP ? "a symbolic link" : String(cString: strerror(errno))
            throw Refused(message: "cannot open \(path): \(why)")
        }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size >= 0 else {
            close(fd)
            throw Refused(message: "\(path) is not a regular file\(followLinks ? " (nor a link to one)" : "")")
        }
        return (fd, Int(clamping: st.st_size))
    }

    /// The whole regular file at `path` (a link followed only with `followLinks`), refused when
    /// larger than `limit` bytes.
    static func read(_ path: String, limit: Int, followLinks: Bool) throws(Refused) -> [UInt8] {
        let (fd, size) = try openRegular(path, followLinks: followLinks)
        defer { close(fd) }
        guard size <= limit else { throw Refused(message: "\(path) is larger than the \(limit)-byte limit") }
        var out: [UInt8] = []
        out.reserveCapacity(size)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Refused(message: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { return out }
            // The file may grow while it is read: the cap holds on what is read, not on stat.
            guard out.count + n <= limit else { throw Refused(message: "\(path) is larger than the \(limit)-byte limit") }
            out.append(contentsOf: chunk[0..<n])
        }
    }

    /// Writes `bytes` to a new file at `path` (0600, a symlink there is not followed).
    static func write(_ path: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, base + offset, bytes.count - offset)
            if n < 0 { if errno == EINTR { continue }; return false }
            offset += n
        }
        return true
    }
}
