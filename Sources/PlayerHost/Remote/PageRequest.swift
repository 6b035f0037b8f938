import PlayerHostBase
import PlayerHostRPC

/// One message from the page, as the host call it becomes (pure). The page sends
/// `{"id": 7, "type": "command", "session": "main", "command": "pause"}` (with `position`, `rate`
/// or `volume` for the commands that take them) or `{"id": 8, "type": "promote", "session": "pip"}`;
/// every command goes through `command.send` — the session's command center, like a media key —
/// and promote through `session.becomeActiveIfPossible`.
public struct PageRequest: Sendable, Equatable {
    /// The page's id for the reply (echoed back).
    public var id: Int64
    public var method: String
    public var params: [String: JSON]

    /// The commands a page may send (what the page shows; the host may still refuse them).
    public static let commands: Set<String> = [
        "play", "pause", "stop", "togglePlayPause", "nextTrack", "previousTrack", "skipForward", "skipBackward",
        "changePlaybackPosition", "changePlaybackRate", "changeVolume",
    ]

    /// Why a message was refused (sent back in the reply).
    public struct Refusal: Error, Sendable, Equatable {
        public var id: Int64?
        public var message: String
    }

    /// Parses one message; a refusal names what is wrong.
    public static func parse(_ bytes: [UInt8]) -> Result<PageRequest, Refusal> {
        guard let json = try? JSONParser.parse(bytes, maxDepth: 4), let o = json.objectValue else {
            return .failure(Refusal(id: nil, message: "not a JSON object"))
        }
        let id = o["id"]?.intValue.map(Int64.init)
        func refuse(_ m: String) -> Result<PageRequest, Refusal> { .failure(Refusal(id: id, message: m)) }
        guard let id else { return refuse("no id") }
        var params: [String: JSON] = [:]
        if let s = o["session"] {
            guard let session = s.stringValue, !session.isEmpty, session.utf8.count <= 256 else { return refuse("bad session") }
            params["session"] = .string(session)
        }
        switch o["type"]?.stringValue {
        case "command":
            guard let c = o["command"]?.stringValue, commands.contains(c) else { return refuse("unknown command") }
            params["command"] = .string(c)
            for key in ["position", "rate", "volume", "interval"] {
                guard let v = o[key] else { continue }
                guard let d = v.doubleValue, d.isFinite else { return refuse("\(key) must be a number") }
                params[key] = .double(d)
            }
            return .success(PageRequest(id: id, method: "command.send", params: params))
        case "promote":
            guard params["session"] != nil else { return refuse("promote needs a session") }
            return .success(PageRequest(id: id, method: "session.becomeActiveIfPossible", params: params))
        default:
            return refuse("unknown type")
        }
    }

    /// The reply for the page: `{type: reply, id, ok, message?}`. A command the host ran but
    /// whose target refused it (status ≠ success) is not ok, with the status as the reason.
    public static func reply(id: Int64, _ result: Result<JSON, RPCError>) -> String {
        var o: [String: JSON] = ["type": "reply", "id": .int(id)]
        switch result {
        case .success(let r):
            if let status = r["status"]?.stringValue, status != "success" {
                o["ok"] = false
                o["message"] = .string("refused: \(status)")
            } else if r["active"] == false {
                o["ok"] = false
                o["message"] = .string(r["reason"]?.stringValue ?? "not eligible")
            } else {
                o["ok"] = true
            }
        case .failure(let e):
            o["ok"] = false
            o["message"] = .string(e.message)
        }
        return JSON.object(o).jsonString
    }
}
