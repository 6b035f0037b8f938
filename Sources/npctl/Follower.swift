import ArgumentParser
import Glibc
import PlayerHostBase
import PlayerHostClient

/// `--follow` (`status`, `metadata`, `position`, `volume`, `loop`, `shuffle`, `now`, a format):
/// prints a line now and again on each change the verb follows, until Ctrl-C, which ends it
/// with 0 like playerctl.
///
/// It follows what playerctl follows: the selected players (`-p`, `-i`, `-a`; without them the
/// exported player, npctl's `%now`; with `--session` that session), each asked in turn for
/// its line, the most recently active first (`FollowedPlayers`), on the changes playerctl
/// connects to for the verb (`FollowRule`). A player that appears later is picked up, one
/// that goes away is dropped. It waits for a daemon that is not running yet; when the daemon
/// goes away (a restart) every player vanished: an empty line (playerctl's "cleared"), then it
/// waits for the socket to answer again, subscribes again and goes on. A line equal to the
/// last one is not printed again.
struct Follower {
    let global: GlobalOptions
    let target: SessionOption
    let rule: FollowRule
    /// Also each session's command center (loop, shuffle, whether it can play).
    let withCommands: Bool
    /// A player's line; nil: this player cannot answer (the next one is asked).
    let line: (FollowedPlayer, Double) -> String?

    init(global: GlobalOptions, target: SessionOption, verb: String, template: FormatTemplate?, withCommands: Bool = false,
         line: @escaping (FollowedPlayer, Double) -> String?) {
        self.global = global
        self.target = target
        rule = FollowRule(verb: verb, template: template)
        self.withCommands = withCommands || rule.needsCommands
        self.line = line
    }

    /// Which players there are to follow.
    enum Scope: Equatable {
        /// Only the exported player (no `-p`, `-i`, `-a`): npctl's default target.
        case exported
        /// `--session ID`.
        case named(String)
        /// `-p`/`-i`/`-a`: the exported player and the imported ones, as `-l` lists them;
        /// with `--all`, every session.
        case selected(everySession: Bool)
    }

    var scope: Scope {
        let o = playerctlOptions
        if let id = target.named { return .named(id) }
        if o.allSessions { return .selected(everySession: true) }
        let s = o.selection
        let onlyExported = s.players == nil || s.players == [PlayerTarget.exported]
        if s.ignored.isEmpty, onlyExported, !o.allPlayers || s.players == [PlayerTarget.exported] { return .exported }
        return .selected(everySession: false)
    }

    func run() throws {
        // Ctrl-C is how a follow ends: success. Lines are flushed as they are printed.
        signal(SIGINT) { _ in _exit(0) }
        var printer = FollowPrinter()
        let scope = self.scope
        while true {
            var watch = FollowConnection(follower: self, scope: scope, remote: try Self.reconnect(global))
            do {
                try watch.run(&printer)
            } catch is ConnectionLost {
                printer.show(nil)
            }
        }
    }

    /// The daemon closed the connection (or vanished): reconnect and go on.
    struct ConnectionLost: Error {}

    /// Connects again, retrying with a growing pause (50 ms up to 1 s) while nothing answers:
    /// a restart takes a moment, and a stopped daemon may be started again at any time.
    static func reconnect(_ global: GlobalOptions) throws -> HostLink {
        var pause = 0.05
        while true {
            do throws(ClientError) {
                let client = try ControlClient(path: global.socketPath, timeout: global.timeout)
                return HostLink(client: client, global: global)
            } catch {
                switch error {
                case .noDaemon, .io: break
                default: throw HostLink.failure(error)
                }
            }
            var ts = timespec(tv_sec: Int(pause), tv_nsec: Int((pause - Double(Int(pause))) * 1e9))
            nanosleep(&ts, nil)
            pause = min(pause * 2, 1)
        }
    }
}

/// One player's value as `--follow` holds it.
struct FollowedPlayer {
    let target: PlayerTarget
    /// The snapshot reply (JSON null: the exported player shows nothing).
    var raw: JSON
    /// The session's `commands`, when the follower asks for them.
    var commands: [JSON]?
    let language: String?

    var view: PlayerctlView { PlayerctlView(raw: raw, commands: commands, language: language) }

    /// What `--json` prints: the snapshot, with its commands when known.
    var json: JSON { commands.map { ["snapshot": raw, "commands": .array($0)] } ?? raw }
}

/// Prints follow lines: a line equal to the last is not printed again (playerctl's
/// `cli_print_output`), and nil (no player can answer) prints one empty line, once.
struct FollowPrinter {
    private var last: String?

    mutating func show(_ text: String?) {
        if text == nil, last == nil { return }
        guard text != last else { return }
        last = text
        print(text ?? "")
        fflush(nil)  // all streams (stdout is not concurrency-safe to name): a pipe would otherwise hold the lines back
    }
}
