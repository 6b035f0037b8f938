import PlayerHostModel
import PlayerHostRPC

/// Shared helpers for the model-backed methods.
enum ModelParams {
    /// Parses a wire enum parameter, or throws invalidArgument naming it.
    static func wireEnum<E: WireEnum>(_ type: E.Type, _ params: RPCParams, _ name: String) throws(RPCError) -> E? {
        guard let raw = try params.optionalString(name) else { return nil }
        return try wrap { try E.parse(raw, field: name) }
    }

    /// Runs a throwing model parse, mapping its error.
    static func wrap<T>(_ body: () throws -> T) throws(RPCError) -> T {
        do { return try body() } catch {
            throw .from(error) { RPCError(.invalidArgument, $0) }
        }
    }

    static func command(_ params: RPCParams) throws(RPCError) -> RemoteCommandKind {
        let name = try params.string("command")
        return try wrap { try RemoteCommandKind.parse(name) }
    }

    static func caller(_ call: RPCCall) -> Caller { .client(ClientID(call.connection.id)) }

    /// Configuring a session is for the app that owns it (`notOwner`, 1060, with the owner in
    /// `data`); sending commands, promoting and reading are open to all. Checked before the
    /// operation runs, so a refused call changes nothing.
    static func requireOwner(_ np: NowPlayingService, _ call: RPCCall, _ id: SessionID) throws(RPCError) {
        try np.read { m, _ in try m.requireOwner(try m.session(id), caller(call)) }
    }

    static let session = RPCParamSpec.required("session", .string, "session id")
    static let optionalSession = RPCParamSpec.optional("session", .string, "session id (default: the Now Playing session)")
    static let player = RPCParamSpec.optional("player", .integer, "player index (default 0)")
    static let language = RPCParamSpec.optional("lang", .string, "preferred language tag for localized values")
}

extension HostMethods {
    /// Every model-backed method, by namespace.
    static func model(_ np: NowPlayingService) -> [RPCMethod] {
        var all: [RPCMethod] = []
        all += sessionMethods(np)
        all += audioMethods(np)
        all += playerMethods(np)
        all += commandMethods(np)
        all += infoMethods(np)
        all += arbiterMethods(np)
        all += eventMethods(np)
        return all
    }
}

extension RPCError {
    /// The protocol error for whatever a model operation threw: a `ModelError` keeps its code
    /// (the two share one table), an `RPCError` passes as is, anything else becomes `fallback`.
    static func from(_ error: any Error, fallback: (String) -> RPCError) -> RPCError {
        switch error {
        case let e as ModelError: return RPCError(code: e.code.rawValue, message: e.message, data: e.detail?.toJSON())
        case let e as RPCError: return e
        default: return fallback("\(error)")
        }
    }
}
