import PlayerHostBase
import PlayerHostRPC

/// The blocking JSON-RPC client's logic, whatever carries the bytes: `ControlClient` (the
/// control socket) and `EmbeddedClient` (an embedded host's in-memory pipe) supply `send` and
/// `readMessage` and share the rest — matching a reply to its call, keeping notifications that
/// arrive meanwhile, and answering the host's requests with `requestHandler`.
public protocol RPCClientEndpoint: AnyObject {
    /// Seconds to wait for any one reply.
    var timeout: Double { get set }
    /// Notifications received so far (oldest first).
    var notifications: [JSON] { get set }
    /// Answers requests the host sends (e.g. `command.handle`); unset → method not found.
    var requestHandler: ((String, JSON) -> Result<JSON, RPCError>)? { get }
    /// Writes bytes to the host.
    func send(_ bytes: [UInt8]) throws(ClientError)
    /// The next message from the host, within `timeout`.
    func readMessage() throws(ClientError) -> JSON
    /// Calls `method` with params by name (an object) or by position (an array).
    func call(_ method: String, params: JSON) throws(ClientError) -> JSON
}

extension RPCClientEndpoint {
    /// Calls `method` and returns its result, or throws the host's error as `.rpc`.
    @discardableResult
    public func call(_ method: String, _ params: [String: JSON] = [:]) throws(ClientError) -> JSON {
        try call(method, params: .object(params))
    }

    /// Sends the request `line` (whose id is `id`) and returns its result, or throws the host's
    /// error as `.rpc`; notifications and host requests that come first are handled on the way.
    public func exchange(_ line: [UInt8], id: Int64) throws(ClientError) -> JSON {
        try send(line)
        while true {
            let message = try readMessage()
            if case .object(let o) = message, o["method"] == nil {
                // An error with a null id answers a request the host could not read (a line
                // over its limit): with one call outstanding, it is this call's.
                let unread = o["id"] == .null && o["error"] != nil
                guard o["id"] == .int(id) || unread else { continue }  // a stale reply: skip
                if let e = o["error"] {
                    throw .rpc(RPCError(code: e["code"]?.intValue ?? -32603,
                                        message: e["message"]?.stringValue ?? "error", data: e["data"]))
                }
                return o["result"] ?? .null
            }
            try handleIncoming(message)
        }
    }

    /// Sends a notification (no reply).
    public func notify(_ method: String, _ params: [String: JSON] = [:]) throws(ClientError) {
        var line: [UInt8] = []
        RPCEncoder.notification(method: method, params: .object(params), into: &line)
        try send(line)
    }

    /// Waits for the next notification (returning queued ones first), answering host requests.
    public func nextNotification(timeout: Double? = nil) throws(ClientError) -> JSON {
        if !notifications.isEmpty { return notifications.removeFirst() }
        let saved = self.timeout
        if let timeout { self.timeout = timeout }
        defer { self.timeout = saved }
        while true {
            let message = try readMessage()
            try handleIncoming(message)
            if !notifications.isEmpty { return notifications.removeFirst() }
        }
    }

    /// A notification is kept; a request is answered by `requestHandler`.
    private func handleIncoming(_ message: JSON) throws(ClientError) {
        guard case .object(let o) = message, case .string(let method)? = o["method"] else { return }
        guard let rid = o["id"] else {
            notifications.append(message)
            return
        }
        let result = requestHandler?(method, o["params"] ?? .null) ?? .failure(.methodNotFound(method))
        var line: [UInt8] = []
        RPCEncoder.writeReply(id: rid, result, into: &line)
        try send(line)
    }
}
