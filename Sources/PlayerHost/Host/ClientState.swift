import PlayerHostRPC

/// What the host knows about one connected client.
public final class ClientState {
    /// The name given in `host.hello`; nil until then (the connection is not an app).
    public var appName: String?
    /// Event topics the client subscribed to.
    public var topics: Set<String> = []

    public init() {}
}

extension RPCConnection {
    /// The host's state for this connection (created on connect).
    public var client: ClientState {
        if let s = context as? ClientState { return s }
        let s = ClientState()
        context = s
        return s
    }
}
