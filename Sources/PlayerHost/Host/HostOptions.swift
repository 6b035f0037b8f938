import PlayerHostClient
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
    /// The environment the daemon finds its places in (`HOME`, the XDG directories: the config
    /// file to reload, the plugin directory, the artwork cache, the state directory; the session
    /// bus). nil: the process's own. An in-process test daemon gives its temporary directory
    /// here, so it never reads or writes the user's config, cache or state.
    public var environment: [String: String]?

    /// The environment in effect (`environment`, else the process's).
    public var effectiveEnvironment: [String: String] { environment ?? SocketLocation.currentEnvironment() }

    public init(socketPath: String, socketIsDefault: Bool) {
        self.socketPath = socketPath
        self.socketIsDefault = socketIsDefault
    }
}
