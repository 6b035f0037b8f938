import PlayerHostBase

/// A call the host must make to an out-of-process command target.
///
/// The host sends `toJSON()` as the params of a `command.handle` request to `client`, waits for
/// its status (with its own timeout), then calls `NowPlayingModel.resumeCommand(_:status:now:)`.
/// No answer in time, a malformed answer, or a disconnected client → `.commandFailed`.
public struct ExternalInvocation: Sendable, Hashable {
    /// The dispatch this call belongs to.
    public let dispatchID: UInt64
    public let client: ClientID
    public let token: Int
    public let session: SessionID
    public let event: CommandEvent
}

/// A command on its way through its targets, in order.
///
/// Built-in targets run inside the model; at each external target the dispatch stops and
/// `awaiting` names the call to make. The host keeps the value until the answer comes back.
/// Targets are those present when the command was sent; one removed meanwhile is skipped.
public struct CommandDispatch: Sendable, Hashable {
    public let id: UInt64
    public let session: SessionID
    public let event: CommandEvent
    let targets: [CommandTarget]
    var nextTarget = 0
    /// One status per target that ran, in order.
    public internal(set) var statuses: [CommandStatus] = []
    /// The external call the dispatch waits for, if any.
    public internal(set) var awaiting: ExternalInvocation?

    public var command: RemoteCommandKind { event.command }

    /// Every out-of-process call this dispatch will still wait for (the one it awaits first), in
    /// target order: the host asks them all at once and feeds the answers back in order, so the
    /// whole command waits about one timeout however many targets are silent.
    public var pendingExternalCalls: [ExternalInvocation] {
        let from = awaiting == nil ? nextTarget : nextTarget - 1
        return targets[min(from, targets.count)...].compactMap { target in
            guard case .external(let client) = target.handler else { return nil }
            return ExternalInvocation(dispatchID: id, client: client, token: target.token, session: session, event: event)
        }
    }

    /// The first non-success status, else success.
    public var status: CommandStatus { statuses.first { $0 != .success } ?? .success }
}

/// Where a sent command stands.
public enum CommandProgress: Sendable, Hashable {
    /// Every target ran.
    case finished(CommandOutcome)
    /// Waiting for `dispatch.awaiting`: the caller sends it (`CommandRun`) and answers with `resumeCommand`.
    case awaiting(CommandDispatch)
}

/// The result of a command: `{session, status}` on the wire.
public struct CommandOutcome: Sendable, Hashable {
    public let session: SessionID
    public let command: RemoteCommandKind
    public let status: CommandStatus
    /// Per target, in order.
    public let statuses: [CommandStatus]
    /// Why the command failed before any target ran (a refused re-activation), if it did.
    public var reason: String? = nil
}
