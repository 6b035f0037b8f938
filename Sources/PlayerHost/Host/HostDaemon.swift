import Glibc
import Logging
import PlayerHostBase
import PlayerHostClient
import PlayerHostConfig
import PlayerHostLoop
import PlayerHostModel
import PlayerHostPlugin
import PlayerHostRemote
import PlayerHostRPC
import PlayerHostServer

/// The daemon: a `HostCore` on one libuv loop, and the I/O parts around it — the control server
/// and its lock, signal handling, the MPRIS export, artwork, the state file, supervised plugins —
/// started in order and shut down in reverse. `run()` blocks until the host has shut down and
/// every handle is closed.
///
/// Configuration has one path: `init` applies the file to the empty core (`HostCore.apply`), each
/// part takes its keys from the same config when it starts, and a reload applies the new file
/// through the same functions (`applyParts`), naming the keys only a restart applies.
public final class HostDaemon {
    public let loop: EventLoop
    public let options: HostOptions
    public let logger: Logger
    /// The host without I/O: service, publisher, dispatcher, provided methods, built-ins.
    public let core: HostCore
    public var dispatcher: RPCDispatcher { core.dispatcher }
    /// The Now Playing model, run on the loop.
    public var nowPlaying: NowPlayingService { core.nowPlaying }
    public private(set) var server: ControlServer!
    private var lock: InstanceLock?
    private var signals: [SignalWatcher] = []
    public private(set) var isShuttingDown = false
    /// How long shutdown waits for clients to take their last replies.
    public var shutdownGraceMilliseconds: UInt64 = 2000
    /// Compiled-in plugins to attach at start (playerhostd passes `BuiltinPlugins.all`).
    public var plugins: [SessionPlugin] = []
    var inProcess: InProcessPlugins { core.inProcess }
    var provided: ProvidedMethods { core.provided }
    public internal(set) var supervisor: PluginSupervisor?
    /// Saved sessions (state.json) and configuration reloads (SIGHUP, `host.reload`).
    public internal(set) var state: StateStore?
    public internal(set) var reloader: ConfigReloader?
    /// Sets the log level a reload's `log_level` asks for (the logging backend belongs to the
    /// executable, which sets the start's level itself; nil: a reload leaves the level alone).
    public var applyLogLevel: ((Logger.Level) -> Void)?
    /// The MPRIS2 export of the Now Playing session (see `MPRISBridge`).
    public private(set) var mpris: MPRISBridge?
    /// Resolves sessions' artwork (nil when its cache directory cannot be made).
    public private(set) var artwork: ArtworkResolver?
    /// Why the daemon stopped on its own: its lock file (its runtime directory) went away.
    public private(set) var lostLock: String?

    public init(options: HostOptions, logger: Logger) throws(HostError) {
        self.options = options
        self.logger = logger
        do { loop = try EventLoop() } catch { throw .loop(error) }
        core = HostCore(scheduler: loop, logger: logger, limits: options.limits)
        core.registerMethods(
            hostMethods: HostMethods.daemon(host: self),
            otherMethods: [ConfigReloader.method { [weak self] in self?.reloader }]
                + MPRISMethods.all(core: core) { [weak self] in self?.mpris }
                + HostMethods.artwork(core: core) { [weak self] in self?.artwork }
                + HostMethods.pluginState { [weak self] in self?.state })
        core.onStateChanged = { [weak self] in self?.state?.changed() }
        core.extraStats = { [weak self] in self?.daemonStats ?? [:] }
        // Start is "apply the config to the empty host": the path a reload takes too.
        core.apply(options.config)
    }

    /// `host.stats` entries of the daemon's parts.
    private var daemonStats: [String: JSON] {
        // What a part not (yet) running shows, under what the running ones report.
        var o: [String: JSON] = ["connectionsAccepted": 0, "connectionsRefused": 0, "server": .null,
                                 "state": .null, "mpris": ["status": "stopped"],
                                 "pid": .int(Int64(getpid())),
                                 "timersArmed": .int(Int64(loop.activeHandleTypes.filter { $0 == "timer" }.count))]
        for component in components {
            for (k, v) in component.stats { o[k] = v }
        }
        return o
    }

    /// Takes the lock, binds the socket, says ready, and runs the loop until shutdown completes.
    public func run() throws(HostError) {
        try start()
        loop.run()
        finish()
        // Not an orderly stop that was asked for: a non-zero status (EX_OSERR) says so.
        if let lostLock { throw .server(.lock(options.socketPath + ".lock", reason: lostLock)) }
    }

    /// The start half of `run`, for tests that drive the loop themselves.
    public func start() throws(HostError) {
        // A client that vanishes mid-write must not kill the daemon.
        signal(SIGPIPE, SIG_IGN)
        do {
            try SocketLocation.prepareDirectory(for: options.socketPath, isDefault: options.socketIsDefault)
            lock = try InstanceLock(socketPath: options.socketPath)
            server = ControlServer(loop: loop, dispatcher: dispatcher, path: options.socketPath, logger: logger)
            try server.start()
        } catch {
            lock?.release()
            lock = nil
            throw .server(error)
        }
        // Weak throughout: callbacks of handles may outlive the daemon object in tests.
        server.onDisconnect = { [weak core] rpc in core?.connectionClosed(rpc) }
        core.connections = server
        startArtwork()
        do {
            for sig in [SIGTERM, SIGINT] {
                let w = try SignalWatcher(loop: loop)
                try w.start(signal: sig) { [weak self] s in
                    self?.shutdown(reason: s == SIGTERM ? "SIGTERM" : "SIGINT")
                }
                signals.append(w)
            }
            let hup = try SignalWatcher(loop: loop)
            try hup.start(signal: SIGHUP) { [weak self] _ in self?.reloader?.reload(trigger: "SIGHUP") }
            signals.append(hup)
        } catch {
            throw .loop(error)
        }
        watchLock()
        let reloader = ConfigReloader(host: self)
        reloader.applyLogLevel = applyLogLevel
        self.reloader = reloader
        StateStore.attach(to: self)  // restores saved sessions before plugins set up theirs
        startMPRIS()
        // Signals first: starting plugins runs the loop, and a SIGTERM then must still shut down in order.
        startPlugins()
        guard !isShuttingDown else { return }
        logger.info("playerhostd \(HostVersion.string) listening on \(options.socketPath) (pid \(getpid()))")
        if let fd = options.readyFD {
            _ = write(fd, "R", 1)
            close(fd)
        }
        SystemdNotifier.notify("READY=1\nMAINPID=\(getpid())", socket: options.notifySocket)
    }

    /// Stops in order when the lock file goes (the runtime directory removed): another daemon
    /// can then start on the same socket path, and none can reach this one.
    private func watchLock() {
        do {
            try lock?.watch(loop: loop) { [weak self] in
                guard let self, !self.isShuttingDown else { return }
                let why = "it was removed while the daemon ran (its directory deleted?), so another daemon could start on \(self.options.socketPath) and none could reach this one"
                self.logger.error("the lock file \(self.lock?.path ?? "") \(why); stopping")
                self.lostLock = why
                self.shutdown(reason: "lock file removed")
            }
        } catch {
            logger.warning("cannot watch the lock file: \(error); a removed runtime directory goes unnoticed")
        }
    }

    private func startMPRIS() {
        let env = options.effectiveEnvironment
        let bridge = MPRISBridge(loop: loop, logger: logger, service: nowPlaying,
                                 address: DBusConnection.sessionBusAddress(environment: env),
                                 enabled: core.config.mpris?.enabled ?? true)
        applyAtStart(bridge)
        // D-Bus callers reach these: weak, never unowned.
        bridge.canOpen = { [weak self] in self?.provided.isProvided("mpv.open") ?? false }
        bridge.opener = { [weak self] uri in
            guard let self, let promise = try? self.provided.request("mpv.open", params: ["urls": [.string(uri)]]) else {
                return .failure(.notSupported("no player plugin can open URIs"))
            }
            promise.onComplete { [weak self] result in
                if case .failure(let e) = result { self?.logger.warning("MPRIS OpenUri \(uri): \(e.message)") }
            }
            return .success(())
        }
        nowPlaying.publisher.add(bridge)
        mpris = bridge
        bridge.start()
    }

    /// The artwork resolver: its cache, the decoder helper and fetch helpers (started on first use).
    private func startArtwork() {
        let config = core.config
        let directory = ArtworkCache.defaultDirectory(environment: options.effectiveEnvironment)
        do {
            let cache = try ArtworkCache(directory: directory, limitBytes: (config.artworkCacheMB ?? 64) << 20)
            let helper = ArtworkHelper(loop: loop, executable: ArtworkResolver.helperPath(), logger: logger)
            let resolver = ArtworkResolver(service: nowPlaying, cache: cache, helper: helper, logger: logger)
            applyAtStart(resolver)
            nowPlaying.publisher.add(resolver, topics: [.info, .sessions])
            artwork = resolver
        } catch {
            logger.error("artwork resolution is off: \(error)")
        }
    }

    private func startPlugins() {
        // The web remote (issue 25): a built-in client of the host, always there (off without
        // `[remote] listen`), so `npctl remote enable` needs no restart.
        do {
            let dir = StateStore.defaultDirectory(explicit: options.stateDirectory ?? options.config.stateDirectory,
                                                  environment: SocketLocation.currentEnvironment())
            plugins.append(RemoteService(config: options.config.remote ?? RemoteConfig(), stateDirectory: dir, configPath: options.configPath ?? HostConfig.defaultPath(environment: options.effectiveEnvironment), logger: logger))
        }
        for plugin in plugins { inProcess.attach(plugin, server: server, loop: loop) }
        for (name, error) in inProcess.failures { logger.error("plugin \(name) failed: \(error)") }
        // Built-ins set up the host's own sessions: let them finish before saying ready.
        var rounds = 0
        while inProcess.pendingCalls > 0 && rounds < 10_000 && !isShuttingDown {
            loop.run(.once)
            rounds += 1
        }
        // A SIGTERM while built-ins were setting up: start nothing more.
        guard !isShuttingDown else { return }
        let specs = Self.pluginSpecs(config: core.config, environment: options.effectiveEnvironment)
        guard !specs.isEmpty else { return }
        let sup = PluginSupervisor(loop: loop, socketPath: options.socketPath, logger: logger)
        supervisor = sup
        for spec in specs { sup.start(spec) }
    }

    /// The artwork keys over the resolver's defaults (at start and on reload alike).
    static func artworkLimits(_ config: HostConfig) -> ArtworkResolver.Limits {
        var l = ArtworkResolver.Limits()
        if let ms = config.artworkTimeoutMilliseconds { l.timeoutMilliseconds = ms }
        if let kb = config.artworkMaxKB { l.maxBytes = kb << 10 }
        if let mp = config.artworkMaxMegapixels { l.maxPixels = mp * 1_000_000 }
        return l
    }

    /// The daemon's I/O parts that take config keys and report stats, in start order.
    var components: [HostComponent] {
        var c: [HostComponent] = []
        if let server { c.append(server) }
        if let artwork { c.append(artwork) }
        if let state { c.append(state) }
        if let mpris { c.append(mpris) }
        return c
    }

    /// A part starting takes its keys as a reload would, from the empty configuration: start
    /// is "apply the config to an empty host", for the parts as for the core.
    func applyAtStart(_ component: HostComponent) {
        var changes = HostCore.Changes()
        component.apply(core.config, old: HostConfig(), changes: &changes)
    }

    /// A reload's keys for the daemon's own parts, after the core took its own (`HostCore.apply`):
    /// each part's `apply`, in start order. Each part took the same keys when it started.
    func applyParts(_ new: HostConfig, old: HostConfig, changes c: inout HostCore.Changes) {
        for component in components { component.apply(new, old: old, changes: &c) }
    }

    /// `plugin.list`: built-in and supervised plugins with their state.
    public var pluginList: JSON {
        .array(inProcess.listJSON + (supervisor?.listJSON ?? []))
    }

    /// Ordered shutdown: stop accepting, tell clients, run the shutdown steps, close every
    /// handle. The loop then runs dry and `run()` returns. Idempotent.
    public func shutdown(reason: String) {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        logger.info("shutting down: \(reason)")
        SystemdNotifier.notify("STOPPING=1", socket: options.notifySocket)
        state?.stop()  // exact positions, before plugins and clients go
        server.stopAccepting()
        for rpc in server.connections {
            rpc.notify(method: "event", params: ["topic": "host", "type": "shutdown", "reason": .string(reason)])
        }
        // Plugin processes first get SIGTERM, so they end rather than see the connection drop
        // and try to reconnect.
        supervisor?.stopAll()
        server.closeAll(reason: "host shutting down")
        // A client that never reads would hold its flush forever: past the deadline, cut it off.
        // Unreferenced, the timer never keeps the loop alive by itself.
        if let deadline = loop.makeTimer() {
            deadline.isReferenced = false
            deadline.start(after: shutdownGraceMilliseconds) { [weak self] in
                guard let self else { return }
                if self.server.connectionCount > 0 {
                    self.logger.warning("shutdown deadline: closing \(self.server.connectionCount) connection(s) that did not take their last replies")
                }
                self.server.closeAllNow(reason: "shutdown deadline")
                deadline.close()
            }
        }
        core.close()  // built-ins detached; after this no player timer is armed again
        mpris?.close()
        artwork?.close()
        for s in signals { s.close() }
        signals.removeAll()
        lock?.stopWatching()
    }

    /// After the loop ran dry: close it (asserting nothing is left) and drop the lock.
    func finish() {
        do { try loop.close() } catch { logger.error("closing the loop: \(error)") }
        lock?.release()
        lock = nil
        logger.info("stopped")
    }

    /// Seconds since start.
    public var uptime: Double { core.uptime }
}
