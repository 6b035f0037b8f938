import PlayerHostBase

/// What an operation returns: its value, the events to publish and the host's actions.
public struct ModelResult<Value: Sendable>: Sendable {
    public var value: Value
    public var events: [ModelEvent]
    public var actions: [HostAction]
}

extension ModelResult: Equatable where Value: Equatable {}
