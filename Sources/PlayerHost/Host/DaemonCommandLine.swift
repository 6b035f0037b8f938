import PlayerHostRPC

/// playerhostd's command line: eleven long options, read without swift-argument-parser.
///
/// The parser library is npctl's (a CLI of forty verbs); in the daemon it brought
/// FoundationEssentials (3 MiB of code, its relocations applied at every start) for options a
/// table says as well: the daemon's start-up footprint is issue 24's (docs/PERFORMANCE.md,
/// "Footprint"). Options take `--name value` or `--name=value`; errors are one line and exit
/// 64 (EX_USAGE), as before.
public struct DaemonCommandLine: Equatable {
    public var socket: String?
    public var daemon = false
    public var config: String?
    public var stateDir: String?
    public var printConfig = false
    public var checkConfig: String?
    public var logLevel: String?
    public var maxConnections = RPCLimits().maxConnections
    public var maxLineBytes = RPCLimits().maxLineBytes
    public var maxOutputBytes = RPCLimits().maxOutputBytes
    public var readyFD: Int32?

    public init() {}

    /// What the command line asks for.
    public enum Outcome: Equatable {
        case run(DaemonCommandLine)
        /// Print `text` on stdout and exit 0 (`--help`, `--version`).
        case print(String)
        /// A usage error: the message for stderr, exit 64.
        case usageError(String)
    }

    /// The log levels `--log-level` takes (swift-log's).
    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    private struct Option {
        let name: String
        let value: String?
        let help: String
        let hidden: Bool
        init(_ name: String, _ value: String? = nil, _ help: String, hidden: Bool = false) {
            self.name = name
            self.value = value
            self.help = help
            self.hidden = hidden
        }
    }

    private static let options: [Option] = [
        Option("socket", "socket", "Control socket path (default: $XDG_RUNTIME_DIR/playerhost/control.sock)."),
        Option("daemon", nil, "Detach into the background; return once the socket accepts connections."),
        Option("config", "config", "Configuration file (TOML; default: $XDG_CONFIG_HOME/playerhost/playerhost.toml if present)."),
        Option("state-dir", "state-dir", "Where state.json (sessions kept across restarts) lives (default: $XDG_STATE_HOME/playerhost)."),
        Option("print-config", nil, "Print the effective configuration and exit."),
        Option("check-config", "file", "Check a configuration file and exit: 0 if it is valid, 1 with the problem on stderr."),
        Option("log-level", "log-level", "trace, debug, info, notice, warning, error or critical (default: the config's log_level, else info). Given here, it wins over the config's, also on reload."),
        Option("max-connections", "max-connections", "Most simultaneous client connections. (default: \(RPCLimits().maxConnections))"),
        Option("max-line-bytes", "max-line-bytes", "Longest accepted request line, in bytes. (default: \(RPCLimits().maxLineBytes))"),
        Option("max-output-bytes", "max-output-bytes", "Most reply bytes queued for a client that does not read, before it is disconnected. (default: \(RPCLimits().maxOutputBytes))"),
        Option("ready-fd", "ready-fd", "Descriptor to signal readiness on (used by --daemon).", hidden: true),
        Option("generate-completion-script", "shell", "Print a completion script for bash, zsh or fish (scripts/install.sh installs them)."),
        Option("version", nil, "Show the version."),
        Option("help", nil, "Show help information."),
    ]

    /// `--help`'s text.
    public static var help: String {
        var s = """
            OVERVIEW: Hosts media player sessions and arbitrates which one is Now Playing.

            Runs in the foreground (systemd-friendly: READY=1 goes to $NOTIFY_SOCKET once the control socket accepts). --daemon detaches and returns once the socket accepts.

            USAGE: playerhostd [<options>]

            OPTIONS:

            """
        for o in options where !o.hidden {
            let left = "  --\(o.name)" + (o.value.map { " <\($0)>" } ?? "")
            let pad = left.count < 26 ? String(repeating: " ", count: 26 - left.count) : "\n" + String(repeating: " ", count: 26)
            s += left + pad + o.help + "\n"
        }
        return s
    }

    /// Reads the arguments after the program name.
    public static func parse(_ arguments: [String], version: String) -> Outcome {
        var c = DaemonCommandLine()
        var rest = arguments[...]
        while let arg = rest.popFirst() {
            guard arg.hasPrefix("--"), arg.count > 2 else {
                if arg == "-h" { return .print(help) }
                return .usageError("Unexpected argument '\(arg)'")
            }
            var name = String(arg.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let option = options.first(where: { $0.name == name }) else {
                return .usageError("Unknown option '--\(name)'")
            }
            var value: String?
            if option.value != nil {
                if let inline {
                    value = inline
                } else if let next = rest.first, !next.hasPrefix("--") {
                    value = next
                    rest = rest.dropFirst()
                } else {
                    return .usageError("Missing value for '--\(name) <\(option.value ?? "value")>'")
                }
            } else if inline != nil {
                return .usageError("'--\(name)' takes no value")
            }
            func integer<I: FixedWidthInteger>(_ type: I.Type) -> I? { value.flatMap { I($0) } }
            switch name {
            case "help": return .print(help)
            case "generate-completion-script":
                guard let script = completionScript(shell: value ?? "") else {
                    return .usageError("'--generate-completion-script' takes bash, zsh or fish, not '\(value ?? "")'")
                }
                return .print(script)
            case "version": return .print(version + "\n")
            case "socket": c.socket = value
            case "daemon": c.daemon = true
            case "config": c.config = value
            case "state-dir": c.stateDir = value
            case "print-config": c.printConfig = true
            case "check-config": c.checkConfig = value
            case "log-level":
                guard let value, logLevels.contains(value) else {
                    return .usageError("unknown log level '\(value ?? "")' (one of: \(logLevels.joined(separator: ", ")))")
                }
                c.logLevel = value
            case "max-connections", "max-line-bytes", "max-output-bytes":
                guard let n = integer(Int.self) else { return .usageError("'--\(name)' needs an integer, not '\(value ?? "")'") }
                if name == "max-connections" { c.maxConnections = n } else if name == "max-line-bytes" { c.maxLineBytes = n } else { c.maxOutputBytes = n }
            case "ready-fd":
                guard let n = integer(Int32.self) else { return .usageError("'--ready-fd' needs a descriptor number") }
                c.readyFD = n
            default:
                return .usageError("Unknown option '--\(name)'")
            }
        }
        guard c.maxConnections > 0, c.maxLineBytes >= 1024 else {
            return .usageError("--max-connections must be > 0 and --max-line-bytes >= 1024")
        }
        return .run(c)
    }

    /// Options whose value is a path, completed with file names.
    private static let pathOptions: Set<String> = ["socket", "config", "state-dir", "check-config"]

    /// A completion script for `shell` (bash, zsh or fish), nil for another shell.
    public static func completionScript(shell: String) -> String? {
        let shown = options.filter { !$0.hidden }
        switch shell {
        case "bash":
            let words = shown.map { "--" + $0.name }.joined(separator: " ")
            return """
                _playerhostd() {
                    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
                    case "$prev" in
                        --socket|--config|--state-dir|--check-config) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                        --log-level) COMPREPLY=($(compgen -W "\(logLevels.joined(separator: " "))" -- "$cur")); return ;;
                        --generate-completion-script) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")); return ;;
                        --max-connections|--max-line-bytes|--max-output-bytes) return ;;
                    esac
                    COMPREPLY=($(compgen -W "\(words)" -- "$cur"))
                }
                complete -F _playerhostd playerhostd

                """
        case "zsh":
            var lines = ["#compdef playerhostd", "_arguments \\"]
            for o in shown {
                let help = o.help.replacingColonsAndBrackets()
                if let v = o.value {
                    let action = pathOptions.contains(o.name) ? "_files"
                        : o.name == "log-level" ? "(\(logLevels.joined(separator: " ")))"
                        : o.name == "generate-completion-script" ? "(bash zsh fish)" : " "
                    lines.append("  '--\(o.name)=[\(help)]:\(v):\(action)' \\")
                } else {
                    lines.append("  '--\(o.name)[\(help)]' \\")
                }
            }
            lines[lines.count - 1].removeLast(2)
            return lines.joined(separator: "\n") + "\n"
        case "fish":
            var lines: [String] = []
            for o in shown {
                var line = "complete -c playerhostd -l \(o.name)"
                if o.value != nil { line += pathOptions.contains(o.name) ? " -r -F" : " -x" }
                if o.name == "log-level" { line += " -a '\(logLevels.joined(separator: " "))'" }
                if o.name == "generate-completion-script" { line += " -a 'bash zsh fish'" }
                line += " -d '\(o.help.replacingAll("'", with: "\\'"))'"
                lines.append(line)
            }
            return lines.joined(separator: "\n") + "\n"
        default:
            return nil
        }
    }
}

extension String {
    fileprivate func replacingAll(_ a: Character, with b: String) -> String {
        var out = ""
        for c in self { if c == a { out += b } else { out.append(c) } }
        return out
    }

    /// For a zsh `_arguments` description: `:` and `[]` end fields there.
    fileprivate func replacingColonsAndBrackets() -> String {
        String(map { $0 == ":" ? ";" : $0 == "[" ? "(" : $0 == "]" ? ")" : $0 == "'" ? "\u{2019}" : $0 })
    }
}
