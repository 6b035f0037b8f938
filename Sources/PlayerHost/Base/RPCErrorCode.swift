/// Every error code the host answers with. The standard JSON-RPC 2.0 codes are negative; the
/// application codes are positive, stable, and documented in docs/protocol.md.
public enum RPCErrorCode: Int, Sendable, CaseIterable {
    // JSON-RPC 2.0 (§5.1)
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
    // Application codes
    case invalidArgument = 1000
    case sessionNotFound = 1001
    case sessionExists = 1002
    case playerNotFound = 1003
    case playerInUse = 1004
    case commandDisabled = 1010
    case commandHasNoTarget = 1011
    case targetNotFound = 1012
    case notEligible = 1020
    case noNowPlayingSession = 1021
    case automaticKey = 1030
    case invalidInfo = 1031
    case pluginFailure = 1040
    case limitExceeded = 1050
    case notOwner = 1060
    case shuttingDown = 1070
    case timeout = 1080
    case invalidState = 1090
    case configInvalid = 1100

    /// The case's name (`sessionNotFound`), for logs and messages.
    public var name: String { String(describing: self) }

    /// A one-line meaning, for docs and `rpc.discover`.
    public var meaning: String {
        switch self {
        case .parseError: return "the line is not valid JSON (or not valid UTF-8)"
        case .invalidRequest: return "the JSON is not a valid JSON-RPC 2.0 request"
        case .methodNotFound: return "no such method"
        case .invalidParams: return "a parameter is missing, unknown, or of the wrong type"
        case .internalError: return "the host failed unexpectedly"
        case .invalidArgument: return "a parameter has a value outside what it accepts"
        case .sessionNotFound: return "no session with that id"
        case .sessionExists: return "a session with that id already exists"
        case .playerNotFound: return "no player with that index in the session"
        case .playerInUse: return "the player already belongs to another session"
        case .commandDisabled: return "the command is disabled (isEnabled is false)"
        case .commandHasNoTarget: return "the command is enabled but has no target"
        case .targetNotFound: return "no target with that token"
        case .notEligible: return "the session cannot become active now"
        case .noNowPlayingSession: return "no session is Now Playing and none was named"
        case .automaticKey: return "the key is published automatically and cannot be written"
        case .invalidInfo: return "a now-playing info key or value is invalid"
        case .pluginFailure: return "a plugin failed"
        case .limitExceeded: return "a limit was exceeded (line, batch, connections, output; sessions per app, targets per command, queue items): data names it"
        case .notOwner: return "the caller does not own that session or target"
        case .shuttingDown: return "the host is shutting down"
        case .timeout: return "a handler did not answer in time"
        case .invalidState: return "the operation does not apply in the current state"
        case .configInvalid: return "the configuration file has an error; the one in effect stays"
        }
    }
}
