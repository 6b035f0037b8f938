/// Protocol limits; every one bounds what a single client can make the host hold.
public struct RPCLimits: Sendable, Equatable {
    /// Longest line (one JSON-RPC message or batch), in bytes. Over it: an error, then close.
    public var maxLineBytes = 1 << 20
    /// Most entries in one batch.
    public var maxBatch = 1024
    /// Deepest JSON nesting accepted.
    public var maxDepth = 128
    /// Most reply bytes queued for one client; a client that stops reading is cut off past it.
    public var maxOutputBytes = 8 << 20
    /// Most simultaneous connections.
    public var maxConnections = 256

    public init() {}
}
