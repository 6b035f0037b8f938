import Glibc
import PlayerHostBase

/// `remote.toml`, the file `npctl remote enable` / `disable` has the daemon write beside the
/// config file, so the user's own file and its comments stay untouched:
///
/// ```toml
/// [remote]
/// listen = "0.0.0.0:8470"   # npctl remote enable --lan
/// ```
/// or `enabled = false` (`npctl remote disable`).
///
/// It wins over the config's `[remote]`: it is the newer, explicit wish (the command was run
/// after the file was written), and `npctl remote` / `npctl doctor` say that the setting comes
/// from it. Only `listen` is taken from it; the config's other `[remote]` keys (certificate,
/// limits) still apply. Deleting it (then a reload) goes back to the config's own `[remote]`.
public struct RemoteOverlay: Sendable, Equatable {
    /// `listen`: the address the remote listens on.
    public var listen: String?
    /// `enabled = false`: the remote is off whatever the config's `listen` says.
    public var enabled: Bool?

    public init(listen: String? = nil, enabled: Bool? = nil) {
        self.listen = listen
        self.enabled = enabled
    }

    /// The file's name, in the config file's folder.
    public static let fileName = "remote.toml"
    /// The largest overlay read (it is a few lines; anything bigger is not ours).
    public static let maxFileBytes = 16 << 10

    /// `remote.toml` in the folder of `configPath`.
    public static func path(besideConfig configPath: String) -> String {
        directory(of: configPath) + "/" + fileName
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The `[remote]` in effect: the config's, with the overlay beside `configPath` over it.
    /// A missing overlay changes nothing; a link, a FIFO, a file over `maxFileBytes` or one that
    /// does not parse is an error naming it (the daemon does not start, a reload keeps the old
    /// configuration), as for the config file itself. Blocking I/O: off the loop thread.
    public static func merged(_ remote: RemoteConfig?, besideConfig configPath: String) throws(ConfigError) -> RemoteConfig? {
        let path = path(besideConfig: configPath)
        switch BoundedFile.read(path, maxBytes: maxFileBytes, links: .refuse) {
        case .failure(let e) where e.errno == ENOENT || e.errno == ENOTDIR:
            return remote
        case .failure(let e):
            throw .config("\(e.description) (written by npctl remote enable; delete it to use the config's [remote])")
        case .success(let bytes):
            return try parse(bytes, source: path).applied(to: remote, source: path)
        }
    }

    /// Parses the file: `[remote]` with `listen` and `enabled`, nothing else.
    public static func parse(_ bytes: [UInt8], source: String) throws(ConfigError) -> RemoteOverlay {
        let hint = " (written by npctl remote enable; delete it to use the config's [remote])"
        guard !bytes.contains(0) else { throw .config("\(source): a NUL byte: the file is not text\(hint)") }
        let table: TOMLTable
        do {
            table = try TOMLParser.parse(bytes: bytes)
        } catch {
            throw .config("\(source):\(error.line):\(error.column): \(error.reason)\(hint)")
        }
        let schema = [ConfigKey("remote", .table([ConfigKey("listen", .string), ConfigKey("enabled", .boolean)]))]
        try ConfigSchema.check(table, against: schema, source: source, text: String(decoding: bytes, as: UTF8.self))
        var overlay = RemoteOverlay()
        if case .table(let remote)? = table["remote"] {
            if case .string(let s)? = remote["listen"] { overlay.listen = s }
            if case .boolean(let b)? = remote["enabled"] { overlay.enabled = b }
        }
        if let listen = overlay.listen, RemoteConfig.parse(listen: listen) == nil {
            throw .config("\(source): remote.listen must be ADDRESS:PORT with an IPv4 address, not '\(listen)'\(hint)")
        }
        return overlay
    }

    /// `remote` with this file's keys over it; `source` is recorded as where `listen` came from.
    public func applied(to remote: RemoteConfig?, source: String) -> RemoteConfig? {
        guard enabled == false || listen != nil else { return remote }
        var r = remote ?? RemoteConfig()
        r.listen = enabled == false ? nil : listen
        r.source = source
        return r
    }

    /// The file's text.
    public var text: String {
        var lines = ["# Written by playerhostd for `npctl remote enable` / `disable`. It wins over the",
                     "# config's [remote] listen; delete it (then `npctl daemon reload`) to use the config's.",
                     "[remote]"]
        if enabled == false { lines.append("enabled = false") }
        if let listen, enabled != false { lines.append("listen = \"\(listen)\"") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes the file beside `configPath` whole or not at all: the folder is made (0700) if it
    /// is missing, must be a folder of this user that nobody else can write to (a symbolic link
    /// to one is followed: dotfile managers link config folders), and the file is a new
    /// temporary one (`O_EXCL`, `O_NOFOLLOW`, 0600) renamed over the old, so a link at
    /// `remote.toml` is replaced, never followed. Nil when written, else why not.
    /// Blocking I/O: off the loop thread.
    public func write(besideConfig configPath: String) -> String? {
        let dir = Self.directory(of: configPath)
        // Parents too: a user with no ~/.config yet (a fresh account, a server) can enable it.
        if let e = Directories.make(dir) { return "cannot make \(dir): \(Self.reason(e))" }
        let dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { return "cannot open \(dir): \(Self.reason(errno))" }
        defer { close(dfd) }
        var st = stat()
        guard fstat(dfd, &st) == 0 else { return "cannot stat \(dir): \(Self.reason(errno))" }
        guard st.st_uid == geteuid() else { return "refusing to write in \(dir): it belongs to another user" }
        guard st.st_mode & 0o022 == 0 else { return "refusing to write in \(dir): others can write to it (chmod go-w)" }
        let tmp = ".\(Self.fileName).\(getpid()).\(Self.randomSuffix())"
        let fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return "cannot write in \(dir): \(Self.reason(errno))" }
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let e = errno
                close(fd)
                unlinkat(dfd, tmp, 0)
                return "cannot write in \(dir): \(Self.reason(e))"
            }
            done += n
        }
        let synced = fsync(fd) == 0
        let e = errno
        close(fd)
        guard synced, renameat(dfd, tmp, dfd, Self.fileName) == 0 else {
            let why = synced ? errno : e
            unlinkat(dfd, tmp, 0)
            return "cannot write \(dir)/\(Self.fileName): \(Self.reason(why))"
        }
        fsync(dfd)  // the rename itself survives a crash
        return nil
    }

    static func reason(_ e: Int32) -> String { String(cString: strerror(e)) }

    /// Random hex digits (the system generator): concurrent writers never share a temporary name.
    static func randomSuffix() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 16)
    }
}
