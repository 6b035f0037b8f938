import PlayerHostBase

/// A JSON-RPC 2.0 error object: what a caller gets back when a request fails.
public struct RPCError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: Int
    public var message: String
    public var data: JSON?

    public init(code: Int, message: String, data: JSON? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public init(_ code: RPCErrorCode, _ message: String, data: JSON? = nil) {
        self.init(code: code.rawValue, message: message, data: data)
    }

    public var description: String { "\(message) (\(code))" }

    /// The error as the wire's `error` member.
    public var json: JSON {
        var o: [String: JSON] = ["code": .int(Int64(code)), "message": .string(message)]
        if let data { o["data"] = data }
        return .object(o)
    }

    public static func parseError(_ detail: String) -> RPCError {
        RPCError(.parseError, "Parse error: \(detail)")
    }
    public static func invalidRequest(_ detail: String) -> RPCError {
        RPCError(.invalidRequest, "Invalid Request: \(detail)")
    }
    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(.methodNotFound, "Method not found: \(method)", data: ["method": .string(method)])
    }
    public static func invalidParams(_ detail: String, param: String? = nil) -> RPCError {
        RPCError(.invalidParams, "Invalid params: \(detail)", data: param.map { ["param": .string($0)] })
    }
    public static func internalError(_ detail: String) -> RPCError {
        RPCError(.internalError, "Internal error: \(detail)")
    }
    public static func limitExceeded(_ what: String, limit: Int, actual: Int? = nil) -> RPCError {
        var data: [String: JSON] = ["limit": .int(Int64(limit))]
        if let actual { data["actual"] = .int(Int64(actual)) }
        return RPCError(.limitExceeded, "Limit exceeded: \(what) (limit \(limit))", data: .object(data))
    }
}
