import PlayerHostBase

/// The JSON Schema type of a parameter or result, as `rpc.discover` reports it.
public enum RPCType: String, Sendable {
    case string, number, integer, boolean, object, array, any, null

    var schema: JSON {
        self == .any ? .object([:]) : .object(["type": .string(rawValue)])
    }
}

/// One by-name parameter of a method.
public struct RPCParamSpec: Sendable {
    public var name: String
    public var type: RPCType
    public var required: Bool
    public var summary: String

    public init(_ name: String, _ type: RPCType, required: Bool = false, _ summary: String = "") {
        self.name = name
        self.type = type
        self.required = required
        self.summary = summary
    }

    /// A required parameter.
    public static func required(_ name: String, _ type: RPCType, _ summary: String = "") -> RPCParamSpec {
        RPCParamSpec(name, type, required: true, summary)
    }
    /// An optional parameter.
    public static func optional(_ name: String, _ type: RPCType, _ summary: String = "") -> RPCParamSpec {
        RPCParamSpec(name, type, required: false, summary)
    }
}

/// What a handler produced: a value now, or a promise the handler completes later (for example
/// when an out-of-process command target must answer first). Replies stay in request order.
public enum RPCOutcome {
    case result(JSON)
    case deferred(RPCPromise)
}

/// A reply that will be known later. Complete it exactly once, on the loop thread.
public final class RPCPromise {
    var completion: ((Result<JSON, RPCError>) -> Void)?
    private var early: Result<JSON, RPCError>?

    public init() {}

    /// Delivers the reply. Later calls are ignored.
    public func complete(_ result: Result<JSON, RPCError>) {
        if let completion {
            self.completion = nil
            completion(result)
        } else if early == nil {
            early = result
        }
    }

    package func onComplete(_ body: @escaping (Result<JSON, RPCError>) -> Void) {
        if let early {
            self.early = nil
            body(early)
        } else {
            completion = body
        }
    }
}

/// What a handler is given: its parameters and the connection the request came in on.
public struct RPCCall {
    public let method: String
    public let params: RPCParams
    /// The connection, for per-client state (`RPCConnection.context`) and for sending it
    /// notifications or requests. Strong: a handler may keep the call past the connection's close.
    public let connection: RPCConnection
}

/// A method of the protocol: its name, documentation and handler. The dispatcher and
/// `rpc.discover` read the same value, so the published document cannot drift from behaviour.
public struct RPCMethod {
    public typealias Handler = (RPCCall) throws(RPCError) -> RPCOutcome

    public var name: String
    public var summary: String
    public var params: [RPCParamSpec]
    public var result: RPCType
    public var resultSummary: String
    /// Accept parameters beyond `params` (payloads whose keys vary, such as events). The
    /// declared ones are still type-checked.
    public var acceptsOtherParams = false
    public var handler: Handler

    public init(
        _ name: String, summary: String, params: [RPCParamSpec] = [],
        result: RPCType = .any, resultSummary: String = "",
        handler: @escaping Handler
    ) {
        self.name = name
        self.summary = summary
        self.params = params
        self.result = result
        self.resultSummary = resultSummary
        self.handler = handler
    }

    /// A method whose handler answers at once.
    public static func sync(
        _ name: String, summary: String, params: [RPCParamSpec] = [],
        result: RPCType = .any, resultSummary: String = "",
        _ body: @escaping (RPCCall) throws(RPCError) -> JSON
    ) -> RPCMethod {
        RPCMethod(name, summary: summary, params: params, result: result, resultSummary: resultSummary) {
            (call: RPCCall) throws(RPCError) -> RPCOutcome in .result(try body(call))
        }
    }

    /// Checks names and types of the given parameters against the spec, so every method rejects
    /// a typo'd or mistyped parameter the same way before its handler runs.
    func validate(_ given: [String: JSON]) throws(RPCError) {
        for (key, value) in given {
            guard let spec = params.first(where: { $0.name == key }) else {
                if acceptsOtherParams { continue }
                let known = params.map(\.name).joined(separator: ", ")
                throw RPCError.invalidParams(
                    "unknown parameter '\(key)' for \(name)" + (known.isEmpty ? " (it takes none)" : " (known: \(known))"),
                    param: key)
            }
            if value.isNull { continue }
            let ok: Bool
            switch (spec.type, value) {
            case (.any, _), (.string, .string), (.boolean, .bool), (.object, .object), (.array, .array),
                 (.number, .int), (.number, .double), (.integer, .int):
                ok = true
            case (.integer, .double(let d)):
                ok = d.rounded() == d
            default:
                ok = false
            }
            if !ok {
                throw RPCError.invalidParams("'\(key)' must be of type \(spec.type.rawValue)", param: key)
            }
        }
        for spec in params where spec.required {
            if given[spec.name] == nil || given[spec.name]!.isNull {
                throw RPCError.invalidParams("missing required parameter '\(spec.name)' for \(name)", param: spec.name)
            }
        }
    }
}
