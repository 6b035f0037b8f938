import Glibc
import PlayerHostBase
import PlayerHostLoop
import PlayerHostPlugin
import PlayerHostRPC
import PlayerHostClient
import PlayerHostConfig

/// `remote.pair`, `remote.devices`, `remote.revoke` and `remote.status`, offered through the host
/// (`plugin.provide`) for `npctl remote`, with `remote.enable` and `remote.disable`
/// (`RemoteService+Enable`). While the remote is off, pair, devices and revoke say so.
extension RemoteService {
    /// The error of a method that needs the remote on.
    var offError: RPCError? {
        config.listen == nil ? RPCError(.invalidState, "the web remote is off: npctl remote enable [--lan] turns it on") : nil
    }

    func provideMethods(_ context: PluginContext) {
        provideSwitchMethods(context)
        context.provide("remote.pair", summary: "A one-time pairing URL for a device (params: name).") { [weak self] params, reply in
            guard let self else { return reply(.failure(RPCError(.shuttingDown, "the remote is stopping"))) }
            reply(self.pairResult(name: params["name"]?.stringValue))
        }
        context.provide("remote.devices", summary: "The paired devices, with when each was last used and whether it is connected.") {
            [weak self] _, reply in
            if let off = self?.offError { return reply(.failure(off)) }
            reply(.success(self?.devicesJSON ?? .array([])))
        }
        context.provide("remote.revoke", summary: "Unpairs a device by name and closes its open pages (params: name).") { [weak self] params, reply in
            guard let self, let name = params["name"]?.stringValue else {
                return reply(.failure(RPCError(.invalidArgument, "remote.revoke needs a name")))
            }
            if let off = self.offError { return reply(.failure(off)) }
            guard let closed = self.revoke(name) else {
                return reply(.failure(RPCError(.invalidArgument, "no paired device is called '\(name)'",
                                               data: ["devices": .array(self.devices.devices.map { .string($0.name) })])))
            }
            reply(.success(["revoked": .string(name), "closedConnections": .int(Int64(closed))]))
        }
        context.provide("remote.status", summary: "Where the remote listens, its devices and connections, its last error.") { [weak self] _, reply in
            reply(.success(self?.statusJSON ?? .null))
        }
    }

    func pairResult(name: String?) -> Result<JSON, RPCError> {
        if let off = offError { return .failure(off) }
        guard server != nil, let context else {
            return .failure(RPCError(.invalidState, "the remote is not listening" + (lastError.map { ": \($0)" } ?? "")))
        }
        if let name, name.utf8.count > DeviceStore.maxNameBytes {
            return .failure(RPCError(.invalidArgument, "a device name is at most \(DeviceStore.maxNameBytes) bytes"))
        }
        guard let random = WebServer.random(PairingCodes.length) else {
            return .failure(RPCError(.internalError, "the kernel gave no random bytes"))
        }
        let code = codes.issue(deviceName: name ?? "device", now: context.scheduler.nowNanoseconds / 1_000_000, random: random)
        var o: [String: JSON] = ["url": .string(baseURL + "/pair/" + code), "code": .string(code),
                                 "expiresInSeconds": .int(Int64(codes.validMilliseconds / 1000))]
        if let fingerprint { o["fingerprint"] = .string(fingerprint) }
        return .success(.object(o))
    }

    var devicesJSON: JSON {
        let connected = Set(connections.values.compactMap { $0.isSocket ? $0.tokenHash : nil })
        return .array(devices.devices.map { d in
            var o: [String: JSON] = ["name": .string(d.name), "pairedAt": .int(d.pairedAt),
                                     "connected": .bool(connected.contains(d.tokenHash))]
            if let u = d.lastUsedAt { o["lastUsedAt"] = .int(u) }
            return .object(o)
        })
    }

    var statusJSON: JSON {
        var o: [String: JSON] = [
            "listening": .bool(server != nil), "devices": .int(Int64(devices.devices.count)),
            "connections": .int(Int64(connections.count)),
            "pages": .int(Int64(connections.values.filter(\.isSocket).count)),
            "stateMessagesSent": .int(Int64(stateMessagesSent)),
            "maxConnections": .int(Int64(maxConnections)),
            "maxConnectionsPerAddress": .int(Int64(maxConnectionsPerAddress)),
            "refusedConnections": .int(Int64(refusedConnections)),
        ]
        if server != nil { o["url"] = .string(baseURL) }
        // Where the setting comes from: the config file, or remote.toml (`npctl remote enable`).
        o["enabled"] = .bool(config.listen != nil)
        if let listen = config.listen { o["listen"] = .string(listen) }
        o["source"] = .string(config.source ?? configPath)
        o["overlay"] = .string(RemoteOverlay.path(besideConfig: configPath))
        if let fingerprint { o["fingerprint"] = .string(fingerprint) }
        if let lastError { o["lastError"] = .string(lastError) }
        return .object(o)
    }
}
