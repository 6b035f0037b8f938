import Glibc
import PlayerHostBase
import PlayerHostConfig
import PlayerHostLoop
import PlayerHostPlugin
import PlayerHostRPC
import PlayerHostServer

/// Attaches compiled-in plugins. Each gets a socketpair: the host end is served by the control
/// server exactly like an accepted client, the plugin end carries its `PluginContext` — the same
/// protocol path an out-of-process plugin takes, so the two cannot behave differently.
final class InProcessPlugins {
    private(set) var plugins: [(plugin: SessionPlugin, context: PluginContext)] = []
    private(set) var failures: [String: String] = [:]

    func attach(_ plugin: SessionPlugin, server: ControlServer, loop: EventLoop) {
        let context: PluginContext
        switch connect(plugin.name, server: server, loop: loop) {
        case .failure(let e):
            failures[plugin.name] = e.message
            return
        case .success(let c):
            context = c
        }
        plugins.append((plugin, context))
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

    /// One socketpair adopted by the server; the plugin end as a started context, which can
    /// open more of its kind (`PluginContext.openApp`). The plugin that opens them closes them.
    private func connect(_ name: String, server: ControlServer, loop: EventLoop) -> Result<PluginContext, RPCError> {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            return .failure(RPCError(.pluginFailure, "socketpair: \(String(cString: strerror(errno)))"))
        }
        do {
            let hostEnd = try PipeStream(loop: loop)
            try hostEnd.open(fileDescriptor: fds[0])
            let pluginEnd = try PipeStream(loop: loop)
            try pluginEnd.open(fileDescriptor: fds[1])
            guard server.adopt(hostEnd) != nil else {
                pluginEnd.close()
                return .failure(RPCError(.limitExceeded, "the server refused the connection"))
            }
            let context = PluginContext(loop: loop, name: name, stream: pluginEnd)
            try context.start()
            context.connector = { [weak self, weak server] name in
                guard let self, let server else { return .failure(RPCError(.shuttingDown, "the host is shutting down")) }
                return self.connect(name, server: server, loop: loop)
            }
            return .success(context)
        } catch {
            close(fds[0])
            close(fds[1])
            return .failure(RPCError(.pluginFailure, "\(error)"))
        }
    }

    /// Calls still in flight from in-process plugins (start-up waits for zero before READY, so
    /// configured sessions exist by the time anyone can connect).
    var pendingCalls: Int { plugins.reduce(0) { $0 + $1.context.pendingCalls } }

    /// Passes a reloaded configuration to every attached plugin.
    func reload(_ config: HostConfig) {
        for (plugin, context) in plugins where !context.isClosed { plugin.reload(config) }
    }

    func detachAll() {
        for (plugin, context) in plugins {
            plugin.detach()
            context.close()
        }
        plugins.removeAll()
    }

    /// `plugin.list` entries.
    var listJSON: [JSON] {
        plugins.map { p in
            ["name": .string(p.plugin.name), "kind": "builtin", "state": p.context.isClosed ? "stopped" : "running"]
        } + failures.keys.sorted().map { name in
            ["name": .string(name), "kind": "builtin", "state": "failed", "error": .string(failures[name]!)]
        }
    }
}
