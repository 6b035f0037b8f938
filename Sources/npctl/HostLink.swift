import ArgumentParser
import Glibc
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel

/// One connection to the daemon for the whole verb, so a verb that needs several calls
/// (read the position, then seek) sees one consistent daemon and pays for one connect.
/// Every error becomes a `Failure`: one line on stderr, exit 1.
struct HostLink {
    let client: ControlClient
    let global: GlobalOptions

    init(_ global: GlobalOptions) throws {
        self.global = global
        client = try global.connect()
    }

    init(client: ControlClient, global: GlobalOptions) {
        self.client = client
        self.global = global
    }

    /// Calls `method`; daemon errors become one-line failures.
    @discardableResult
    func call(_ method: String, _ params: [String: JSON] = [:]) throws -> JSON {
        do throws(ClientError) { return try client.call(method, params) } catch {
            throw Self.failure(error)
        }
    }

    /// The message for a client error, with the one case a user can fix from the shell spelled out.
    static func failure(_ error: ClientError) -> Failure {
        if case .rpc(let e) = error {
            if e.code == RPCErrorCode.noNowPlayingSession.rawValue { return Failure(Self.nothingPlaying) }
            // The daemon names what it accepts in `data`; say it in the line a user reads.
            if let rates = e.data?["supportedPlaybackRates"]?.arrayValue {
                return Failure(e.message + " (supported: " + rates.map(TimeText.text).joined(separator: ", ") + ")")
            }
        }
        return Failure(error.description)
    }

    /// True when `error` says the command cannot be sent at all (disabled or no target): the
    /// sessions `-a` skips.
    static func isUnavailable(_ error: ClientError) -> Bool {
        guard case .rpc(let e) = error else { return false }
        return [RPCErrorCode.commandDisabled, .commandHasNoTarget].map(\.rawValue).contains(e.code)
    }

    static let nothingPlaying = "nothing is Now Playing; name a session with --session"

    /// The session a verb means: the one named with `-s`, else the Now Playing one. Used where
    /// the method needs an explicit id (`player.*`, `session.get`); methods that default to the
    /// Now Playing session themselves get no id at all, so the host decides atomically.
    func resolve(_ option: SessionOption) throws -> String {
        if let id = option.session { return id }
        guard let id = try call("nowPlaying.get")["session"]?.stringValue else { throw Failure(Self.nothingPlaying) }
        return id
    }

    /// What a session shows now: `nowPlaying.get` (or `info.get` for `-s`, which has the same
    /// shape). Nil only when nothing is Now Playing and no session was named.
    func snapshot(_ option: SessionOption) throws -> InfoSnapshot? {
        let raw = try rawSnapshot(option)
        return raw.isNull ? nil : InfoSnapshot(raw, language: global.language)
    }

    /// The raw reply behind `snapshot`, for `--json`.
    func rawSnapshot(_ option: SessionOption) throws -> JSON {
        if let id = option.session { return try call("info.get", ["session": .string(id)]) }
        return try call("nowPlaying.get")
    }

    /// Like `snapshot`, but nothing Now Playing is an error.
    func requireSnapshot(_ option: SessionOption) throws -> InfoSnapshot {
        guard let s = try snapshot(option) else { throw Failure(Self.nothingPlaying) }
        return s
    }

    /// `command.send`: through the session's command center, exactly like a media key.
    /// `session` is omitted unless named, so the host routes to the Now Playing session.
    func send(_ command: String, session: String?, _ payload: [String: JSON] = [:]) throws -> JSON {
        var p = payload
        p["command"] = .string(command)
        if let session { p["session"] = .string(session) }
        return try call("command.send", p)
    }

    /// Sends a command and fails (exit 1) with its status unless it succeeded; `--json` prints
    /// the reply either way, otherwise success prints nothing (like playerctl).
    ///
    /// `asPlayerctl`: the command was sent as MPRIS sends it, and playerctl exits 0 whatever the
    /// player then does (at the last track, `next` does nothing): so does npctl, telling a
    /// person at a terminal why on stderr. With `--json` the reply says it, and exit 1.
    func sendReporting(_ command: String, session: String?, _ payload: [String: JSON] = [:], asPlayerctl: Bool = false) throws {
        let r = try send(command, session: session, payload)
        if global.json { print(r.jsonString) }
        let status = r["status"]?.stringValue ?? "unknown"
        if status != "success" {
            // The daemon's sentence (`no next item in the queue of mpv`); the code is in --json.
            let message = r["message"]?.stringValue ?? "\(command) on \(r["session"]?.stringValue ?? "?"): \(status)"
            guard asPlayerctl, !global.json else { throw Failure(message) }
            if isatty(2) != 0, !playerctlOptions.noMessages { Stderr.write("npctl: \(message)\n") }
        }
    }

    /// Every session's id, in the daemon's order.
    func sessionIDs() throws -> [String] {
        try call("session.list").arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    /// `-a`: sends `command` to every session whose command is available. Failures print one
    /// line each; exit 1 if any failed or no session could take the command.
    func sendToAll(_ command: String, _ payload: [String: JSON] = [:]) throws {
        var sent = 0
        var failed = 0
        for id in try sessionIDs() {
            var p = payload
            p["command"] = .string(command)
            p["session"] = .string(id)
            do throws(ClientError) {
                let r = try client.call("command.send", p)
                if global.json { print(r.jsonString) }
                sent += 1
                let status = r["status"]?.stringValue ?? "unknown"
                if status != "success" {
                    failed += 1
                    Stderr.write("npctl: \(r["message"]?.stringValue ?? "\(command) on \(id): \(status)")\n")
                }
            } catch {
                if Self.isUnavailable(error) { continue }
                throw Self.failure(error)
            }
        }
        if sent == 0 { throw Failure("no session takes \(command)") }
        if failed > 0 { throw ExitCode(1) }
    }
}
