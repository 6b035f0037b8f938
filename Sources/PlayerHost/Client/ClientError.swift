import PlayerHostRPC

/// What went wrong talking to the daemon. `description` is one line meant for a person.
public enum ClientError: Error, CustomStringConvertible {
    /// Nothing listens at the path (or the path does not exist).
    case noDaemon(path: String)
    /// Connecting or I/O failed.
    case io(String)
    /// The daemon closed the connection.
    case closed
    /// No answer within the deadline.
    case timeout(seconds: Double)
    /// The daemon sent something that is not JSON-RPC.
    case protocolViolation(String)
    /// The daemon answered with a JSON-RPC error.
    case rpc(RPCError)

    public var description: String {
        switch self {
        case .noDaemon(let path):
            return "no playerhostd at \(path) — start it with `npctl daemon start`"
        case .io(let s): return s
        case .closed: return "the daemon closed the connection"
        case .timeout(let s): return "no answer from playerhostd within \(s) s"
        case .protocolViolation(let s): return "unexpected reply from playerhostd: \(s)"
        case .rpc(let e): return e.message
        }
    }
}
