import ArgumentParser
import Glibc
import PlayerHostBase
import PlayerHostClient

/// `status --follow`: subscribes, then prints one line per change (the first at once, because
/// subscribing sends the current value) until Ctrl-C, which ends it with 0 like playerctl.
/// When the daemon goes away (a restart), it waits for the socket to answer again,
/// subscribes again and goes on; a line equal to the last one is not printed again.
struct Follower {
    let global: GlobalOptions
    let target: SessionOption
    let line: (InfoSnapshot?) -> String

    func run() throws {
        // Ctrl-C is how a follow ends: success. Lines are flushed as they are printed.
        signal(SIGINT) { _ in _exit(0) }
        var last: String?
        func show(_ value: JSON) {
            let text = global.json ? value.jsonString : line(value.isNull ? nil : InfoSnapshot(value, language: global.language))
            // Consecutive identical lines say nothing new (playerctl skips them too).
            guard text != last else { return }
            last = text
            print(text)
            fflush(nil)  // all streams (stdout is not concurrency-safe to name): a pipe would otherwise hold the lines back
        }
        var remote = try Remote(global)
        while true {
            do {
                try follow(remote, show)
            } catch is ConnectionLost {
                remote = try Self.reconnect(global)
            }
        }
    }

    /// The daemon closed the connection (or vanished): reconnect and go on.
    struct ConnectionLost: Error {}

    private func follow(_ remote: Remote, _ show: (JSON) -> Void) throws {
        if let id = target.session {
            // A named session: its own info events, after its current value.
            try guarded(remote, "events.subscribe", ["topics": ["info", "sessions"]])
            show(try guarded(remote, "info.get", ["session": .string(id)]))
            while true {
                let p = try next(remote)
                if p["type"] == "sessionClosed", p["session"]?.stringValue == id { throw Failure("session \(id) closed") }
                if p["type"] == "infoChanged", p["session"]?.stringValue == id { show(p) }
            }
        }
        try guarded(remote, "events.subscribe", ["topics": ["nowPlaying"]])
        while true {
            let p = try next(remote)
            if p["topic"] == "nowPlaying", let value = p["nowPlaying"] { show(value) }
        }
    }

    /// Runs a client call; a lost connection becomes `ConnectionLost`, other errors one line.
    @discardableResult
    private func guarded(_ remote: Remote, _ method: String, _ params: [String: JSON]) throws -> JSON {
        do throws(ClientError) { return try remote.client.call(method, params) } catch {
            switch error {
            case .closed, .noDaemon: throw ConnectionLost()
            case .io: throw ConnectionLost()
            default: throw Remote.failure(error)
            }
        }
    }

    /// The next event's params; waits as long as it takes (a quiet player is not an error).
    private func next(_ remote: Remote) throws -> JSON {
        while true {
            do throws(ClientError) {
                let n = try remote.client.nextNotification(timeout: 3600)
                if n["method"] == "event", let p = n["params"] { return p }
            } catch {
                switch error {
                case .timeout: continue
                case .closed, .io: throw ConnectionLost()
                default: throw Remote.failure(error)
                }
            }
        }
    }

    /// Connects again, retrying with a growing pause (50 ms up to 1 s) while nothing answers:
    /// a restart takes a moment, and a stopped daemon may be started again at any time.
    static func reconnect(_ global: GlobalOptions) throws -> Remote {
        var pause = 0.05
        while true {
            do throws(ClientError) {
                let client = try ControlClient(path: global.socketPath, timeout: global.timeout)
                return Remote(client: client, global: global)
            } catch {
                switch error {
                case .noDaemon, .io: break
                default: throw Remote.failure(error)
                }
            }
            var ts = timespec(tv_sec: Int(pause), tv_nsec: Int((pause - Double(Int(pause))) * 1e9))
            nanosleep(&ts, nil)
            pause = min(pause * 2, 1)
        }
    }
}
