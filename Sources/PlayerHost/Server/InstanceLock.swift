import Glibc

/// A lock file beside the socket (`control.sock.lock`), held with `flock` for the daemon's life.
/// A second instance fails to take it and says which pid holds it; a daemon that was killed
/// releases it with its descriptor, so its leftover socket is known to be stale and replaced.
public final class InstanceLock {
    public let path: String
    private var fd: Int32

    /// Takes the lock for `socketPath` or throws `alreadyRunning`.
    public init(socketPath: String) throws(ServerError) {
        path = socketPath + ".lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd < 0 { throw .lock(path, reason: String(cString: strerror(errno))) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            let holder = Self.readPID(fd)
            close(fd)
            if code == EWOULDBLOCK {
                throw .alreadyRunning(socket: socketPath, pid: holder)
            }
            throw .lock(path, reason: String(cString: strerror(code)))
        }
        // The file may have been unlinked (and another made) between open and flock, by a daemon
        // releasing it or by someone removing the directory: a lock on an unlinked file excludes
        // nobody. Hold the lock only on the file the path names now.
        var mine = stat(), named = stat()
        if fstat(fd, &mine) != 0 || stat(path, &named) != 0 || mine.st_ino != named.st_ino || mine.st_dev != named.st_dev {
            close(fd)
            throw .lock(path, reason: "the lock file was replaced while taking it; try again")
        }
        let pid = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = pid.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    deinit { release() }

    /// Removes the lock file and releases the lock. Idempotent.
    public func release() {
        guard fd >= 0 else { return }
        // Only our own file: if the directory was removed and another daemon made a new lock
        // file at the path, it is that daemon's.
        var mine = stat(), named = stat()
        if fstat(fd, &mine) == 0, stat(path, &named) == 0, mine.st_ino == named.st_ino, mine.st_dev == named.st_dev {
            unlink(path)
        }
        close(fd)
        fd = -1
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buf = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buf, 31, 0)
        guard n > 0 else { return nil }
        return Int32(String(decoding: buf[0..<n], as: UTF8.self).filter(\.isNumber))
    }
}
