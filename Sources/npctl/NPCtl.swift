import ArgumentParser
import Glibc
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel
import PlayerHostRPC

/// npctl: control PlayerHost from the shell, like playerctl or mpc.
@main
struct NPCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "npctl",
        abstract: "Control the PlayerHost daemon.",
        discussion: """
            A drop-in for playerctl: its verbs, options and --format templates print what \
            playerctl prints. Verbs act on the Now Playing session (the exported MPRIS player \
            `playerhost`) unless -p/--player names players as `npctl -l` lists them (comma \
            list, `%any`, `name` matching `name.instance`) or --session names a session. \
            Global options go before or after the verb: npctl -p mpv status.

            playerctl's options: -p/--player NAMES, -i/--ignore-player NAMES, \
            -a/--all-players, -l/--list-all, -s/--no-messages, -f/--format TEMPLATE, \
            -F/--follow, -v/--version. npctl's: --session ID, --all (every session), --json, \
            --socket PATH, --timeout S, --lang TAG.

            Errors print playerctl's line on stderr, then npctl's hint, and exit 1; a usage \
            error is one line and exits 2.

            Examples:
              npctl                     # the one-line summary (npctl now)
              npctl status
              npctl -p mpv,%any metadata --format '{{artist}} - {{title}}'
              npctl --session pip --json now
              npctl play-pause
              npctl position 1:30
              npctl watch

            Shell completions: npctl --generate-completion-script bash|zsh|fish
            """,
        version: HostVersion.string,
        subcommands: [
            Now.self, StatusCommand.self, Sessions.self, Watch.self,
            Play.self, Pause.self, PlayPause.self, Stop.self, Next.self, Previous.self,
            Position.self, SkipForward.self, SkipBackward.self, Rate.self, Loop.self, Shuffle.self,
            Metadata.self, Volume.self, Mute.self, Queue.self, Promote.self, Demote.self, Activate.self, Doctor.self,
            Open.self, PluginList.self, Ping.self, Call.self, Daemon.self, ArtworkCommand.self,
            // mpv queue verbs (mpc's): play N is Play's argument.
            Add.self, Clear.self, Remove.self, Move.self, Close.self,
            Pin.self, Unpin.self,
            RemoteVerb.self,
        ])

    /// `-p` and `-i` before the verb, for completion (`PlayerctlArguments` reads them).
    @OptionGroup var players: PlayerOptions

    /// Every verb and alias, with its sub-verbs, for `GlobalOptionHoisting`.
    /// Every verb names itself in its configuration: the parser's fallback, a name derived
    /// from the type (`String(describing:)`), costs a dynamic cast that scans every protocol
    /// conformance in the process — a third of npctl's start-up when done for each verb.
    static var verbTable: [String: [String]] {
        func name(_ c: ParsableCommand.Type) -> String { c.configuration.commandName ?? c._commandName }
        var table: [String: [String]] = [:]
        for verb in configuration.subcommands {
            let subverbs = verb.configuration.subcommands.flatMap { [name($0)] + $0.configuration.aliases }
            for n in [name(verb)] + verb.configuration.aliases { table[n] = subverbs }
        }
        return table
    }

    /// Global options are taken before the verb too (see `GlobalOptionHoisting`); an unknown
    /// verb gets the closest known one.
    static func main() {
        // The parser's own completion requests (`---completion …`) go to it untouched.
        if CommandLine.arguments.dropFirst().first == "---completion" { return main(Array(CommandLine.arguments.dropFirst())) }
        let options: PlayerctlArguments, rest: [String]
        do throws(PlayerctlArguments.Failure) {
            (options, rest) = try PlayerctlArguments.extract(Array(CommandLine.arguments.dropFirst()))
        } catch {
            guard case .missingValue(let o) = error else { Glibc.exit(2) }
            Stderr.write("Missing argument for \(o)\n")
            Glibc.exit(2)
        }
        playerctlOptions = options
        if options.version { print("v\(HostVersion.string)"); Glibc.exit(0) }
        let hasVerb = GlobalOptionHoisting.hasVerb(rest)
        if options.listAll, !hasVerb { Glibc.exit(ListAll.run(rest)) }
        // No verb: the one-line summary (playerctl prints its help here).
        let args = hasVerb || rest.contains(where: { ["-h", "--help", "--generate-completion-script"].contains($0) }) ? rest : ["now"] + rest
        switch GlobalOptionHoisting.arrange(args, verbs: verbTable) {
        case .arguments(let args):
            parseAndRun(args)
        case .unknownVerb(let verb, let suggestion):
            let hint = suggestion.map { " — did you mean '\($0)'?" } ?? " (npctl --help lists the verbs)"
            Stderr.write("Could not execute command: Command not recognized: \(verb)\n")
            Stderr.write("npctl: unknown verb '\(verb)'\(hint)\n")
            Glibc.exit(2)
        }
    }

    /// The parser's usage errors are one line and exit 2 (as the help says), not its
    /// multi-line usage text and 64; help and version go through unchanged.
    static func parseAndRun(_ args: [String]) {
        do {
            var command = try parseAsRoot(args)
            try command.run()
        } catch {
            if exitCode(for: error).rawValue == 64 {
                let line = message(for: error).split(separator: "\n").first.map(String.init) ?? "usage error"
                Stderr.write("npctl: \(line.hasPrefix("Error: ") ? String(line.dropFirst(7)) : line)\n")
                Glibc.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// playerctl's options, taken out of the command line before parsing (`PlayerctlArguments`).
/// Set once in `main`, before any verb runs; read-only after.
nonisolated(unsafe) var playerctlOptions = PlayerctlArguments()

/// Options every subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "Control socket path (default: $PLAYERHOST_SOCKET or $XDG_RUNTIME_DIR/playerhost/control.sock).")
    var socket: String?

    @Flag(name: .long, help: "Print results as JSON.")
    var json = false

    @Option(name: .long, help: "Seconds to wait for an answer.")
    var timeout: Double = 10

    @Option(name: .long, help: ArgumentHelp("Language for localized values (default: from LC_ALL, LC_MESSAGES or LANG; then und).", valueName: "tag"))
    var lang: String?

    /// `-p` and `-i`, for help and completion (`PlayerctlArguments` reads them).
    @OptionGroup var players: PlayerOptions

    var socketPath: String { SocketLocation.resolve(explicit: socket) }

    /// The language localized values are read in; nil means `und`.
    var language: String? {
        LanguagePreference.resolve(explicit: lang) { name in getenv(name).map { String(cString: $0) } }
    }

    /// `--json` and playerctl's `--format` each say how to print: together, one line, exit 2.
    func refuseJSONWithFormat() throws {
        if json, playerctlOptions.format != nil { throw Failure("--json and --format do not go together: pick one", code: 2) }
    }

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
    static let configuration = CommandConfiguration(
        commandName: "ping",
        abstract: "Check that the daemon answers.",
        discussion: """
            Examples:
              npctl ping
            """)
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reporting {
            let start = InfoSnapshot.hostNow()
            let r = try global.call("host.ping")
            let ms = (InfoSnapshot.hostNow() - start) * 1e3
            if global.json { print(r.jsonString) } else { print("\(r.stringValue ?? r.jsonString) (\(String(format3(ms))) ms)") }
        }
    }
}

struct Call: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Call any method; print its result as JSON.",
        discussion: """
            Examples:
              npctl call host.stats
              npctl call session.get '{"session":"main"}'
              npctl call session.get '["main"]'
              npctl call rpc.discover
            """)
    @OptionGroup var global: GlobalOptions

    @Argument(help: "Method name, e.g. host.stats.")
    var method: String

    @Argument(help: "Parameters as a JSON object (by name) or array (by position).")
    var params: String?

    func run() throws {
        try reporting {
            var p: JSON = .object([:])
            if let params {
                let parsed: JSON
                do throws(JSONParseError) { parsed = try JSONParser.parse(params) } catch {
                    throw Failure("parameters are not valid JSON: \(error.message)", code: 2)
                }
                switch parsed {
                case .object, .array: p = parsed  // by name or by position
                default:
                    throw Failure("parameters must be a JSON object or array, e.g. '{\"session\":\"main\"}' or '[\"main\"]'", code: 2)
                }
            }
            let client = try global.connect()
            let result: JSON
            do throws(ClientError) { result = try client.call(method, params: p) } catch { throw Failure(error.description) }
            print(JSONPretty.format(result))
        }
    }
}

func format3(_ x: Double) -> String {
    let v = (x * 1000).rounded() / 1000
    return "\(v)"
}
