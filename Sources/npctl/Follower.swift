import ArgumentParser
import Glibc
import PlayerHostBase
import PlayerHostClient

/// `--follow` (`status`, `metadata`, `position`, `now`, a format): prints a line now and one
/// per change until Ctrl-C, which ends it with 0 like playerctl. It waits for a daemon that
/// is not running yet; when the daemon goes away (a restart) it prints an empty line (the
/// player vanished, as playerctl does), waits for the socket to answer again, subscribes
/// again and goes on. A line equal to the last one is not printed again. With `tick` (a
/// format with `{{position}}`), the line is redone every second, as playerctl's is.
struct Follower {
    let global: GlobalOptions
    let target: SessionOption
    var tick = false
    /// Also the session's command center (loop, shuffle): each value shown is then
    /// `{"snapshot": …, "commands": […]}`, fetched again on every change of the session.
    var withCommands = false
    /// The line for a snapshot reply (JSON null: nothing Now Playing), or for no daemon (nil);
    /// nil prints an empty line once, as playerctl's "cleared" output.
    let line: (JSON?, Double) -> String?

    func run() throws {
        // Ctrl-C is how a follow ends: success. Lines are flushed as they are printed.
        signal(SIGINT) { _ in _exit(0) }
        var last: String?
        var current: JSON?
        func show(_ value: JSON?) {
            current = value
            let text: String? = global.json ? value?.jsonString : line(value, InfoSnapshot.hostNow())
            // Consecutive identical lines say nothing new (playerctl skips them too).
            if text == nil, last == nil { return }
            guard text != last else { return }
            last = text
            print(text ?? "")
            fflush(nil)  // all streams (stdout is not concurrency-safe to name): a pipe would otherwise hold the lines back
        }
        var remote = try Self.reconnect(global)
        while true {
            do {
                try follow(remote, show, { show(current) })
            } catch is ConnectionLost {
                show(nil)
                remote = try Self.reconnect(global)
            }
        }
    }



    /// The daemon closed the connection (or vanished): reconnect and go on.
    struct ConnectionLost: Error {}

    private func follow(_ remote: HostLink, _ show: (JSON?) -> Void, _ redo: () -> Void) throws {
        let more: [JSON] = withCommands ? ["commands", "players"] : []
        if let id = target.session {
            // A named session: its own info events, after its current value.
            try guarded(remote, "events.subscribe", ["topics": .array(["info", "sessions"] + more)])
            let current = { () throws -> JSON in try guarded(remote, "info.get", ["session": .string(id)]) }
            show(try withCommands ? enriched(remote, current()) : current())
            while true {
                let p = try next(remote, redo)
                guard p["session"]?.stringValue == id else { continue }
                if p["type"] == "sessionClosed" { throw Failure("session \(id) closed") }
                if withCommands { show(try enriched(remote, current())) } else if p["type"] == "infoChanged" { show(p) }
            }
        }
        // The exported player: what the export shows (`mpris.get`), which is the Now Playing
        // value unless an imported player holds the slot; then the host's own session shown
        // instead changes through its `info` events.
        try guarded(remote, "events.subscribe", ["topics": .array(["nowPlaying", "info"] + more)])
        var current = JSON.null
        var slot: String?
        if withCommands {
            current = try shown(remote, nowPlaying: try guarded(remote, "nowPlaying.get", [:]))
            show(try enriched(remote, current))
        }
        while true {
            let p = try next(remote, redo)
            if p["topic"] == "nowPlaying", let value = p["nowPlaying"] {
                slot = value["session"]?.stringValue
                current = try shown(remote, nowPlaying: value)
            } else if p["topic"] == "info" {
                // Only the session shown while it is not the slot's (the slot's come as nowPlaying).
                guard let id = p["session"]?.stringValue, id == current["session"]?.stringValue, id != slot else { continue }
                current = try exported(remote, else: current)
            } else if !withCommands {
                continue
            }
            show(withCommands ? try enriched(remote, current) : current)
        }
    }

    /// What the export shows while `nowPlaying` is the Now Playing value: that value, unless it
    /// is an imported player's (the export may then show a host session instead).
    private func shown(_ remote: HostLink, nowPlaying: JSON) throws -> JSON {
        guard nowPlaying["session"]?.stringValue?.hasPrefix(PlayerTarget.importPrefix) == true else { return nowPlaying }
        return try exported(remote, else: nowPlaying)
    }

    /// `mpris.get`; `fallback` from a daemon without it (which mirrors Now Playing).
    private func exported(_ remote: HostLink, else fallback: JSON) throws -> JSON {
        do throws(ClientError) { return try remote.client.call("mpris.get") } catch {
            switch error {
            case .closed, .noDaemon, .io: throw ConnectionLost()
            case .rpc(let e) where e.code == RPCErrorCode.methodNotFound.rawValue: return fallback
            default: throw HostLink.failure(error)
            }
        }
    }

    /// A snapshot with its session's command center (an empty one when nothing is Now Playing).
    private func enriched(_ remote: HostLink, _ snapshot: JSON) throws -> JSON {
        guard let id = snapshot["session"]?.stringValue else { return ["snapshot": snapshot, "commands": []] }
        let commands = try guarded(remote, "session.get", ["session": .string(id)])["commands"] ?? []
        return ["snapshot": snapshot, "commands": commands]
    }

    /// Runs a client call; a lost connection becomes `ConnectionLost`, other errors one line.
    @discardableResult
    private func guarded(_ remote: HostLink, _ method: String, _ params: [String: JSON]) throws -> JSON {
        do throws(ClientError) { return try remote.client.call(method, params) } catch {
            switch error {
            case .closed, .noDaemon: throw ConnectionLost()
            case .io: throw ConnectionLost()
            default: throw HostLink.failure(error)
            }
        }
    }

    /// The next event's params; waits as long as it takes (a quiet player is not an error).
    private func next(_ remote: HostLink, _ redo: () -> Void) throws -> JSON {
        while true {
            do throws(ClientError) {
                let n = try remote.client.nextNotification(timeout: tick ? 1 : 3600)
                if n["method"] == "event", let p = n["params"] { return p }
            } catch {
                switch error {
                case .timeout: if tick { redo() }; continue
                case .closed, .io: throw ConnectionLost()
                default: throw HostLink.failure(error)
                }
            }
        }
    }

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
