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
}
