import Glibc
import PlayerHostBase
import PlayerHostLoop
import PlayerHostModel
import PlayerHostRPC

/// The `host.*` methods and `rpc.discover`: the core's (`core(core:)`, in every host, the embedded
/// one too) and the daemon's (`daemon(host:)`: shutdown, doctor, the plugin list).
enum HostMethods {
    static func core(core host: HostCore) -> [RPCMethod] {
        [
            .sync("host.hello", summary: "Introduce the client: the connection becomes an app that owns what it creates.",
                  params: [.required("name", .string, "the app's name"), .optional("version", .string),
                           .optional("desktopEntry", .string, "the app's freedesktop desktop entry (1 to 255 bytes)")],
                  result: .object, resultSummary: "{protocol, version, app}") { [weak host] call throws(RPCError) in
                guard let host else { throw RPCError(.shuttingDown, "the host is shutting down") }
                let name = try call.params.string("name")
                guard !name.isEmpty, name.utf8.count <= 200 else {
                    throw RPCError(.invalidArgument, "name must be 1 to 200 bytes", data: ["param": "name"])
                }
                let desktopEntry = try call.params.optionalString("desktopEntry")
                if let d = desktopEntry, d.isEmpty || d.utf8.count > 255 {
                    throw RPCError(.invalidArgument, "desktopEntry must be 1 to 255 bytes", data: ["param": "desktopEntry"])
                }
                let client = call.connection.client
                if client.appName == nil {
                    try host.nowPlaying.perform { m, t in
                        try m.registerApp(name: name, client: ClientID(call.connection.id), desktopEntry: desktopEntry, now: t)
                    }
                }
                client.appName = name
                return [
                    "protocol": .int(Int64(HostVersion.protocolVersion)),
                    "version": .string(HostVersion.string),
                    "app": .string(name),
                ]
            },
            .sync("host.ping", summary: "Liveness check.", result: .string, resultSummary: "\"pong\"") { _ in
                "pong"
            },
            .sync("host.version", summary: "The daemon's version and protocol version.", result: .object) { _ in
                ["version": .string(HostVersion.string), "protocol": .int(Int64(HostVersion.protocolVersion))]
            },
            .sync("host.stats", summary: "Counters: connections, requests served, events (offered, coalesced, dropped as identical, placeholders blocked), uptime; the state file (path, writes, fault); the server's queued output and clients cut off (over the global budget, over their own limit, stalled).",
                  result: .object) { [weak host] _ throws(RPCError) in
                guard let host else { throw RPCError(.shuttingDown, "the host is shutting down") }
                return host.statsJSON
            },
        ]
    }

    /// `rpc.discover`, listed after the daemon's `host.*` methods.
    static func discover(core host: HostCore) -> [RPCMethod] {
        [
            .sync("rpc.discover", summary: "The OpenRPC document describing every method.", result: .object) { [weak host] _ throws(RPCError) in
                guard let host else { throw RPCError(.shuttingDown, "the host is shutting down") }
                return OpenRPCDocument.make(table: host.dispatcher.table, title: "PlayerHost control protocol",
                                     version: HostVersion.string)
            },
        ]
    }

    static func daemon(host: HostDaemon) -> [RPCMethod] {
        [
            .sync("host.shutdown", summary: "Reply true, then shut down in order.", result: .boolean) { [weak host] _ in
                // After this reply is written: the timer fires on the next loop iteration.
                if let host, let t = host.loop.makeTimer() {
                    t.start(after: 0) { [weak host] in
                        t.close()
                        host?.shutdown(reason: "host.shutdown request")
                    }
                }
                return true
            },
            .sync("host.doctor", summary: "Faults of the host itself, outside any session (arbiter.doctor has those): the state file cannot be written, or was set aside or unreadable at start (with its path); MPRIS off and why; plugins that failed or keep exiting (with the last lines of their stderr); the artwork helper missing. Each with the fix; [] when all is well.",
                  result: .array, resultSummary: "[{severity, code, message, fix, path?, plugin?, stderr?}]") { [weak host] _ throws(RPCError) in
                guard let host else { throw RPCError(.shuttingDown, "the host is shutting down") }
                return .array(host.hostDiagnostics)
            },
            .sync("plugin.list", summary: "Built-in and supervised plugins: name, kind, state, pid, restarts, last exit, and stderrTail (a supervised plugin's last 20 lines / 4 KiB of stderr).",
                  result: .array) { [weak host] _ in
                host?.pluginList ?? []
            },
        ]
    }
}
