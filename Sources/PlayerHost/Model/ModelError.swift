import PlayerHostBase

/// The one error every model operation throws.
///
/// `code` values are stable application codes; the JSON-RPC layer sends them unchanged as
/// `error.code`, with `message` and `detail` as `error.message` / `error.data`. A throwing
/// operation never changes the model (operations run on a draft that is dropped on error).
public struct ModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable application error codes: the protocol's own table, so the two cannot drift.
    public typealias Code = RPCErrorCode

    /// The stable application code.
    public var code: Code
    /// A human sentence naming what was wrong.
    public var message: String
    /// Structured detail (e.g. `{"session": "pip"}`), sent as JSON-RPC `data`.
    public var detail: JSON?

    public init(_ code: Code, _ message: String, detail: JSON? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
    }

    public var description: String { "\(code.name) (\(code.rawValue)): \(message)" }
}

extension ModelError {
    package static func sessionNotFound(_ id: String) -> ModelError {
        ModelError(.sessionNotFound, "no session '\(id)'", detail: ["session": .string(id)])
    }

    package static func invalid(_ message: String, _ detail: JSON? = nil) -> ModelError {
        ModelError(.invalidArgument, message, detail: detail)
    }

    static func state(_ message: String, _ detail: JSON? = nil) -> ModelError {
        ModelError(.invalidState, message, detail: detail)
    }

    package static func info(_ message: String, key: String? = nil) -> ModelError {
        ModelError(.invalidInfo, message, detail: key.map { ["key": .string($0)] })
    }
}
