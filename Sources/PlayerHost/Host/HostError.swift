import PlayerHostConfig
import PlayerHostLoop
import PlayerHostServer

/// Why the host could not start or had to stop. One clear line each.
public enum HostError: Error, CustomStringConvertible {
    case server(ServerError)
    case loop(LoopError)
    case config(String)

    /// A refused configuration.
    public init(_ error: ConfigError) { self = .config(error.message) }

    public var description: String {
        switch self {
        case .server(let e): return e.description
        case .loop(let e): return e.description
        case .config(let s): return "configuration: \(s)"
        }
    }

    /// The process exit status for this failure (sysexits-style).
    public var exitCode: Int32 {
        switch self {
        case .server(.alreadyRunning): return 75  // EX_TEMPFAIL: try again once the other stops
        case .server(.pathTooLong): return 64  // EX_USAGE
        case .config: return 78  // EX_CONFIG
        default: return 71  // EX_OSERR
        }
    }
}
