import Glibc

/// Where the control socket lives: `$XDG_RUNTIME_DIR/playerhost/control.sock`, else
/// `/tmp/playerhost-$UID/control.sock`. npctl and the daemon resolve it the same way.
public enum SocketLocation {
    /// The default socket path for this user and environment.
    public static func defaultPath(environment: [String: String] = currentEnvironment()) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/playerhost/control.sock"
        }
        return "/tmp/playerhost-\(getuid())/control.sock"
    }

    /// `--socket`, then `$PLAYERHOST_SOCKET`, then the default.
    public static func resolve(explicit: String?, environment: [String: String] = currentEnvironment()) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let env = environment["PLAYERHOST_SOCKET"], !env.isEmpty { return env }
        return defaultPath(environment: environment)
    }

    public static func currentEnvironment() -> [String: String] {
        var env: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") {
                env[String(s[..<eq])] = String(s[s.index(after: eq)...])
            }
            p += 1
        }
        return env
    }

    /// The last component of a path.
    public static func basename(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The directory part of a path.
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Creates the socket's directory if missing (mode 0700). An existing directory must be ours;
    /// the default directories are tightened to 0700, a directory the user named is left alone.
    public static func prepareDirectory(for socketPath: String, isDefault: Bool) throws(ServerError) {
        let dir = directory(of: socketPath)
        var st = stat()
        if stat(dir, &st) != 0 {
            // Create parents as needed (only the last component gets 0700 semantics that matter).
            var built = dir.hasPrefix("/") ? "" : "."
            for part in dir.split(separator: "/") {
                built += "/" + part
                if mkdir(built, 0o700) != 0 && errno != EEXIST {
                    throw .directory(dir, reason: String(cString: strerror(errno)))
                }
            }
            return
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { throw .directory(dir, reason: "not a directory") }
        if isDefault {
            guard st.st_uid == getuid() else {
                throw .directory(dir, reason: "owned by uid \(st.st_uid), not by us (uid \(getuid()))")
            }
            if st.st_mode & 0o077 != 0 { _ = chmod(dir, 0o700) }
        }
    }
}
