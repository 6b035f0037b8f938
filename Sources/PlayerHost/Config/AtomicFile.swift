import Glibc

/// Files written whole or not at all: the state file, the web remote's devices. Blocking I/O, on
/// a worker thread. A temporary file beside the final one (any link planted there removed, then
/// created with `O_EXCL | O_NOFOLLOW`, 0600) is written, fsynced and renamed over the final name,
/// then the directory is fsynced; the folder is made (0700, parents too) if missing. Two writers
/// of one file must not run at once (each caller keeps one write in flight).
public enum AtomicFile {
    /// temp file (0600) → write → fsync → rename over `name` → fsync of the directory.
    /// Returns why it failed, or nil.
    public static func write(_ bytes: [UInt8], directory: String, name: String) -> String? {
        write(CollectionOfOne(bytes), directory: directory, name: name)
    }

    /// The same for a file given as byte strings in order (`StateFilePieces.chunks`), joined
    /// here through a 1 MiB buffer: on the writing thread, in a few large `write`s.
    public static func write(_ chunks: some Sequence<[UInt8]>, directory: String, name: String) -> String? {
        if let e = Directories.make(directory) { return ("mkdir \(directory): \(String(cString: strerror(e)))") }
        let final = directory + "/" + name
        let temp = final + ".tmp"
        // Never through a link planted at the temp path: remove whatever is there (unlink takes
        // a link itself, not its target), then create a new file, failing if anything got there
        // meanwhile (O_EXCL does not follow a link either).
        unlink(temp)
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return ("open \(temp): \(String(cString: strerror(errno)))") }
        if let e = writeJoined(fd, chunks) {
            close(fd)
            unlink(temp)
            return ("write \(temp): \(String(cString: strerror(e)))")
        }
        if fsync(fd) != 0 {
            let e = errno
            close(fd)
            unlink(temp)
            return ("fsync \(temp): \(String(cString: strerror(e)))")
        }
        close(fd)
        guard rename(temp, final) == 0 else {
            let e = errno
            unlink(temp)
            return ("rename to \(final): \(String(cString: strerror(e)))")
        }
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            fsync(dfd)
            close(dfd)
        }
        return nil
    }

    /// Writes `chunks` to `fd` in order, gathering small ones in a buffer; errno on failure.
    static func writeJoined(_ fd: Int32, _ chunks: some Sequence<[UInt8]>) -> Int32? {
        let capacity = 1 << 20
        var buffer: [UInt8] = []
        buffer.reserveCapacity(capacity)
        for chunk in chunks {
            if buffer.count + chunk.count > capacity {
                if let e = writeAll(fd, buffer) { return e }
                buffer.removeAll(keepingCapacity: true)
            }
            if chunk.count >= capacity {
                if let e = writeAll(fd, chunk) { return e }
            } else {
                buffer += chunk
            }
        }
        return writeAll(fd, buffer)
    }

    /// One `write` loop (EINTR and short writes); errno on failure.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + off, bytes.count - off) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            off += n
        }
        return nil
    }
}
