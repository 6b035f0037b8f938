import Glibc
import PlayerHostConfig
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

    /// Reads `path`: a regular file, not a link, at most `limit` bytes (`BoundedFile`: a FIFO
    /// put there cannot hold a pool thread).
    public static func read(_ path: String, limit: Int) -> Result<[UInt8], RemoteFileError> {
        BoundedFile.read(path, maxBytes: limit, links: .refuse).mapError { RemoteFileError(message: "\($0)") }
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

    /// Runs `work` on the thread pool and gives its value to `done` on the loop (nil if the pool
    /// did not run it).
    static func offLoop<T: Sendable>(_ loop: EventLoop?, _ work: @escaping @Sendable () -> T, done: @escaping (T?) -> Void) {
        // No loop (an embedded host): no worker pool either; the work is not done.
        guard let loop else { return done(nil) }
        do {
            try WorkerJob.queue(on: loop, compute: work, done: done)
        } catch {
            done(nil)
        }
    }
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
