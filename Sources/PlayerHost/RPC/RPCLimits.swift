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
    /// Most requests (lines) one connection has served per loop turn; the rest waits its turn
    /// while the others are served (round robin), so one busy client cannot starve another.
    public var requestsPerTurn = 32
    /// Unsent reply bytes above which a connection is not read until the client takes them
    /// (back-pressure): a client that does not read costs nothing more. Capped at half the
    /// output limit.
    public var outputHighWaterBytes = 1 << 20

    /// How long a held-back client may take none of its output before it is cut off (redis's
    /// soft output-buffer limit): a client that does not read is held, then let go.
    public var maxStallMilliseconds: UInt64 = 5000

    /// Most unsent output of all client connections together (config `max_total_output_mb`).
    /// Over it, the slowest clients are cut off first until the total is back under it. The
    /// per-connection limit alone lets 100 stalled subscribers hold 100 × `maxOutputBytes`; this
    /// is what keeps the daemon's memory bounded whatever the number of clients (32 MiB: with
    /// the per-write bookkeeping, 100 stalled subscribers stay within +64 MiB of RSS).
    public var maxTotalOutputBytes = 32 << 20

    /// The high-water mark in effect.
    public var effectiveHighWater: Int { max(1, min(outputHighWaterBytes, maxOutputBytes / 2)) }

    public init() {}
}
