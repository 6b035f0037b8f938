import PlayerHostConfig
import PlayerHostRPC

/// How the daemon runs; filled from the command line (and later the config file).
public struct HostOptions: Sendable {
    /// The control socket's path.
    public var socketPath: String
    /// True when the path is the default one, whose directory we may create and tighten.
    public var socketIsDefault: Bool
    public var limits = RPCLimits()
    /// A descriptor to write one byte to once the socket accepts (`--daemon`'s parent waits on it).
    public var readyFD: Int32?
    /// systemd's notify socket (`$NOTIFY_SOCKET`), told `READY=1` once the socket accepts.
    public var notifySocket: String?
    /// The configuration file's content (sessions to create, timeouts).
    public var config = HostConfig()
    /// The file `config` was read from, read again on reload (nil: the default path).
    public var configPath: String?
    /// Whether that file must exist (the user named it).
    public var configRequired = false
    /// Where state.json lives (`--state-dir`; nil: config `state_dir`, else the XDG default).
    public var stateDirectory: String?

    public init(socketPath: String, socketIsDefault: Bool) {
        self.socketPath = socketPath
        self.socketIsDefault = socketIsDefault
    }
}
