import ArgumentParser
import Glibc
import Logging
import PlayerHost
import Plugins

/// playerhostd: the PlayerHost daemon.
@main
struct Playerhostd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "playerhostd",
        abstract: "Hosts media player sessions and arbitrates which one is Now Playing.",
        discussion: """
            Runs in the foreground (systemd-friendly: READY=1 goes to $NOTIFY_SOCKET once the \
            control socket accepts). --daemon detaches and returns once the socket accepts.
            """,
        version: HostVersion.string)

    @Option(name: .long, help: "Control socket path (default: $XDG_RUNTIME_DIR/playerhost/control.sock).")
    var socket: String?

    @Flag(name: .long, help: "Detach into the background; return once the socket accepts connections.")
    var daemon = false

    @Option(name: .long, help: "Configuration file (TOML; default: $XDG_CONFIG_HOME/playerhost/playerhost.toml if present).")
    var config: String?

    @Option(name: .long, help: "Where state.json (sessions kept across restarts) lives (default: $XDG_STATE_HOME/playerhost).")
    var stateDir: String?

    @Flag(name: .long, help: "Print the effective configuration and exit.")
    var printConfig = false

    @Option(name: .long, help: ArgumentHelp("Check a configuration file and exit: 0 if it is valid, 1 with the problem on stderr.", valueName: "file"))
    var checkConfig: String?

    @Option(name: .long, help: "trace, debug, info, notice, warning, error or critical (default: the config's log_level, else info). Given here, it wins over the config's, also on reload.")
    var logLevel: String?

    @Option(name: .long, help: "Most simultaneous client connections.")
    var maxConnections: Int = RPCLimits().maxConnections

    @Option(name: .long, help: "Longest accepted request line, in bytes.")
    var maxLineBytes: Int = RPCLimits().maxLineBytes

    @Option(name: .long, help: "Most reply bytes queued for a client that does not read, before it is disconnected.")
    var maxOutputBytes: Int = RPCLimits().maxOutputBytes

    @Option(name: .long, help: ArgumentHelp("Descriptor to signal readiness on (used by --daemon).", visibility: .private))
    var readyFd: Int32?

    func validate() throws {
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("unknown log level '\(logLevel)'")
        }
        guard maxConnections > 0, maxLineBytes >= 1024 else {
            throw ValidationError("--max-connections must be > 0 and --max-line-bytes >= 1024")
        }
    }

    func run() throws {
        if let checkConfig {
            do {
                _ = try HostConfig.load(path: checkConfig, required: true)
            } catch {
                FileHandleStderr.write("playerhostd: \(error)\n")
                throw ExitCode(1)
            }
            print("\(checkConfig): ok")
            return
        }
        let env = SocketLocation.currentEnvironment()
        let configFile: HostConfig
        do {
            configFile = try HostConfig.load(path: config ?? HostConfig.defaultPath(environment: env), required: config != nil)
        } catch {
            FileHandleStderr.write("playerhostd: \(error)\n")
            throw ExitCode(error.exitCode)
        }
        let path = SocketLocation.resolve(explicit: socket ?? configFile.socket, environment: env)
        if printConfig {
            var effective = configFile
            effective.socket = path
            effective.logLevel = (logLevel.flatMap(Logger.Level.init(rawValue:)) ?? configFile.effectiveLogLevel).rawValue
            print(effective.tomlString(), terminator: "")
            return
        }
        if daemon {
            let code = DaemonLauncher.launch(socketPath: path, arguments: Array(CommandLine.arguments.dropFirst()))
            throw ExitCode(code)
        }
        // As systemd daemons do: the command line wins over the config file, at start and on
        // every reload; without --log-level the config's log_level applies, and a reload
        // changes it at once.
        let commandLineLevel = logLevel.flatMap(Logger.Level.init(rawValue:))
        let levels = LogLevelSwitch(commandLineLevel ?? configFile.effectiveLogLevel)
        LoggingSystem.bootstrap { label in SwitchableLogHandler(label: label, level: levels) }
        let logger = Logger(label: "playerhostd")
        var options = HostOptions(socketPath: path, socketIsDefault: socket == nil && configFile.socket == nil && env["PLAYERHOST_SOCKET"] == nil)
        options.limits.maxConnections = maxConnections
        options.limits.maxLineBytes = maxLineBytes
        options.limits.maxOutputBytes = maxOutputBytes
        options.readyFD = readyFd
        options.notifySocket = env["NOTIFY_SOCKET"]
        options.config = configFile
        options.configPath = config ?? HostConfig.defaultPath(environment: env)
        options.configRequired = config != nil
        options.stateDirectory = stateDir
        do {
            let host = try HostDaemon(options: options, logger: logger)
            host.plugins = BuiltinPlugins.all(config: configFile)
            host.applyLogLevel = { level in
                if let commandLineLevel {
                    if level != commandLineLevel {
                        logger.notice("log_level \(level) in the configuration is not applied: --log-level \(commandLineLevel) on the command line wins")
                    }
                } else {
                    levels.level = level
                }
            }
            try host.run()
        } catch {
            FileHandleStderr.write("playerhostd: \(error)\n")
            throw ExitCode(error.exitCode)
        }
    }
}

enum FileHandleStderr {
    static func write(_ s: String) {
        _ = s.withCString { Glibc.write(2, $0, strlen($0)) }
    }
}
