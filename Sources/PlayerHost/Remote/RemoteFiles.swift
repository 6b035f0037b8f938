import Glibc
import PlayerHostLoop

/// The remote's blocking file work, always run on libuv's thread pool (`WorkerJob`), never on the
/// loop: the page's files, covers, and the device file. Files are opened without following links,
/// regular files only, size-capped.
public enum RemoteFiles {
    /// The largest page file, and all of them together.
    public static let maxFileBytes = 512 << 10
    public static let maxPageBytes = 2 << 20
    /// The largest cover served.
    public static let maxArtworkBytes = 16 << 20

    /// A result carried from a worker thread to the loop (written before libuv's completion
    /// hand-off, read after it, which orders the two).
    final class Box<T>: @unchecked Sendable {
        var value: T?
    }

    /// Reads `path`: a regular file, not a link, at most `limit` bytes.
    public static func read(_ path: String, limit: Int) -> Result<[UInt8], RemoteFileError> {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return .failure(RemoteFileError(message: "\(path): \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return .failure(RemoteFileError(message: "\(path): not a regular file")) }
        guard st.st_size <= limit else { return .failure(RemoteFileError(message: "\(path): larger than \(limit) bytes")) }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var got = 0
        while got < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + got, $0.count - got) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            got += n
        }
        return .success(Array(bytes.prefix(got)))
    }

    /// Every file of the page directory whose name `RemoteRoute.isFileName` accepts.
    public static func loadPage(_ directory: String) -> Result<[String: [UInt8]], RemoteFileError> {
        guard let dir = opendir(directory) else { return .failure(RemoteFileError(message: "\(directory): \(String(cString: strerror(errno)))")) }
        var names: [String] = []
        while let ent = readdir(dir) {
            let name = withUnsafeBytes(of: ent.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if RemoteRoute.isFileName(name) { names.append(name) }
        }
        closedir(dir)
        var files: [String: [UInt8]] = [:]
        var total = 0
        for name in names.sorted() {
            guard case .success(let bytes) = read(directory + "/" + name, limit: maxFileBytes) else { continue }
            total += bytes.count
            guard total <= maxPageBytes else { return .failure(RemoteFileError(message: "\(directory): the page is larger than \(maxPageBytes) bytes")) }
            files[name] = bytes
        }
        guard files["index.html"] != nil else { return .failure(RemoteFileError(message: "\(directory) has no index.html")) }
        return .success(files)
    }

    /// Writes `bytes` to `path` whole or not at all (a temporary file, fsync, rename), mode 0600.
    public static func writeAtomically(_ bytes: [UInt8], to path: String) -> String? {
        let tmp = path + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return "\(tmp): \(String(cString: strerror(errno)))" }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                close(fd)
                unlink(tmp)
                return "\(tmp): \(String(cString: strerror(errno)))"
            }
            done += n
        }
        fsync(fd)
        close(fd)
        guard rename(tmp, path) == 0 else { return "\(path): \(String(cString: strerror(errno)))" }
        return nil
    }

    /// The errno binding a TCP socket to `address:port` gives now (nil: it binds), with
    /// `SO_REUSEADDR` as lws sets it. Port 0 (the kernel's pick) always binds. Non-blocking.
    public static func bindError(address: String, port: Int) -> Int32? {
        guard port != 0 else { return nil }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
        guard inet_pton(AF_INET, address, &a.sin_addr) == 1 else { return EINVAL }
        let bound = withUnsafePointer(to: &a) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return bound == 0 ? nil : errno
    }

    /// Runs `work` on the thread pool and gives its value to `done` on the loop.
    static func offLoop<T>(_ loop: EventLoop, _ work: @escaping @Sendable () -> T, done: @escaping (T?) -> Void) {
        let box = Box<T>()
        do {
            try WorkerJob.queue(on: loop, work: {
                box.value = work()
                return nil
            }, done: { _ in done(box.value) })
        } catch {
            done(nil)
        }
    }

    /// Random bytes from the kernel (nil if it gave fewer: never a predictable token).
    public static func random(_ count: Int) -> [UInt8]? { WebServer.random(count) }
}

/// Why a file could not be read.
public struct RemoteFileError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

extension RemoteFiles {
    /// The first IPv4 address of an interface that is up and not loopback (the pairing URL's
    /// host when the remote listens on 0.0.0.0).
    public static func lanAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var p = list
        while let a = p {
            defer { p = a.pointee.ifa_next }
            guard let sa = a.pointee.ifa_addr, sa.pointee.sa_family == sa_family_t(AF_INET),
                  a.pointee.ifa_flags & UInt32(IFF_UP) != 0, a.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0 else { continue }
            var host = [CChar](repeating: 0, count: 64)
            guard getnameinfo(sa, socklen_t(MemoryLayout<sockaddr_in>.size), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            return String(cBuffer: host)
        }
        return nil
    }
}
