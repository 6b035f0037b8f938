import Glibc
import PlayerHostBase
import PlayerHostLoop
import PlayerHostModel
import PlayerHostRPC

/// A plugin's handle on the host: one JSON-RPC connection (in the core's memory in-process, the
/// control socket out-of-process) with the conveniences plugins need. The host's requests to the plugin
/// (`command.handle`) and its `event` notifications are served by an `RPCConnection` running in
/// reverse. Its replies to the host may be given later and go out as each is ready, not in request
/// order (the host pairs them by id): a command one session's player is slow to answer (a stopped
/// mpv) never holds another session's answer.
public final class PluginContext {
    /// Answers one command event with a status, now or later (exactly once).
    public typealias CommandHandler = (_ event: JSON, _ reply: @escaping (CommandStatus) -> Void) -> Void

    /// Where the plugin's time and later turns come from: the daemon's loop, or the manual
    /// clock of an `EmbeddedHost`.
    public let scheduler: Scheduler
    /// The libuv loop, for a plugin that does I/O of its own (processes, a bus, a listening
    /// socket); nil on an `EmbeddedHost`, which has none (such a plugin says so and stays off).
    public let loop: EventLoop?
    public let name: String
    let transport: PluginTransport
    let rpc: RPCConnection
    private var handlers: [Int: CommandHandler] = [:]
    /// Every `event` notification the plugin subscribed to (or that concerns its sessions).
    public var onEvent: ((JSON) -> Void)?
    /// Calls sent whose reply has not come back yet.
    public private(set) var pendingCalls = 0
    /// Set when the connection ends; the runner detaches the plugin then.
    package var onClosed: (() -> Void)?
    public private(set) var isClosed = false

    /// A context on `transport`; its timers and later turns come from `scheduler` (the loop is
    /// the scheduler when it is libuv's).
    package init(scheduler: Scheduler, name: String, transport: PluginTransport) {
        self.scheduler = scheduler
        self.loop = scheduler as? EventLoop
        self.name = name
        self.transport = transport
        var table = MethodTable()
        let dispatcher = RPCDispatcher(table: MethodTable())
        rpc = RPCConnection(id: 0, dispatcher: dispatcher)
        rpc.repliesInRequestOrder = false
        table.register(clientMethods())
        dispatcher.table = table
    }

    /// A context on the control socket (a plugin process).
    package convenience init(loop: EventLoop, name: String, stream: PipeStream) {
        self.init(scheduler: loop, name: name, transport: StreamTransport(stream))
    }

    /// Starts reading from the host.
    /// The transport's callbacks hold the context strongly; a stream drops them in its close
    /// callback, so the context lives as long as anything can still call into it. A write failure
    /// arrives on a later turn, so no caller finds the context closed inside its own call.
    package func start() throws(LoopError) {
        rpc.scheduler = scheduler
        rpc.onOutput = { [weak self] in self?.flush() }
        try transport.start(onBytes: { [self] bytes in
            _ = rpc.receive(bytes)
            flush()
        }, onEnd: { [self] in close() })
    }

    private func flush() {
        guard !isClosed else { return }
        rpc.drainOutput { transport.write($0) }
    }

    /// Calls a host method; `completion` (optional) gets its result. Calls are answered in order.
    public func call(_ method: String, _ params: [String: JSON] = [:],
                     _ completion: ((Result<JSON, RPCError>) -> Void)? = nil) {
        guard !isClosed else {
            // On a later turn, like any I/O failure: the caller is still in the middle of its call.
            scheduler.onNextTurn { completion?(.failure(RPCError(.shuttingDown, "the plugin's connection is closed"))) }
            return
        }
        pendingCalls += 1
        rpc.request(method: method, params: .object(params)) { [weak self] result in
            self?.pendingCalls -= 1
            completion?(result)
        }
    }

    /// Calls a host method and reports a failure as a log line on stderr (set-up steps whose
    /// failure should be visible but not fatal).
    public func send(_ method: String, _ params: [String: JSON] = [:]) {
        call(method, params) { [name] result in
            if case .failure(let e) = result {
                let line = "plugin \(name): \(method) failed: \(e.message)\n"
                _ = line.withCString { write(2, $0, strlen($0)) }
            }
        }
    }

    /// Adds this plugin as a target of `command` on `session` (and enables it); `handler` answers
    /// each `command.handle`. `completion` gets the target's token.
    public func addTarget(session: String, command: String, enable: Bool = true,
                          _ handler: @escaping CommandHandler,
                          completion: ((Result<Int, RPCError>) -> Void)? = nil) {
        call("command.addTarget", ["session": .string(session), "command": .string(command)]) { [weak self] result in
            switch result {
            case .success(let r):
                guard let token = r["token"]?.intValue else {
                    completion?(.failure(.internalError("no token in \(r)")))
                    return
                }
                self?.handlers[token] = handler
                completion?(.success(token))
            case .failure(let e):
                completion?(.failure(e))
            }
        }
        if enable {
            send("command.enable", ["session": .string(session), "command": .string(command), "enabled": true])
        }
    }

    /// Answers one call of a provided method, now or later (exactly once).
    public typealias MethodHandler = (_ params: [String: JSON], _ reply: @escaping (Result<JSON, RPCError>) -> Void) -> Void

    /// Offers a method through the host (`plugin.provide`): anyone's calls to `name` come here.
    /// `name` must be namespaced (`mpv.open`).
    public func provide(_ name: String, summary: String, _ handler: @escaping MethodHandler) {
        var m = RPCMethod(name, summary: summary) { call throws(RPCError) -> RPCOutcome in
            let promise = RPCPromise()
            handler(call.params.values) { promise.complete($0) }
            return .deferred(promise)
        }
        m.acceptsOtherParams = true
        rpc.dispatcher.table.unregister(name)
        rpc.dispatcher.table.register(m)
        send("plugin.provide", ["methods": [.string(name)], "summaries": [name: .string(summary)]])
    }

    /// How `openApp` connects (set by the host for in-process plugins).
    package var connector: ((String) -> Result<PluginContext, RPCError>)?

    /// Opens another connection to the host and introduces it as the app `name` (`host.hello`):
    /// for a plugin that brings several apps into the model (the MPRIS importer: one per desktop
    /// player, so the arbiter and audio interruptions see them apart). The caller owns the new
    /// context and closes it; its sessions go with it. In-process plugins only for now.
    public func openApp(_ name: String, desktopEntry: String? = nil, _ completion: @escaping (Result<PluginContext, RPCError>) -> Void) {
        guard !isClosed, let connector else {
            return scheduler.onNextTurn { completion(.failure(RPCError(.pluginFailure, "this plugin's host connection cannot open others"))) }
        }
        switch connector(name) {
        case .failure(let e):
            scheduler.onNextTurn { completion(.failure(e)) }
        case .success(let c):
            var hello: [String: JSON] = ["name": .string(name)]
            if let desktopEntry { hello["desktopEntry"] = .string(desktopEntry) }
            c.call("host.hello", hello) { result in
                switch result {
                case .success: completion(.success(c))
                case .failure(let e):
                    c.close()
                    completion(.failure(e))
                }
            }
        }
    }

    /// Subscribes to event topics; events arrive at `onEvent`.
    public func subscribe(_ topics: [String]) {
        send("events.subscribe", ["topics": .array(topics.map(JSON.string))])
    }

    /// Closes the connection (the host drops the plugin's targets, and its sessions unless they
    /// have background audio). Idempotent.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        rpc.onOutput = nil
        rpc.failAllOutgoing(reason: "the plugin's connection closed")
        transport.close()
        let closed = onClosed
        onClosed = nil
        closed?()
    }

    /// The methods the host calls on a plugin.
    private func clientMethods() -> [RPCMethod] {
        var handle = RPCMethod("command.handle", summary: "a command for one of this plugin's targets",
                               params: [.optional("token", .integer)]) {
            [weak self] call throws(RPCError) -> RPCOutcome in
            guard let self, let token = try call.params.optionalInt("token"), let handler = self.handlers[token] else {
                return .result(["status": "commandFailed"])
            }
            let promise = RPCPromise()
            var answered = false
            handler(.object(call.params.values)) { status in
                guard !answered else { return }
                answered = true
                promise.complete(.success(["status": .string(status.name)]))
            }
            return .deferred(promise)
        }
        handle.acceptsOtherParams = true
        var event = RPCMethod("event", summary: "an event notification") { [weak self] call throws(RPCError) -> RPCOutcome in
            self?.onEvent?(.object(call.params.values))
            return .result(.null)
        }
        event.acceptsOtherParams = true
        return [handle, event]
    }
}
