import Glibc
import PlayerHostBase
import PlayerHostClient
import PlayerHostConfig
import PlayerHostLoop
import PlayerHostPlugin
import PlayerHostRemote
import PlayerHostServer

/// The daemon's components, one per part around the core, in the order `HostDaemon.components`
/// lists them. Each makes its part when it starts (a part's making has effects — a directory, a
/// publisher slot — so it happens at its place in the order, never earlier) and keeps it on the
/// daemon, where methods and tests find it. Weak to the daemon: it owns them.
enum DaemonComponents {
    /// The lock and the control server: first up (the lock says this daemon is the one), and
    /// its `willStop` is the clients' goodbye.
    final class Server: ConfiguredComponent {
        weak var host: HostDaemon?
        init(_ host: HostDaemon) { self.host = host }
        var name: String { "control server" }

        func start(_ group: ComponentGroup) throws(HostError) {
            guard let host else { return }
            do {
                try SocketLocation.prepareDirectory(for: host.options.socketPath, isDefault: host.options.socketIsDefault)
                host.lock = try InstanceLock(socketPath: host.options.socketPath)
                let server = ControlServer(loop: host.loop, dispatcher: host.dispatcher, path: host.options.socketPath, logger: host.logger)
                host.server = server
                try server.start()
            } catch {
                host.lock?.release()
                host.lock = nil
                throw .server(error)
            }
            // Weak throughout: callbacks of handles may outlive the daemon object in tests.
            host.server.onDisconnect = { [weak core = host.core] rpc in core?.connectionClosed(rpc) }
            host.core.connections = host.server
        }

        /// Stop accepting, tell every client, SIGTERM the supervised plugins (clients too: they
        /// then end rather than see the connection drop and try to reconnect), then close the
        /// connections once their output is out, with a deadline. Here, not in `stop`: it comes
        /// after the state's exact write (a later `willStop`: state starts after the server)
        /// and before the core closes (the plugins' `stop`), as it always has.
        func willStop() {
            guard let host, let server = host.server else { return }
            server.stopAccepting()
            for rpc in server.connections {
                rpc.notify(method: "event", params: ["topic": "host", "type": "shutdown", "reason": .string(host.group.shutdownReason ?? "")])
            }
            host.supervisor?.stopAll()
            server.closeAll(reason: "host shutting down")
            // A client that never reads would hold its flush forever: past the deadline, cut it
            // off. Unreferenced, the timer never keeps the loop alive by itself.
            if let deadline = host.loop.makeTimer() {
                deadline.isReferenced = false
                deadline.start(after: host.shutdownGraceMilliseconds) { [weak host] in
                    guard let host, let server = host.server else { return }
                    if server.connectionCount > 0 {
                        host.logger.warning("shutdown deadline: closing \(server.connectionCount) connection(s) that did not take their last replies")
                    }
                    server.closeAllNow(reason: "shutdown deadline")
                    deadline.close()
                }
            }
        }

        // `stop`: nothing more; the lock is released by `HostDaemon.finish`, once the loop ran dry.

        var part: ConfiguredPart? { host?.server }
    }

    /// The artwork resolver: its cache, the decoder helper and fetch helpers (started on first
    /// use). None when its cache directory cannot be made (logged; the daemon runs without).
    final class Artwork: ConfiguredComponent {
        weak var host: HostDaemon?
        init(_ host: HostDaemon) { self.host = host }
        var name: String { "artwork" }

        func start(_ group: ComponentGroup) throws(HostError) {
            guard let host else { return }
            let config = host.core.config
            let directory = ArtworkCache.defaultDirectory(environment: host.options.effectiveEnvironment)
            do {
                let cache = try ArtworkCache(directory: directory, limitBytes: (config.artworkCacheMB ?? 64) << 20)
                let helper = ArtworkHelper(loop: host.loop, executable: ArtworkResolver.helperPath(), logger: host.logger)
                let resolver = ArtworkResolver(service: host.nowPlaying, cache: cache, helper: helper, logger: host.logger)
                host.applyAtStart(resolver)
                host.nowPlaying.publisher.add(resolver, topics: [.info, .sessions])
                host.artwork = resolver
            } catch {
                host.logger.error("artwork resolution is off: \(error)")
            }
        }

        func stop() { host?.artwork?.close() }

        var part: ConfiguredPart? { host?.artwork }
    }

    /// What stops or reloads the daemon from outside: SIGTERM and SIGINT (shut down), SIGHUP
    /// (reload: the reloader is made here, before the state store, which asks it for the ids the
    /// config made), and the lock file's watch (shut down when it goes).
    final class Signals: HostComponent {
        weak var host: HostDaemon?
        private var watchers: [SignalWatcher] = []
        init(_ host: HostDaemon) { self.host = host }
        var name: String { "signals" }

        func start(_ group: ComponentGroup) throws(HostError) {
            guard let host else { return }
            do {
                for sig in [SIGTERM, SIGINT] {
                    let w = try SignalWatcher(loop: host.loop)
                    watchers.append(w)
                    try w.start(signal: sig) { [weak group] s in
                        group?.shutdown(reason: s == SIGTERM ? "SIGTERM" : "SIGINT")
                    }
                }
                let hup = try SignalWatcher(loop: host.loop)
                watchers.append(hup)
                try hup.start(signal: SIGHUP) { [weak host] _ in host?.reloader?.reload(trigger: "SIGHUP") }
            } catch {
                closeWatchers()
                throw .loop(error)
            }
            watchLock(host, group)
            let reloader = ConfigReloader(host: host)
            reloader.applyLogLevel = host.applyLogLevel
            host.reloader = reloader
        }

        /// Stops in order when the lock file goes (the runtime directory removed): another
        /// daemon can then start on the same socket path, and none can reach this one.
        private func watchLock(_ host: HostDaemon, _ group: ComponentGroup) {
            do {
                try host.lock?.watch(loop: host.loop) { [weak host, weak group] in
                    guard let host, let group, !group.isShuttingDown else { return }
                    let why = "it was removed while the daemon ran (its directory deleted?), so another daemon could start on \(host.options.socketPath) and none could reach this one"
                    host.logger.error("the lock file \(host.lock?.path ?? "") \(why); stopping")
                    host.lostLock = why
                    group.shutdown(reason: "lock file removed")
                }
            } catch {
                host.logger.warning("cannot watch the lock file: \(error); a removed runtime directory goes unnoticed")
            }
        }

        func stop() {
            closeWatchers()
            host?.lock?.stopWatching()
        }

        private func closeWatchers() {
            for w in watchers { w.close() }
            watchers.removeAll()
        }
    }

    /// Saved sessions (state.json). Restored at start, before the plugins set up theirs; the
    /// exact positions are written in `willStop`, so before the clients' goodbye and the
    /// plugins' end (the server's `willStop` comes later: it started earlier).
    final class State: ConfiguredComponent {
        weak var host: HostDaemon?
        init(_ host: HostDaemon) { self.host = host }
        var name: String { "state" }

        func start(_ group: ComponentGroup) throws(HostError) {
            guard let host else { return }
            StateStore.attach(to: host)
        }

        func willStop() { host?.state?.stop() }

        var part: ConfiguredPart? { host?.state }
    }

    /// The MPRIS2 export of the Now Playing session (see `MPRISBridge`).
    final class MPRIS: ConfiguredComponent {
        weak var host: HostDaemon?
        init(_ host: HostDaemon) { self.host = host }
        var name: String { "mpris" }

        func start(_ group: ComponentGroup) throws(HostError) {
            guard let host else { return }
            let env = host.options.effectiveEnvironment
            let bridge = MPRISBridge(loop: host.loop, logger: host.logger, service: host.nowPlaying,
                                     address: DBusConnection.sessionBusAddress(environment: env),
                                     enabled: host.core.config.mpris?.enabled ?? true)
            host.applyAtStart(bridge)
            // D-Bus callers reach these: weak, never unowned.
            bridge.canOpen = { [weak host] in host?.provided.isProvided("mpv.open") ?? false }
            bridge.opener = { [weak host] uri in
                guard let host, let promise = try? host.provided.request("mpv.open", params: ["urls": [.string(uri)]]) else {
                    return .failure(.notSupported("no player plugin can open URIs"))
                }
                promise.onComplete { [weak host] result in
                    if case .failure(let e) = result { host?.logger.warning("MPRIS OpenUri \(uri): \(e.message)") }
                }
                return .success(())
            }
            host.nowPlaying.publisher.add(bridge)
            host.mpris = bridge
            bridge.start()
        }

        func stop() { host?.mpris?.close() }

        var part: ConfiguredPart? { host?.mpris }
    }

    /// The plugins: the compiled-in ones (the web remote among them), run to the end of their
    /// setup, then the supervised executables. Last up: the state was restored before they set
    /// up their sessions. Its `stop` closes the core (built-ins detached; no player timer is
    /// armed again); the supervised ones got SIGTERM in the server's `willStop`. A reload's
    /// plugins are `ConfigReloader.reloadSupervised`'s, which reports them in its summary.
    final class Plugins: HostComponent {
        weak var host: HostDaemon?
        init(_ host: HostDaemon) { self.host = host }
        var name: String { "plugins" }

        func start(_ group: ComponentGroup) throws(HostError) {
            guard let host else { return }
            // The web remote (issue 25): a built-in client of the host, always there (off
            // without `[remote] listen`), so `npctl remote enable` needs no restart.
            // Its state beside the state file's: the daemon's one state directory, read from the
            // host's environment (an in-process host's own, not the user's).
            let options = host.options
            host.plugins.append(RemoteService(config: options.config.remote ?? RemoteConfig(), stateDirectory: host.stateDirectory, configPath: options.configPath ?? HostConfig.defaultPath(environment: options.effectiveEnvironment), logger: host.logger))
            host.core.attach(host.plugins)
            for (name, error) in host.inProcess.failures { host.logger.error("plugin \(name) failed: \(error)") }
            // Built-ins set up the host's own sessions: let them finish before saying ready.
            // This runs the loop: a SIGTERM now shuts the group down (this component included).
            var rounds = 0
            while host.core.pendingPluginCalls > 0 && rounds < 10_000 && !group.isShuttingDown {
                host.loop.run(.once)
                rounds += 1
            }
            // A SIGTERM while built-ins were setting up: start nothing more.
            guard !group.isShuttingDown else { return }
            let specs = HostDaemon.pluginSpecs(config: host.core.config, environment: options.effectiveEnvironment)
            guard !specs.isEmpty else { return }
            let sup = PluginSupervisor(loop: host.loop, socketPath: options.socketPath, logger: host.logger)
            host.supervisor = sup
            for spec in specs { sup.start(spec) }
        }

        func stop() { host?.core.close() }
    }
}
