import Glibc
import Logging
import PlayerHost
import Plugins

/// playerhostd: the PlayerHost daemon.
@main
struct Playerhostd {
    let socket: String?
    let daemon: Bool
    let config: String?
    let stateDir: String?
    let printConfig: Bool
    let checkConfig: String?
    let logLevel: String?
    let maxConnections: Int
    let maxLineBytes: Int
    let maxOutputBytes: Int
    let readyFd: Int32?

    init(_ c: DaemonCommandLine) {
        socket = c.socket
        daemon = c.daemon
        config = c.config
        stateDir = c.stateDir
        printConfig = c.printConfig
        checkConfig = c.checkConfig
        logLevel = c.logLevel
        maxConnections = c.maxConnections
        maxLineBytes = c.maxLineBytes
        maxOutputBytes = c.maxOutputBytes
        readyFd = c.readyFD
    }

    static func main() {
        switch DaemonCommandLine.parse(Array(CommandLine.arguments.dropFirst()), version: HostVersion.string) {
        case .print(let text):
            print(text, terminator: "")
        case .usageError(let message):
            FileHandleStderr.write("Error: \(message)\nUsage: playerhostd [<options>]\n  See 'playerhostd --help' for more information.\n")
            exit(64)
        case .run(let c):
            do {
                try Playerhostd(c).run()
            } catch let code as ExitCode {
                exit(code.rawValue)
            } catch {
                FileHandleStderr.write("playerhostd: \(error)\n")
                exit(1)
            }
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

/// A status to exit with, thrown out of `run`.
struct ExitCode: Error {
    let rawValue: Int32
    init(_ rawValue: Int32) { self.rawValue = rawValue }
}
