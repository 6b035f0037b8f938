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
/// and its lock, artwork, signal handling, the state file, the MPRIS export, plugins — each a
/// `HostComponent` of one `ComponentGroup` (`components`), started in order and shut down in
/// reverse. `run()` blocks until the host has shut down and every handle is closed.
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
    public internal(set) var server: ControlServer!
    var lock: InstanceLock?
    /// The daemon's components, in start order; shutdown stops them in reverse, each first
    /// told `willStop`, then `stop` (see `ComponentGroup`). What each does, at start / at stop:
    ///
    /// 1. control server — takes the lock, binds the socket / willStop: stops accepting, tells
    ///    the clients, SIGTERMs the supervised plugins, closes the connections after their last
    ///    replies (with the grace deadline); the lock is released by `finish`.
    /// 2. artwork — the resolver and its cache / stop: its helpers.
    /// 3. signals — SIGTERM/SIGINT, SIGHUP and the reloader, the lock file's watch / stop: them.
    /// 4. state — restores the saved sessions, before plugins set up theirs / willStop: writes
    ///    the exact positions, so first of all (state's split: restored before the plugins
    ///    start, written before the clients and plugins go, though it starts after the server).
    /// 5. mpris — the bus export / stop: the connection.
    /// 6. plugins — built-ins run to the end of their setup, then the supervised ones / stop:
    ///    the core closes (built-ins detached).
    ///
    /// So a shutdown runs: state written, clients told, supervised plugins SIGTERMed,
    /// connections closing, core closed, MPRIS closed, signals and lock watch closed, artwork.
    private(set) lazy var group: ComponentGroup = {
        let group = ComponentGroup([
            DaemonComponents.Server(self), DaemonComponents.Artwork(self), DaemonComponents.Signals(self),
            DaemonComponents.State(self), DaemonComponents.MPRIS(self), DaemonComponents.Plugins(self),
        ])
        group.willShutdown = { [weak self] reason in
            guard let self else { return }
            self.logger.info("shutting down: \(reason)")
            SystemdNotifier.notify("STOPPING=1", socket: self.options.notifySocket)
        }
        return group
    }()
    /// The components, in start order.
    var components: [HostComponent] { group.components }
    /// A shutdown was asked for (or the start failed): nothing starts any more.
    public var isShuttingDown: Bool { group.isShuttingDown }
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
    public internal(set) var mpris: MPRISBridge?
    /// Resolves sessions' artwork (nil when its cache directory cannot be made).
    public internal(set) var artwork: ArtworkResolver?
    /// Why the daemon stopped on its own: its lock file (its runtime directory) went away.
    public internal(set) var lostLock: String?

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
        for (k, v) in group.stats { o[k] = v }
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
            try group.start()
        } catch {
            // The user sees the part's own error, as before; the group's names the part.
            logger.debug("\(error)")
            throw error.error
        }
        // A SIGTERM while plugins set up: the group stopped, and the daemon never says ready.
        guard !isShuttingDown else { return }
        logger.info("playerhostd \(HostVersion.string) listening on \(options.socketPath) (pid \(getpid()))")
        if let fd = options.readyFD {
            _ = write(fd, "R", 1)
            close(fd)
        }
        SystemdNotifier.notify("READY=1\nMAINPID=\(getpid())", socket: options.notifySocket)
    }

    /// The artwork keys over the resolver's defaults (at start and on reload alike).
    static func artworkLimits(_ config: HostConfig) -> ArtworkResolver.Limits {
        var l = ArtworkResolver.Limits()
        if let ms = config.artworkTimeoutMilliseconds { l.timeoutMilliseconds = ms }
        if let kb = config.artworkMaxKB { l.maxBytes = kb << 10 }
        if let mp = config.artworkMaxMegapixels { l.maxPixels = mp * 1_000_000 }
        return l
    }

    /// Where the state file, the web remote's devices and its certificate live: `--state-dir`,
    /// else the config's `state_dir`, else `$XDG_STATE_HOME/playerhost` of the host's environment
    /// (an in-process host's own, never the user's).
    var stateDirectory: String {
        StateStore.defaultDirectory(explicit: options.stateDirectory ?? core.config.stateDirectory,
                                    environment: options.effectiveEnvironment)
    }

    /// A part starting takes its keys as a reload would, from the empty configuration: start
    /// is "apply the config to an empty host", for the parts as for the core.
    func applyAtStart(_ part: ConfiguredPart) {
        var changes = HostCore.Changes()
        part.apply(core.config, old: HostConfig(), changes: &changes)
    }

    /// A reload's keys for the daemon's own parts, after the core took its own (`HostCore.apply`):
    /// each part's `apply`, in start order. Each part took the same keys when it started.
    func applyParts(_ new: HostConfig, old: HostConfig, changes c: inout HostCore.Changes) {
        group.apply(new, old: old, changes: &c)
    }

    /// `plugin.list`: built-in and supervised plugins with their state.
    public var pluginList: JSON {
        .array(inProcess.listJSON + (supervisor?.listJSON ?? []))
    }

    /// Ordered shutdown: the components stopped in reverse (`group` says what each does:
    /// stop accepting, tell clients, close every handle). The loop then runs dry and `run()`
    /// returns. Idempotent.
    public func shutdown(reason: String) {
        group.shutdown(reason: reason)
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
