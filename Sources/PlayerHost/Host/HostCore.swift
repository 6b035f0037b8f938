import Logging
import PlayerHostBase
import PlayerHostConfig
import PlayerHostModel
import PlayerHostPlugin
import PlayerHostRPC
import PlayerHostServer

/// Finds the open connections of a host by id: the control server's table in the daemon, the
/// embedded host's pipes in tests. The core asks it for the connection a `command.handle`, a
/// provided method's call or an event goes to.
public protocol ConnectionDirectory: AnyObject {
    /// The open connection with this id.
    func connection(id: Int) -> RPCConnection?
    /// Open client connections (a built-in plugin's is not one).
    var connectionCount: Int { get }
}

/// The control server's table is the daemon's directory.
extension ControlServer: ConnectionDirectory {}

/// The host with no I/O of its own: the Now Playing service (model, publisher, gate), the
/// dispatcher and its method table, provided methods and the built-in plugins on in-memory
/// connections (`PluginLink`). No socket, lock, signal, D-Bus, curl or state file; every timer
/// comes from `scheduler` (libuv's loop in `playerhostd`, a `ManualScheduler` in `EmbeddedHost`).
///
/// Its configuration has one path: a new core holds the empty configuration, and `apply(_:)`
/// takes it to the one given — at start (the daemon applies its file to the empty core) and on
/// every reload alike, so no key is read at start only.
public final class HostCore {
    public let scheduler: Scheduler
    public let logger: Logger
    public let dispatcher: RPCDispatcher
    /// The Now Playing model, run on the scheduler.
    public let nowPlaying: NowPlayingService
    let provided: ProvidedMethods
    /// The built-in plugins, each on a `PluginLink` into this core.
    private(set) lazy var inProcess: InProcessPlugins = {
        let plugins = InProcessPlugins(scheduler: scheduler) { [weak self] name in
            self?.openPluginLink(name) ?? .failure(RPCError(.shuttingDown, "the host is shutting down"))
        }
        plugins.log = { [logger] message in logger.warning("\(message)") }
        return plugins
    }()
    /// Built-in plugins' connections, by id (ids the server's count never reaches).
    private var links: [Int: PluginLink] = [:]
    private var nextLinkID = HostCore.firstLinkID
    static let firstLinkID = 1 << 40
    /// The protocol limits the command line gave (the config's fairness keys go over them).
    public let baseLimits: RPCLimits
    /// The configuration in effect (empty until the first `apply`).
    public private(set) var config = HostConfig()
    /// Where connections are found (weak: the directory owns them and outlives no host).
    public weak var connections: ConnectionDirectory?
    /// Something the state file keeps changed (the arbiter's pin): the daemon's state store
    /// writes it with its next write.
    var onStateChanged: (() -> Void)?
    /// `host.stats` entries of the parts around the core (the daemon's server, state file,
    /// MPRIS; the embedded host's timers).
    var extraStats: () -> [String: JSON] = { [:] }
    /// Scheduler time at creation, for `host.stats` uptime.
    let startedAt: UInt64
    public private(set) var isClosed = false
    /// `ProvidedMethods`' own limits: a key removed from the file goes back to them.
    private let providedDefaults: (methods: Int, pending: Int)

    /// An empty host: no sessions, the default configuration, `limits` from the command line.
    public init(scheduler: Scheduler, logger: Logger, limits: RPCLimits = RPCLimits()) {
        self.scheduler = scheduler
        self.logger = logger
        baseLimits = limits
        startedAt = scheduler.nowNanoseconds
        dispatcher = RPCDispatcher(limits: limits)
        nowPlaying = NowPlayingService(scheduler: scheduler, logger: logger)
        provided = ProvidedMethods(dispatcher: dispatcher, loop: scheduler)
        providedDefaults = (provided.maxPerConnection, provided.maxPendingPerCaller)
        wireConnections()
    }

    /// Registers the core's methods with those of the host around it, in the order
    /// `rpc.discover` lists them (docs/protocol.md is generated from it): the core's `host.*`,
    /// then `hostMethods` (the daemon's shutdown, doctor, plugin list), `rpc.discover`, the
    /// model's, `plugin.provide`, `otherMethods` (reload, MPRIS, artwork, plugin state), the
    /// arbiter's pin. Once.
    public func registerMethods(hostMethods: [RPCMethod] = [], otherMethods: [RPCMethod] = []) {
        dispatcher.table.register(HostMethods.core(core: self))
        dispatcher.table.register(hostMethods)
        dispatcher.table.register(HostMethods.discover(core: self))
        dispatcher.table.register(HostMethods.model(nowPlaying))
        dispatcher.table.register(provided.method)
        dispatcher.table.register(otherMethods)
        dispatcher.table.register(HostMethods.arbiter(core: self))
    }

    /// Seconds since the core was made, by its scheduler's clock.
    public var uptime: Double {
        let now = scheduler.nowNanoseconds
        return Double(now >= startedAt ? now - startedAt : 0) / 1e9
    }

    /// The open connection with this id: a built-in plugin's, or the directory's.
    public func connection(id: Int) -> RPCConnection? {
        links[id]?.rpc ?? connections?.connection(id: id)
    }

    private func wireConnections() {
        provided.connection = { [weak self] id in self?.connection(id: id) }
        nowPlaying.connection = { [weak self] id in self?.connection(id: Int(id)) }
        nowPlaying.publisher.subscribers.connection = { [weak self] id in self?.connection(id: Int(id)) }
    }

    // MARK: - Built-in plugins

    /// Attaches compiled-in plugins, each on its own connection into the core (`PluginLink`).
    /// Their calls run on the scheduler's later turns: the daemon runs its loop, an embedded
    /// host `runUntilIdle()`, until `pendingPluginCalls` is 0.
    public func attach(_ plugins: [SessionPlugin]) {
        for plugin in plugins { inProcess.attach(plugin) }
    }

    /// Calls built-in plugins sent that the core has not answered yet.
    public var pendingPluginCalls: Int { inProcess.pendingCalls }

    /// A fresh connection into the core for the plugin `name`, as a started context.
    private func openPluginLink(_ name: String) -> Result<PluginContext, RPCError> {
        guard !isClosed else { return .failure(RPCError(.shuttingDown, "the host is shutting down")) }
        let id = nextLinkID
        nextLinkID += 1
        let link = PluginLink(id: id, dispatcher: dispatcher, scheduler: scheduler) { [weak self] link in
            guard let self, self.links.removeValue(forKey: link.rpc.id) != nil else { return }
            self.connectionClosed(link.rpc)
        }
        links[id] = link
        let context = PluginContext(scheduler: scheduler, name: name, transport: link)
        do {
            try context.start()
        } catch {
            links[id] = nil
            return .failure(RPCError(.pluginFailure, "\(error)"))
        }
        return .success(context)
    }

    /// Cuts every built-in plugin's connection from the core's end, as the server cuts a client
    /// off (a failed write would): each plugin is detached, then attached again after its backoff.
    func cutPluginConnections() {
        for id in links.keys.sorted() { links[id]?.cut() }
    }

    /// A connection went away: its subscriptions, its app and sessions (the background-audio
    /// rule), the methods it provided.
    public func connectionClosed(_ rpc: RPCConnection) {
        logger.debug("client \(rpc.id) (\(rpc.client.appName ?? "anonymous")) disconnected")
        nowPlaying.publisher.subscribers.remove(connectionID: rpc.id)
        nowPlaying.clientDisconnected(ClientID(rpc.id))
        provided.connectionClosed(rpc.id)
    }

    // MARK: - Configuration

    /// Keys only a restart applies, with why (the reload names them rather than keep them
    /// silently). The daemon's own parts (the socket, the state directory, MPRIS on or off)
    /// are the whole list: everything the core reads applies at once.
    public static let restartOnlyKeys: [(key: String, differs: @Sendable (HostConfig, HostConfig) -> Bool)] = [
        ("socket", { $0.socket != $1.socket }),
        ("state_dir", { $0.stateDirectory != $1.stateDirectory }),
        ("mpris.enabled", { $0.mpris?.enabled != $1.mpris?.enabled }),
        ("mpris.import", { $0.mpris?.importPlayers != $1.mpris?.importPlayers }),
        ("mpris.interrupt_imported", { $0.mpris?.interruptImported != $1.mpris?.interruptImported }),
        ("mpris.ignore", { $0.mpris?.ignore != $1.mpris?.ignore }),
    ]

    /// What `apply` changed: the keys now in effect, and those that wait for a restart.
    public struct Changes: Sendable, Equatable {
        public var changed: [String] = []
        public var restartNeeded: [String] = []
        /// `[[session]]` ids the config made that the new one no longer lists, closed.
        public var sessionsRemoved: [String] = []
        public init() {}
    }

    /// Takes the core from the configuration in effect to `new`: the one path of start (from
    /// the empty configuration) and reload. Every key the core reads applies at once, to what
    /// is open too: command timeout, gate, model limits, provided methods' limits, subscriptions
    /// per client, the protocol's fairness and output keys, `[arbiter]`; sessions the config made
    /// and no longer lists are closed, and in-process plugins see `new` (the clock-sessions
    /// plugin creates the added ones).
    @discardableResult
    public func apply(_ new: HostConfig) -> Changes {
        let old = config
        var c = Changes()
        let newIDs = Set(new.sessions.map(\.id))
        for id in old.sessions.map(\.id) where !newIDs.contains(id) {
            // Only while the host owns it: a session that is gone, or an app's, is not ours to close.
            guard nowPlaying.model.sessions[id]?.app == NowPlayingModel.hostApp else { continue }
            do {
                try nowPlaying.perform { m, t in try m.closeSession(id, caller: .host, now: t) }
                c.sessionsRemoved.append(id)
            } catch {
                logger.warning("configuration: closing session \(id): \(error.message)")
            }
        }
        if old.commandTimeoutMilliseconds != new.commandTimeoutMilliseconds {
            nowPlaying.commandTimeoutMilliseconds = UInt64(max(new.commandTimeoutMilliseconds ?? 2000, 1))
            c.changed.append("command_timeout_ms")
        }
        if old.coalesceMilliseconds != new.coalesceMilliseconds || old.placeholders != new.placeholders {
            nowPlaying.publisher.configure(new.gateConfiguration)
            if old.coalesceMilliseconds != new.coalesceMilliseconds { c.changed.append("coalesce_ms") }
            if old.placeholders != new.placeholders { c.changed.append("placeholders") }
        }
        // What one client may claim: checked at the next claim (what is held stays).
        for (key, was, now) in [("max_sessions_per_app", old.maxSessionsPerApp, new.maxSessionsPerApp),
                                ("max_targets_per_command", old.maxTargetsPerCommand, new.maxTargetsPerCommand),
                                ("max_queue_items", old.maxQueueItems, new.maxQueueItems)] where was != now {
            c.changed.append(key)
        }
        nowPlaying.setLimits(new.modelLimits)
        if old.maxProvidedMethods != new.maxProvidedMethods {
            provided.maxPerConnection = new.maxProvidedMethods ?? providedDefaults.methods
            c.changed.append("max_provided_methods")
        }
        if old.maxPendingProvidedCalls != new.maxPendingProvidedCalls {
            provided.maxPendingPerCaller = new.maxPendingProvidedCalls ?? providedDefaults.pending
            c.changed.append("max_pending_provided_calls")
        }
        // The fairness knobs and the output budget apply to open connections at once (they read
        // the dispatcher's limits as they go).
        for ((key, was), (_, now)) in zip(old.limitKeys, new.limitKeys) where was != now { c.changed.append(key) }
        dispatcher.limits = new.rpcLimits(over: baseLimits)
        nowPlaying.publisher.subscribers.maxSubscriptions =
            new.maxSubscriptionsPerClient ?? RPCSubscribers.defaultMaxSubscriptions
        if old.arbiter != new.arbiter {
            applyArbiter(pinned: nowPlaying.model.policy.pinned, config: new)
            c.changed.append("arbiter")
        }
        for (key, differs) in Self.restartOnlyKeys where differs(old, new) { c.restartNeeded.append(key) }
        config = new
        inProcess.reload(new)
        return c
    }

    /// Gives the model the pin and `config`'s `[arbiter]` lists; a pin change is written to the
    /// state file with the next write.
    func applyArbiter(pinned: String?, config: HostConfig) {
        let policy = ArbiterPolicy(pinned: pinned, priority: config.arbiter?.priority ?? [], ignore: config.arbiter?.ignore ?? [])
        guard policy != nowPlaying.model.policy else { return }
        do {
            try nowPlaying.perform { m, t in m.setArbiterPolicy(policy, now: t) }
        } catch {
            logger.error("applying the arbiter's pin and [arbiter]: \(error.message)")
        }
        onStateChanged?()
    }

    /// Stops every timer for good (shutdown): plugins detached, the service closed.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        inProcess.detachAll()
        nowPlaying.close()  // after this no player timer is armed again
    }

    /// `host.stats` of the core, with the surrounding parts' entries over it.
    var statsJSON: JSON {
        let gate = nowPlaying.publisher.gate.counters
        var o: [String: JSON] = [
            "sessions": .int(Int64(nowPlaying.model.sessions.count)),
            "eventsPublished": .int(Int64(nowPlaying.eventsPublished)),
            "eventsOffered": .int(Int64(gate.offered)),
            "eventsSent": .int(Int64(gate.sent)),
            "eventsCoalesced": .int(Int64(gate.coalesced)),
            "eventsDroppedIdentical": .int(Int64(gate.droppedIdentical)),
            "placeholdersBlocked": .int(Int64(gate.placeholdersBlocked)),
            "connections": .int(Int64(connections?.connectionCount ?? 0)),
            "requestsServed": .int(Int64(dispatcher.requestsServed)),
            "uptime": .double((uptime * 1000).rounded() / 1000),
            "gateTimerArmed": .bool(nowPlaying.publisher.isWindowTimerArmed),
        ]
        for (k, v) in extraStats() { o[k] = v }
        return .object(o)
    }
}
