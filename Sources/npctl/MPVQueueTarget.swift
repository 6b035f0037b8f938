import PlayerHostBase
import PlayerHostClient
import PlayerHostModel
import PlayerHostRPC

/// What npctl's mpv verbs (`open`, `add`, `clear`, `remove`, `move`, `play N`) share: which mpv
/// session they act on, the call, and its errors in npctl's words (positions counted from 1, as
/// `npctl queue` prints them).
enum MPVQueueTarget {
    /// The session named with `--session`; else the Now Playing one if it is an mpv session
    /// (the queue `npctl queue` shows); else nil, and the plugin takes its most recently used
    /// mpv session (or, for `open`, a new one).
    static func session(_ remote: HostLink, _ option: SessionOption) throws -> String? {
        if let id = option.session { return id }
        guard let id = try remote.call("nowPlaying.get")["session"]?.stringValue else { return nil }
        let kind = try remote.call("session.get", ["session": .string(id)])["kind"]?.stringValue
        return kind == "mpv" ? id : nil
    }

    /// Calls `method` with `params` (plus `session` when there is one); errors become one line
    /// that starts with `verb`.
    static func call(_ remote: HostLink, verb: String, _ method: String, session: String?,
                     _ params: [String: JSON] = [:]) throws -> JSON {
        var p = params
        if let session { p["session"] = .string(session) }
        do throws(ClientError) { return try remote.client.call(method, p) } catch {
            guard case .rpc(let e) = error else { throw HostLink.failure(error) }
            if e.code == RPCErrorCode.methodNotFound.rawValue {
                throw Failure("\(verb): the daemon has no mpv sessions (is mpv installed where playerhostd runs?)")
            }
            if e.code == RPCErrorCode.invalidArgument.rawValue, let count = e.data?["count"]?.intValue,
               let index = e.data?["index"]?.intValue {
                let whose = session.map { " of \($0)" } ?? ""
                throw Failure(count == 0 ? "\(verb): the queue\(whose) is empty"
                              : "\(verb): no item \(index + 1) in the queue\(whose) (it has \(count))")
            }
            if e.code == RPCErrorCode.sessionNotFound.rawValue { throw Failure("\(verb): \(e.message)") }
            throw HostLink.failure(error)
        }
    }

    /// A position as the user gave it (1-based) on the wire (0-based), refusing 0 and below.
    static func index(_ position: Int, verb: String) throws -> JSON {
        guard position >= 1 else { throw Failure("\(verb): positions count from 1, as npctl queue prints them", code: 2) }
        return .int(Int64(position - 1))
    }

    /// Prints `result` with `--json`; nothing otherwise (success is silent, as in playerctl).
    static func finish(_ result: JSON, _ global: GlobalOptions) {
        if global.json { print(JSONPretty.format(result)) }
    }
}
