import Logging
import PlayerHostBase
import PlayerHostClient
import PlayerHostConfig
import PlayerHostPlugin
import PlayerHostRPC

/// A whole host in memory, for tests and in-process sinks: a `HostCore` on a `ManualScheduler`,
/// with connections as byte pipes (each an `RPCConnection` fed and drained without a socket).
/// No file system, socket, signal, D-Bus or process: no state file, no user config or cache.
///
/// Like swift-nio's `EmbeddedEventLoop`, nothing runs on its own: `runUntilIdle()` does the work
/// queued for later turns and the timers already due; `advance(byMilliseconds:)` moves time. An
/// `EmbeddedClient` waiting for a reply does both, up to its timeout in the host's time, so a
/// test that waited on a real daemon for a 200 ms command timeout waits no real time at all.
///
/// Built-in plugins attach as in the daemon (`attach(_:)`: each on its own in-memory connection
/// into the core), and run on the same manual time; one that needs the daemon's loop (mpv's
/// processes, the bus, a listening socket) finds none and stays off.
///
/// What it does not have: the control server's transport (fairness per turn, back-pressure, the
/// output budget and stall cut-offs are `ClientConnection`'s, tested over a real socket), MPRIS,
/// artwork and the state file.
public final class EmbeddedHost: ConnectionDirectory {
    public let scheduler: ManualScheduler
    public let core: HostCore
    private var open: [Int: EmbeddedClient] = [:]
    private var nextID = 1
    public private(set) var isClosed = false

    /// An empty host with `config` applied (as the daemon applies its file at start).
    public init(config: HostConfig = HostConfig(), limits: RPCLimits = RPCLimits(),
                logger: Logger = Logger(label: "embedded-host")) {
        scheduler = ManualScheduler()
        core = HostCore(scheduler: scheduler, logger: logger, limits: limits)
        core.registerMethods(otherMethods: [Self.mprisGet(core)])
        core.extraStats = { [scheduler] in ["timersArmed": .int(Int64(scheduler.armedTimerCount))] }
        core.connections = self
        core.apply(config)
    }

    /// A host with the configuration file's text applied (TOML, as `playerhostd --config` reads).
    public convenience init(configTOML: String, limits: RPCLimits = RPCLimits()) throws(ConfigError) {
        self.init(config: try HostConfig.parse(configTOML, source: "embedded.toml"), limits: limits)
    }

    /// `mpris.get` with no bus: the Now Playing value, as the daemon answers before its bridge exists.
    private static func mprisGet(_ core: HostCore) -> RPCMethod {
        .sync("mpris.get", summary: "What the MPRIS export would show (no bus here: the Now Playing value).",
              params: [ModelParams.language], result: .object) { [weak core] call throws(RPCError) in
            guard let core else { throw RPCError(.shuttingDown, "the host is shutting down") }
            return core.nowPlaying.publisher.nowPlayingJSON(language: try call.params.optionalString("lang"))
        }
    }

    /// Attaches built-in plugins (as the daemon attaches its compiled-in ones) and runs until
    /// their set-up calls are answered: the clock-sessions plugin's configured sessions exist
    /// when this returns, as they do when the daemon says it is ready.
    public func attach(_ plugins: [SessionPlugin]) {
        core.attach(plugins)
        runUntilIdle()
    }

    // MARK: - Connections

    /// A new client connection (as if it connected to the socket); `.closed` once the host is.
    public func client(timeout: Double = 10) throws(ClientError) -> EmbeddedClient {
        guard !isClosed else { throw .closed }
        let id = nextID
        nextID += 1
        let rpc = RPCConnection(id: id, dispatcher: core.dispatcher)
        rpc.scheduler = scheduler
        let client = EmbeddedClient(host: self, rpc: rpc, timeout: timeout)
        open[id] = client
        rpc.onOutput = { [weak client] in client?.takeOutput() }
        return client
    }

    public func connection(id: Int) -> RPCConnection? { open[id]?.rpc }

    public var connectionCount: Int { open.count }

    /// Open connections, oldest first.
    public var clients: [EmbeddedClient] { open.keys.sorted().compactMap { open[$0] } }

    /// The client end went away: the host sees it on its next turn, as it sees a socket's end.
    func disconnected(_ client: EmbeddedClient) {
        scheduler.onNextTurn { [weak self] in self?.connectionClosed(client) }
    }

    /// As the control server does: out of the table, the host's requests to it failed, then
    /// the core told (its subscriptions, app, sessions and provided methods go).
    private func connectionClosed(_ client: EmbeddedClient) {
        guard open.removeValue(forKey: client.rpc.id) != nil else { return }
        client.rpc.close()
        client.rpc.failAllOutgoing(reason: "the client disconnected")
        core.connectionClosed(client.rpc)
    }

    // MARK: - Time

    /// Runs what is queued for later turns and every timer due by now, until none is left.
    public func runUntilIdle() {
        scheduler.advance(byMilliseconds: 0)
    }

    /// Moves the host's time forward, firing the timers due on the way.
    public func advance(byMilliseconds milliseconds: UInt64) {
        scheduler.advance(byMilliseconds: milliseconds)
    }

    /// Applies a new configuration, as a reload does (what changed, and what needs a restart).
    @discardableResult
    public func reload(_ config: HostConfig) -> HostCore.Changes {
        let changes = core.apply(config)
        runUntilIdle()
        return changes
    }

    /// Applies a configuration file's text (TOML), as the daemon's reload (`host.reload`,
    /// SIGHUP) applies its re-read file through the same `HostCore.apply`: what changed, and what
    /// needs a restart. A text with an error throws and changes nothing, as such a file leaves
    /// the daemon's configuration as it was. The daemon's own parts (log level, plugins, MPRIS,
    /// artwork, the state file) are not here, so their keys are not in the changes.
    @discardableResult
    public func reload(configTOML: String) throws(ConfigError) -> HostCore.Changes {
        reload(try HostConfig.parse(configTOML, source: "embedded.toml"))
    }

    /// Closes every connection and stops the core; nothing runs after.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        for c in clients { c.close() }
        runUntilIdle()
        core.close()
        // The plugins' connections end on the next turn (the core forgets them), as the
        // daemon's loop runs dry after its core closes.
        runUntilIdle()
        scheduler.close()
    }
}
