/// Why the control server could not start or run. Each reads as one clear line for the user.
public enum ServerError: Error, CustomStringConvertible, Equatable {
    /// Another live daemon holds the lock for this socket.
    case alreadyRunning(socket: String, pid: Int32?)
    /// The socket path does not fit in `sockaddr_un`.
    case pathTooLong(String, limit: Int)
    /// The socket's directory could not be made private to us.
    case directory(String, reason: String)
    /// The lock file could not be opened or locked.
    case lock(String, reason: String)
    /// bind/listen failed.
    case listen(String, reason: String)

    public var description: String {
        switch self {
        case .alreadyRunning(let socket, let pid):
            return "another playerhostd is already running on \(socket)" + (pid.map { " (pid \($0))" } ?? "")
        case .pathTooLong(let path, let limit):
            return "socket path is \(path.utf8.count) bytes, over the \(limit)-byte limit of Unix sockets: \(path)"
        case .directory(let dir, let reason):
            return "cannot use socket directory \(dir): \(reason)"
        case .lock(let path, let reason):
            return "cannot lock \(path): \(reason)"
        case .listen(let path, let reason):
            return "cannot listen on \(path): \(reason)"
        }
    }
}
