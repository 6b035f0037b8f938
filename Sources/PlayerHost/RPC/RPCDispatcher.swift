import PlayerHostBase

/// Validates JSON-RPC 2.0 request objects and runs their methods. Shared by every connection of a
/// server; it holds the method table, the limits and the counters `host.stats` reports.
public final class RPCDispatcher {
    /// The outcome of one request object.
    enum ItemResult {
        /// A notification: nothing is sent, whatever happened.
        case none
        case reply(id: RequestID, Result<JSON, RPCError>)
        case pending(id: RequestID, RPCPromise)
    }

    // `@exclusivity(unchecked)` below: read for every request, and no access spans a call that
    // could reach the same property (a handler runs after `table.method(named:)` returned); why
    // that matters in `RPCConnection`'s comment.
    @exclusivity(unchecked) public var table: MethodTable
    /// The limits in effect; a configuration reload may change the fairness knobs and the output
    /// budget (connections read them as they go).
    @exclusivity(unchecked) public package(set) var limits: RPCLimits
    /// Requests (and notifications) from clients that reached a method handler (in-process
    /// plugins' own calls are not counted).
    @exclusivity(unchecked) public internal(set) var requestsServed = 0
    /// Lines that parsed as JSON.
    @exclusivity(unchecked) public internal(set) var linesReceived = 0

    public init(table: MethodTable = MethodTable(), limits: RPCLimits = RPCLimits()) {
        self.table = table
        self.limits = limits
    }

    /// A parsed request object; `idText` is its id's text as sent (`RequestID.texts`), needed
    /// only when `RequestID.needsText` says so.
    func handle(_ value: JSON, idText: [UInt8]? = nil, connection: RPCConnection) -> ItemResult {
        guard case .object(let o) = value else {
            return .reply(id: .null, .failure(.invalidRequest("a request must be a JSON object")))
        }
        var envelope = RequestEnvelope(members: o)
        envelope.idText = idText
        return handle(envelope, connection: connection)
    }

    /// A request object, by the members that matter (from a parsed object or the fast scanner).
    func handle(_ envelope: RequestEnvelope, connection: RPCConnection) -> ItemResult {
        let rawID = envelope.id
        let version = envelope.version
        let methodMember = envelope.method
        let paramsMember = envelope.params
        // The id first: if it is valid it is echoed even in an error reply.
        var id = RequestID.null
        if let rawID {
            switch rawID {
            case .string, .int, .null: id = RequestID(rawID)
            case .double: id = RequestID(rawID, text: envelope.idText)
            default:
                return .reply(id: .null, .failure(.invalidRequest("id must be a string, a number or null")))
            }
        }
        let isNotification = rawID == nil
        guard case .string("2.0")? = version else {
            return .reply(id: id, .failure(.invalidRequest("\"jsonrpc\" must be exactly \"2.0\"")))
        }
        guard case .string(let name)? = methodMember else {
            return .reply(id: id, .failure(.invalidRequest("\"method\" must be a string")))
        }
        let rawParams = paramsMember
        switch rawParams {
        case nil, .object?, .array?: break
        default:
            return .reply(id: id, .failure(.invalidRequest("params must be an object or an array")))
        }
        guard let method = table.method(named: name) else {
            return isNotification ? .none : .reply(id: id, .failure(.methodNotFound(name)))
        }
        let params: [String: JSON]
        switch rawParams {
        case .object(let p)?:
            params = p
        case .array(let a)?:
            // By position: the n-th value is the method's n-th declared parameter.
            guard a.count <= method.params.count else {
                return isNotification ? .none : .reply(id: id, .failure(.invalidParams(
                    "\(name) takes at most \(method.params.count) parameter(s), \(a.count) given")))
            }
            var p: [String: JSON] = [:]
            for (i, v) in a.enumerated() { p[method.params[i].name] = v }
            params = p
        default:
            params = [:]
        }
        let outcome: RPCOutcome
        do {
            if !params.isEmpty || !method.params.isEmpty { try method.validate(params) }
            if !connection.isInternal { requestsServed += 1 }
            outcome = try method.handler(RPCCall(method: name, params: RPCParams(params), connection: connection))
        } catch {
            return isNotification ? .none : .reply(id: id, .failure(error))
        }
        if isNotification { return .none }
        switch outcome {
        case .result(let r): return .reply(id: id, .success(r))
        case .deferred(let p): return .pending(id: id, p)
        }
    }
}
