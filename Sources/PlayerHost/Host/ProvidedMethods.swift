import PlayerHostBase
import PlayerHostLoop
import PlayerHostRPC

/// Methods a plugin offers through the host (`plugin.provide`): the host lists them in
/// `rpc.discover` and forwards each call to the providing connection as a request, replying
/// with its answer (or `pluginFailure` if it times out or goes away). They vanish with it.
final class ProvidedMethods {
    private weak var dispatcher: RPCDispatcher?
    /// Method name → providing connection id.
    private var providers: [String: Int] = [:]
    /// Connection id → how many methods it provides.
    private var counts: [Int: Int] = [:]
    /// Methods of providers that went away, still in the table until their slice is dropped: a
    /// plugin that comes back meanwhile may provide them again (they are not host methods).
    private var dropping: Set<String> = []
    /// Methods one connection may provide (`max_provided_methods`).
    var maxPerConnection = 256
    /// Calls one caller may have waiting at provided methods (`max_pending_provided_calls`): a
    /// plugin that never answers held 134 000 of one caller's calls, each with its timer and its
    /// request line (+179 MiB, everyone's pings slowed), until that caller was cut off.
    var maxPendingPerCaller = 256
    /// Caller (connection id; `hostCaller` for the host itself) → its calls waiting for an answer.
    private var pending: [Int: Int] = [:]
    /// The caller of `request` from inside the host (MPRIS OpenUri): one budget for all of them.
    static let hostCaller = -1
    /// Methods of a provider that went away dropped per loop turn, so a ping is never stuck
    /// behind a provider with 100 000 of them.
    static let dropsPerTurn = 1_000
    var timeoutMilliseconds: UInt64 = 30_000
    let loop: Scheduler
    var connection: (Int) -> RPCConnection? = { _ in nil }

    init(dispatcher: RPCDispatcher, loop: Scheduler) {
        self.dispatcher = dispatcher
        self.loop = loop
    }

    /// The `plugin.provide` method.
    var method: RPCMethod {
        .sync("plugin.provide", summary: "Offer methods through the host: calls to them are forwarded to this connection.",
              params: [.required("methods", .array, "method names, each namespaced (e.g. mpv.open)"),
                       .optional("summaries", .object, "name → one-line summary, for rpc.discover")],
              result: .boolean) { [weak self] call throws(RPCError) in
            guard let self, let dispatcher = self.dispatcher else { throw RPCError(.shuttingDown, "the host is shutting down") }
            let names = try call.params.stringArray("methods") ?? []
            let summaries = try call.params.optionalObject("summaries") ?? [:]
            for name in names {
                guard name.contains("."), !name.hasPrefix("."), !name.hasSuffix(".") else {
                    throw RPCError(.invalidArgument, "'\(name)' must be namespaced, like mpv.open", data: ["method": .string(name)])
                }
                if let owner = self.providers[name], owner != call.connection.id {
                    throw RPCError(.invalidArgument, "\(name) is already provided by another plugin", data: ["method": .string(name)])
                }
                if self.providers[name] == nil && !self.dropping.contains(name) && dispatcher.table.method(named: name) != nil {
                    throw RPCError(.invalidArgument, "\(name) is a host method", data: ["method": .string(name)])
                }
            }
            let added = Set(names).filter { self.providers[$0] == nil }.count
            let have = self.counts[call.connection.id, default: 0]
            guard have + added <= self.maxPerConnection else {
                throw RPCError(.limitExceeded, "Limit exceeded: max_provided_methods (limit \(self.maxPerConnection))",
                               data: ["limit": "max_provided_methods", "value": .int(Int64(self.maxPerConnection))])
            }
            for name in names where self.providers[name] == nil {
                if self.dropping.remove(name) != nil { dispatcher.table.unregister(name) }
                self.providers[name] = call.connection.id
                self.counts[call.connection.id, default: 0] += 1
                var m = RPCMethod(name, summary: summaries[name]?.stringValue ?? "provided by a plugin") {
                    [weak self] c throws(RPCError) -> RPCOutcome in
                    guard let self else { throw RPCError(.shuttingDown, "the host is shutting down") }
                    return try self.forward(c)
                }
                m.acceptsOtherParams = true
                dispatcher.table.register(m)
            }
            return true
        }
    }

    private func forward(_ call: RPCCall) throws(RPCError) -> RPCOutcome {
        .deferred(try request(call.method, params: .object(call.params.values), caller: call.connection.id))
    }

    /// Calls `caller` has waiting at provided methods now.
    func pendingCalls(of caller: Int) -> Int { pending[caller, default: 0] }

    /// Whether a plugin provides `method` now.
    func isProvided(_ method: String) -> Bool { providers[method] != nil }

    /// Calls a provided method from inside the host (MPRIS OpenUri → `mpv.open`), with the
    /// same timeout as a forwarded call. Refused (1050) past `maxPendingPerCaller` calls of
    /// `caller` still waiting, and, for a built-in plugin, while it has more than the high-water
    /// mark of calls not read yet: a flood is answered at once, never queued without bound, and
    /// never cuts the plugin off (one was, with its sessions, by other clients' floods).
    func request(_ method: String, params: JSON, caller: Int = ProvidedMethods.hostCaller) throws(RPCError) -> RPCPromise {
        guard let id = providers[method], let target = connection(id) else {
            throw RPCError(.pluginFailure, "the plugin providing \(method) is gone")
        }
        let waiting = pending[caller, default: 0]
        guard waiting < maxPendingPerCaller else {
            throw RPCError(.limitExceeded, "Limit exceeded: max_pending_provided_calls (limit \(maxPendingPerCaller)): \(waiting) calls of this caller still wait for their plugin",
                           data: ["limit": "max_pending_provided_calls", "value": .int(Int64(maxPendingPerCaller))])
        }
        // A built-in plugin's connection is never cut off (`ClientConnection`): what waits for
        // it is bounded here instead. (Another provider that falls behind is cut off past the
        // output limit, as any client.)
        let highWater = target.dispatcher.limits.effectiveHighWater
        let unread = target.queuedBytes
        guard !target.isInternal || unread < highWater else {
            throw RPCError(.limitExceeded, "Limit exceeded: output_high_water_kb (limit \(highWater) bytes): the plugin providing \(method) has \(unread) bytes of calls not read yet; try again later",
                           data: ["limit": "output_high_water_kb", "value": .int(Int64(highWater))])
        }
        pending[caller] = waiting + 1
        let promise = RPCPromise()
        var settled = false
        let timer = loop.makeTimer()
        let rid = target.request(method: method, params: params) { [weak self] result in
            guard !settled else { return }
            settled = true
            timer?.close()
            self?.settled(caller)
            switch result {
            case .success: promise.complete(result)
            case .failure(let e) where e.code == RPCErrorCode.shuttingDown.rawValue:
                promise.complete(.failure(RPCError(.pluginFailure, "the plugin providing \(method) went away")))
            case .failure: promise.complete(result)
            }
        }
        timer?.start(after: timeoutMilliseconds) { [weak self, weak target] in
            guard !settled else { return }
            settled = true
            timer?.close()
            self?.settled(caller)
            target?.failOutgoing(id: rid, RPCError(.timeout, "timed out"))
            promise.complete(.failure(RPCError(.pluginFailure, "the plugin providing \(method) did not answer in time")))
        }
        return promise
    }

    /// One of `caller`'s calls was answered, failed or timed out.
    private func settled(_ caller: Int) {
        let left = pending[caller, default: 1] - 1
        pending[caller] = left > 0 ? left : nil
    }

    /// Drops every method a connection provided: at once from `providers` (a call then fails as
    /// gone), from the method table in slices of `dropsPerTurn`, one slice per loop turn.
    func connectionClosed(_ id: Int) {
        guard counts.removeValue(forKey: id) != nil else { return }
        let names = providers.compactMap { $0.value == id ? $0.key : nil }
        for name in names { providers[name] = nil }
        dropping.formUnion(names)
        unregister(names[...])
    }

    private func unregister(_ names: ArraySlice<String>) {
        // A name provided again meanwhile belongs to its new provider: leave it registered.
        for name in names.prefix(Self.dropsPerTurn) where dropping.remove(name) != nil { dispatcher?.table.unregister(name) }
        let rest = names.dropFirst(Self.dropsPerTurn)
        if !rest.isEmpty { loop.onNextTurn { [weak self] in self?.unregister(rest) } }
    }
}
