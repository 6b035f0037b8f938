import Glibc
import PlayerHostPluginAPI

/// One desktop MPRIS player brought into the model: its own app connection (named after its
/// `Identity`, so the arbiter and audio interruptions treat it like any other app), one external
/// session `mpris-<name>`, command targets that call its MPRIS methods, and a non-mixable
/// `playback` audio session active from when it plays until it stops.
///
/// The driver of an `ImportedPlayerMachine`: it owns what the machine only names — the bus
/// client, the app connection, the reply closures of host requests — carries out the machine's
/// actions in order and feeds back what comes of them. Every decision is the machine's.
final class ImportedPlayer {
    /// The unique name (`:1.42`) signals come from.
    let owner: String
    private weak var client: DBusClient?
    private let log: (String) -> Void
    private(set) var app: PluginContext?
    private var machine: ImportedPlayerMachine
    /// The loop's monotonic clock in ns, read here at the I/O edge (injected for tests).
    private let now: () -> UInt64
    /// Reply closures of host requests, by the machine's token.
    private var commandReplies: [ImportedPlayerMachine.Token: (CommandStatus) -> Void] = [:]
    private var openUriReplies: [ImportedPlayerMachine.Token: (Result<JSON, RPCError>) -> Void] = [:]
    private var nextToken = 1
    /// Inputs waiting while the actions of another are carried out.
    private var queue: [ImportedPlayerMachine.Input] = []
    private var handling = false

    var busName: String { machine.busName }
    var sessionID: String { machine.sessionID }
    var properties: [String: DBusValue] { machine.properties }
    var isClosed: Bool { machine.isClosed }
    /// Whether the player says it plays.
    var isPlaying: Bool { machine.isPlaying }

    init(busName: String, owner: String, client: DBusClient, interruptImported: Bool,
         now: @escaping () -> UInt64 = EventLoop.hrtime, log: @escaping (String) -> Void) {
        machine = ImportedPlayerMachine(busName: busName, interruptImported: interruptImported)
        self.now = now
        self.owner = owner
        self.client = client
        self.log = log
    }

    /// The host the app connection is opened on (set by `start`).
    private var host: PluginContext?

    /// Reads both interfaces, opens the app connection and creates the session.
    func start(host: PluginContext) {
        self.host = host
        feed(.start)
    }

    /// `PropertiesChanged` from the player: merge, then read Position once and sync.
    func propertiesChanged(interface: String, changed: [String: DBusValue], invalidated: [String]) {
        feed(.propertiesChanged(interface: interface, changed: changed, invalidated: invalidated))
    }

    /// `Seeked(x position)`: the position is in the signal (nil: out of range, so not known).
    func seeked(to position: Int64?) { feed(.seeked(position)) }

    /// How long the player may take to answer `OpenUri` (ms).
    static var openUriTimeoutMs: UInt64 { ImportedPlayerMachine.openUriTimeoutMs }

    /// `OpenUri(uri)` on the player (`npctl -p NAME open`, as playerctl's `open`): done when the
    /// player answered; its D-Bus error becomes one error naming it.
    func openUri(_ uri: String, _ reply: @escaping (Result<JSON, RPCError>) -> Void) {
        let token = takeToken()
        openUriReplies[token] = reply
        feed(.openUri(token, uri))
    }

    /// The name went: the app connection closes and its session goes with it.
    func close() { feed(.close) }

    private func takeToken() -> ImportedPlayerMachine.Token {
        defer { nextToken += 1 }
        return nextToken
    }

    // MARK: - Driving the machine

    private func feed(_ input: ImportedPlayerMachine.Input) {
        queue.append(input)
        guard !handling else { return }
        handling = true
        defer { handling = false }
        while !queue.isEmpty {
            let next = queue.removeFirst()
            for action in machine.handle(next, now: now()) { carryOut(action) }
        }
    }

    private func carryOut(_ action: ImportedPlayerMachine.Action) {
        switch action {
        case .call(let tag, let call): send(call, tag: tag)
        case .openApp(let identity, let desktopEntry):
            guard let host else { return }
            // Strong: the app is ours to close even if the player went while it was opening.
            host.openApp(identity, desktopEntry: desktopEntry) { result in
                switch result {
                case .failure(let e): self.feed(.appOpened(.failure(e)))
                case .success(let app):
                    self.app = app
                    self.feed(.appOpened(.success(())))
                }
            }
        case .closeApp:
            app?.close()
            app = nil
        case .createSession:
            app?.call("session.create", ["id": .string(sessionID), "kind": "mpris", "driver": "external"]) { [weak self] result in
                self?.feed(.sessionCreated(result.map { _ in () }))
            }
        case .hostSend(let method, let params): app?.send(method, params)
        case .addTarget(let command):
            app?.addTarget(session: sessionID, command: command, enable: false) { [weak self] event, reply in
                guard let self else { return reply(.commandFailed) }
                let token = self.takeToken()
                self.commandReplies[token] = reply
                self.feed(.perform(token, event))
            }
        case .listen: app?.onEvent = { [weak self] event in self?.feed(.hostEvent(event)) }
        case .sync(let params):
            guard let app else { return }
            app.call("player.sync", params) { [weak self] result in
                if case .failure(let e) = result { self?.feed(.synced(error: e.message)) } else { self?.feed(.synced(error: nil)) }
            }
        case .answer(let token, let status): commandReplies.removeValue(forKey: token)?(status)
        case .answerOpenUri(let token, let result): openUriReplies.removeValue(forKey: token)?(result)
        case .log(let line): log(line)
        }
    }

    /// One bus call; its reply comes back to the machine (strongly: a command's answer must
    /// come even if the player went meanwhile, and the bus bounds every call's wait).
    private func send(_ call: ImportedPlayerMachine.BusCall, tag: Int) {
        guard let client else { return queue.append(.unsent(tag)) }
        let path = MPRISImportMapping.objectPath, player = MPRISImportMapping.playerInterface
        let properties = "org.freedesktop.DBus.Properties"
        let done: (Result<[DBusValue], DBusError>) -> Void = { result in self.feed(.reply(tag, result)) }
        switch call {
        case .getAll(let interface):
            client.call(busName, path: path, interface: properties, member: "GetAll", arguments: [.string(interface)], done)
        case .get(let property, let timeoutMs):
            client.call(busName, path: path, interface: properties, member: "Get",
                        arguments: [.string(player), .string(property)], timeoutMs: timeoutMs, done)
        case .method(let member, let args, let timeoutMs):
            client.call(busName, path: path, interface: player, member: member, arguments: args, timeoutMs: timeoutMs, done)
        case .set(let property, let value):
            client.setProperty(busName, path: path, interface: player, property: property, value: value, done)
        }
    }
}
