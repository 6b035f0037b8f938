import PlayerHostBase
import PlayerHostConfig
import PlayerHostModel
import PlayerHostPlugin
import PlayerHostRPC

/// Attaches compiled-in plugins to the core. Each gets a `PluginLink`: the core's end is served
/// by its dispatcher exactly like a socket client's connection, the plugin's end carries its
/// `PluginContext` — the protocol's bytes, as an out-of-process plugin sends them, so the two
/// cannot behave differently; but no socket, descriptor or libuv, so an `EmbeddedHost` runs them.
///
/// A built-in plugin whose connection closes under it (it should not: the host never cuts its own
/// connections off, but a write can fail) is detached at once — what it runs stops with it (the
/// mpv plugin's mpv processes: once they played on with nobody controlling them) — and attached
/// again on a fresh connection after the `RestartPolicy`'s backoff, like a plugin process.
final class InProcessPlugins {
    /// One attached plugin: its current connection and its restarts.
    final class Entry {
        let plugin: SessionPlugin
        var context: PluginContext
        var restartPolicy: RestartPolicy
        var attachedAt: UInt64 = 0
        var restartTimer: HostTimer?
        var restarts = 0
        /// Lost its connection and waits for the backoff.
        var isRestarting = false

        init(plugin: SessionPlugin, context: PluginContext, restartPolicy: RestartPolicy) {
            self.plugin = plugin
            self.context = context
            self.restartPolicy = restartPolicy
        }
    }

    private(set) var entries: [Entry] = []
    var plugins: [(plugin: SessionPlugin, context: PluginContext)] { entries.map { ($0.plugin, $0.context) } }
    private(set) var failures: [String: String] = [:]
    /// When a built-in plugin that lost its connection is attached again.
    var restartPolicy = RestartPolicy.standard
    var log: (String) -> Void = { _ in }
    /// Opens a connection to the core for a plugin (the core's `PluginLink`s).
    private let connect: (String) -> Result<PluginContext, RPCError>
    private let scheduler: Scheduler
    private var stopping = false

    init(scheduler: Scheduler, connect: @escaping (String) -> Result<PluginContext, RPCError>) {
        self.scheduler = scheduler
        self.connect = connect
    }

    private var nowMilliseconds: UInt64 { scheduler.nowNanoseconds / 1_000_000 }

    func attach(_ plugin: SessionPlugin) {
        guard !stopping else { return }
        let context: PluginContext
        switch open(plugin.name) {
        case .failure(let e):
            failures[plugin.name] = e.message
            return
        case .success(let c):
            context = c
        }
        let entry = Entry(plugin: plugin, context: context, restartPolicy: restartPolicy)
        entries.append(entry)
        start(entry)
    }

    /// Attaches `entry`'s plugin to its (fresh) context, and watches that context.
    private func start(_ entry: Entry) {
        let plugin = entry.plugin, context = entry.context
        entry.attachedAt = nowMilliseconds
        context.onClosed = { [weak self, weak entry] in
            guard let self, let entry else { return }
            self.lost(entry)
        }
        if plugin.actsForHost {
            plugin.attach(context)
        } else {
            context.call("host.hello", ["name": .string(plugin.name)]) { [weak self] result in
                switch result {
                case .success: plugin.attach(context)
                case .failure(let e): self?.failures[plugin.name] = "host.hello: \(e.message)"
                }
            }
        }
    }

    /// `entry`'s connection closed under it: detach it now (its sessions went with the
    /// connection; what it runs stops), attach it again after the backoff.
    private func lost(_ entry: Entry) {
        guard !stopping else { return }
        entry.plugin.detach()
        let ranFor = nowMilliseconds &- entry.attachedAt
        switch entry.restartPolicy.died(ranForMS: ranFor) {
        case .giveUp(let n):
            failures[entry.plugin.name] = "lost its connection to the host \(n) times in a row"
            log("built-in plugin \(entry.plugin.name) lost its connection \(n) times in a row; not attaching it again")
        case .restart(let delay):
            entry.isRestarting = true
            log("built-in plugin \(entry.plugin.name) lost its connection to the host; attaching it again in \(delay) ms")
            if entry.restartTimer == nil { entry.restartTimer = scheduler.makeTimer() }
            entry.restartTimer?.start(after: delay) { [weak self, weak entry] in
                guard let self, let entry else { return }
                self.restart(entry)
            }
        }
    }

    private func restart(_ entry: Entry) {
        entry.isRestarting = false
        guard !stopping else { return }
        switch open(entry.plugin.name) {
        case .failure(let e):
            failures[entry.plugin.name] = e.message
            log("built-in plugin \(entry.plugin.name) cannot be attached again: \(e.message)")
        case .success(let c):
            entry.restarts += 1
            entry.context = c
            start(entry)
        }
    }

    /// A started context on a fresh connection, which can open more of its kind
    /// (`PluginContext.openApp`). The plugin that opens them closes them.
    private func open(_ name: String) -> Result<PluginContext, RPCError> {
        guard !stopping else { return .failure(RPCError(.shuttingDown, "the host is shutting down")) }
        let opened = connect(name)
        if case .success(let context) = opened {
            context.connector = { [weak self] name in
                guard let self else { return .failure(RPCError(.shuttingDown, "the host is shutting down")) }
                return self.open(name)
            }
        }
        return opened
    }

    /// Calls still in flight from in-process plugins (start-up waits for zero before READY, so
    /// configured sessions exist by the time anyone can connect).
    var pendingCalls: Int { entries.reduce(0) { $0 + $1.context.pendingCalls } }

    /// Passes a reloaded configuration to every attached plugin.
    func reload(_ config: HostConfig) {
        for e in entries where !e.context.isClosed { e.plugin.reload(config) }
    }

    func detachAll() {
        stopping = true
        for e in entries {
            e.restartTimer?.close()
            e.restartTimer = nil
            e.context.onClosed = nil
            if !e.context.isClosed { e.plugin.detach() }
            e.context.close()
        }
        entries.removeAll()
    }

    /// `plugin.list` entries.
    var listJSON: [JSON] {
        entries.filter { failures[$0.plugin.name] == nil }.map { e in
            var o: [String: JSON] = ["name": .string(e.plugin.name), "kind": "builtin",
                                     "state": e.isRestarting ? "restarting" : e.context.isClosed ? "stopped" : "running"]
            // Only once it happened: a built-in's row stays as it was ("-") while it never did.
            if e.restarts > 0 { o["restarts"] = .int(Int64(e.restarts)) }
            return .object(o)
        } + failures.sorted { $0.key < $1.key }.map { name, error in
            ["name": .string(name), "kind": "builtin", "state": "failed", "error": .string(error)]
        }
    }
}
