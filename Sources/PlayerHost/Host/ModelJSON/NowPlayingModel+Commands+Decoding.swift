import PlayerHostBase
import PlayerHostModel

// `command.send`'s and `command.configure`'s wire objects decoded into the model's typed
// `CommandPayload` and `CommandConfigurationPatch`, beside their encoders: the model never reads
// JSON (DESIGN "Layers"). The errors are the protocol's (codes, messages and data the protocol
// tests assert); the checks run in the order the wire's were always checked, and the model
// checks the values again (a typed caller gets the same refusals).

extension NowPlayingModel {
    /// `command.send` with the wire's payload: the refusals that do not depend on the payload
    /// first (as always), then the payload decoded, then the typed `sendCommand`.
    public mutating func sendCommand(_ command: RemoteCommandKind, session: SessionID? = nil, payload: [String: JSON],
                                     now: MonotonicInstant) throws -> ModelResult<CommandProgress> {
        _ = try sendable(command, session: session)
        let typed = try CommandPayload(json: payload, for: command)
        return try sendCommand(command, session: session, payload: typed, now: now)
    }

    /// `command.configure` with the wire's properties: the session first (as always), then the
    /// properties decoded, then the typed `configureCommand`.
    public mutating func configureCommand(session id: SessionID, _ command: RemoteCommandKind, properties: [String: JSON],
                                          now: MonotonicInstant) throws -> ModelResult<RemoteCommand> {
        _ = try session(id)
        let patch = try CommandConfigurationPatch(json: properties, for: command)
        return try configureCommand(session: id, command, properties: patch, now: now)
    }
}
