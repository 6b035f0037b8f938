import Glibc
import PlayerHostClient
import PlayerHostLoop

/// A lock file beside the socket (`control.sock.lock`), held with `flock` for the daemon's life.
/// A second instance fails to take it and says which pid holds it; a daemon that was killed
/// releases it with its descriptor, so its leftover socket is known to be stale and replaced.
///
/// A lock on a file that is no longer at the path excludes nobody: when the runtime directory
/// is removed (by hand, or by logind at logout) a second daemon makes a new directory, a new
/// lock file and a new socket, and the first can no longer be reached. `watch` notices (inotify
/// on the file and its directory) so the daemon can stop rather than run on unreachable,
/// writing the same state file as its successor.
public final class InstanceLock {
    public let path: String
    private var fd: Int32
    private var inotifyFD: Int32 = -1
    private var watcher: FDPoll?

    /// Takes the lock for `socketPath` or throws `alreadyRunning`.
    public init(socketPath: String) throws(ServerError) {
        path = socketPath + ".lock"
        // Never through a link (a socket in a shared directory: someone else's file would be
        // truncated for our pid), and only a regular file (O_NONBLOCK: a FIFO does not block).
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        if fd < 0 {
            let e = errno
            throw .lock(path, reason: e == ELOOP ? "it is a symbolic link; remove it" : String(cString: strerror(e)))
        }
        var st = stat()
        if fstat(fd, &st) != 0 || st.st_mode & S_IFMT != S_IFREG {
            close(fd)
            throw .lock(path, reason: "not a regular file; remove it")
        }
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

    /// Whether the path still names the file this lock holds.
    public var isStillAtPath: Bool {
        guard fd >= 0 else { return false }
        var mine = stat(), named = stat()
        return fstat(fd, &mine) == 0 && mine.st_nlink > 0 && stat(path, &named) == 0
            && mine.st_ino == named.st_ino && mine.st_dev == named.st_dev
    }

    /// Calls `onLost` (once) when the lock file is unlinked, replaced or moved, or its directory
    /// is: from then on another daemon can take the lock at the path. Each event costs one
    /// `stat`; nothing runs while the directory is left alone.
    public func watch(loop: EventLoop, onLost: @escaping () -> Void) throws(LoopError) {
        guard watcher == nil, fd >= 0 else { return }
        let ifd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard ifd >= 0 else { throw LoopError(code: -errno, operation: "inotify_init1") }
        let fileEvents = UInt32(IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
        let dirEvents = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE)
        let directory = SocketLocation.directory(of: path)
        guard inotify_add_watch(ifd, path, fileEvents) >= 0, inotify_add_watch(ifd, directory, dirEvents) >= 0 else {
            let e = errno
            close(ifd)
            throw LoopError(code: -e, operation: "inotify_add_watch \(path)")
        }
        let poll: FDPoll
        do { poll = try FDPoll(loop: loop, fileDescriptor: ifd) } catch {
            close(ifd)
            throw error
        }
        inotifyFD = ifd
        watcher = poll
        var reported = false
        try poll.start(.readable) { [weak self] _ in
            guard let self else { return }
            self.drainEvents()
            guard !reported, !self.isStillAtPath else { return }
            reported = true
            self.stopWatching()
            onLost()
        }
        // Removed between taking the lock and watching it: no event will come.
        if !isStillAtPath {
            reported = true
            stopWatching()
            onLost()
        }
    }

    /// Stops watching (shutdown; the watcher is a loop handle). Idempotent.
    public func stopWatching() {
        watcher?.close()
        watcher = nil
        if inotifyFD >= 0 {
            close(inotifyFD)
            inotifyFD = -1
        }
    }

    /// Reads the pending inotify events (only their arrival matters).
    private func drainEvents() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while inotifyFD >= 0 {
            let n = buffer.withUnsafeMutableBytes { read(inotifyFD, $0.baseAddress, $0.count) }
            if n > 0 { continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
    }

    /// Removes the lock file and releases the lock. Idempotent.
    public func release() {
        stopWatching()
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
