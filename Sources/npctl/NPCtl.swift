import ArgumentParser
import Glibc
import PlayerHost

/// npctl: control PlayerHost from the shell, like playerctl or mpc.
@main
struct NPCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "npctl",
        abstract: "Control the PlayerHost daemon.",
        discussion: """
            Verbs act on the Now Playing session unless -s/--session names another.
            Errors print one line on stderr and exit non-zero.
            Shell completions: npctl --generate-completion-script bash|zsh|fish
            """,
        version: HostVersion.string,
        subcommands: [
            StatusCommand.self, Sessions.self,
            Play.self, Pause.self, PlayPause.self, Stop.self, Next.self, Previous.self,
            Position.self, SkipForward.self, SkipBackward.self, Rate.self, Loop.self, Shuffle.self,
            Metadata.self, Promote.self, Demote.self, Doctor.self,
            Open.self, PluginList.self, Ping.self, Call.self, Daemon.self, ArtworkCommand.self,
        ])
}

/// Options every subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "Control socket path (default: $PLAYERHOST_SOCKET or $XDG_RUNTIME_DIR/playerhost/control.sock).")
    var socket: String?

    @Flag(name: .long, help: "Print results as JSON.")
    var json = false

    @Option(name: .long, help: "Seconds to wait for an answer.")
    var timeout: Double = 10

    var socketPath: String { SocketLocation.resolve(explicit: socket) }

    /// Connects, or exits with one clear line.
    func connect() throws -> ControlClient {
        do throws(ClientError) { return try ControlClient(path: socketPath, timeout: timeout) } catch {
            throw Failure(error.description)
        }
    }

    /// One call, with errors turned into one line on stderr and exit 1.
    func call(_ method: String, _ params: [String: JSON] = [:]) throws -> JSON {
        let client = try connect()
        do throws(ClientError) { return try client.call(method, params) } catch { throw Failure(error.description) }
    }
}

/// An error that prints as one line on stderr and exits 1 (no usage text, no stack trace).
struct Failure: Error, CustomStringConvertible {
    let message: String
    var code: Int32 = 1
    init(_ message: String, code: Int32 = 1) {
        self.message = message
        self.code = code
    }
    var description: String { message }
}

extension ParsableCommand {
    /// Runs `body`, printing a `Failure` as `npctl: message` and exiting with its code.
    func reporting(_ body: () throws -> Void) throws {
        do { try body() } catch let f as Failure {
            Stderr.write("npctl: \(f.message)\n")
            throw ExitCode(f.code)
        }
    }
}

enum Stderr {
    static func write(_ s: String) { _ = s.withCString { Glibc.write(2, $0, strlen($0)) } }
}

struct Ping: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check that the daemon answers.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reporting {
            let start = Double(EventLoop.hrtime())
            let r = try global.call("host.ping")
            let ms = (Double(EventLoop.hrtime()) - start) / 1e6
            if global.json { print(r.jsonString) } else { print("\(r.stringValue ?? r.jsonString) (\(String(format3(ms))) ms)") }
        }
    }
}

struct Call: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Call any method; print its result as JSON.",
        discussion: "Example: npctl call host.stats   or   npctl call session.get '{\"session\":\"main\"}'")
    @OptionGroup var global: GlobalOptions

    @Argument(help: "Method name, e.g. host.stats.")
    var method: String

    @Argument(help: "Parameters as a JSON object.")
    var params: String?

    func run() throws {
        try reporting {
            var p: [String: JSON] = [:]
            if let params {
                let parsed: JSON
                do throws(JSONParseError) { parsed = try JSONParser.parse(params) } catch {
                    throw Failure("parameters are not valid JSON: \(error.message)", code: 2)
                }
                guard case .object(let o) = parsed else {
                    throw Failure("parameters must be a JSON object, e.g. '{\"session\":\"main\"}'", code: 2)
                }
                p = o
            }
            let result = try global.call(method, p)
            print(JSONPretty.format(result))
        }
    }
}

func format3(_ x: Double) -> String {
    let v = (x * 1000).rounded() / 1000
    return "\(v)"
}
