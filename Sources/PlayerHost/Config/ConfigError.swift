/// Why a configuration was refused: one clear line (`file:line: key: problem`). The host turns it
/// into `HostError.config` (exit status 78, or a refused reload).
public enum ConfigError: Error, CustomStringConvertible, Sendable, Hashable {
    case config(String)

    /// The line, without the `configuration:` prefix.
    public var message: String {
        switch self {
        case .config(let s): return s
        }
    }

    public var description: String { "configuration: \(message)" }

    /// The process exit status when the daemon cannot start with it (sysexits' EX_CONFIG), as
    /// `HostError.config`'s.
    public var exitCode: Int32 { 78 }
}
