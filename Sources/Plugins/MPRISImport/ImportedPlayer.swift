import Glibc
import PlayerHost

/// One desktop MPRIS player brought into the model: its own app connection (named after its
/// `Identity`, so the arbiter and audio interruptions treat it like any other app), one external
/// session `mpris-<name>`, command targets that call its MPRIS methods, and a non-mixable
/// `playback` audio session active from when it plays until it stops.
///
/// State comes in at key moments only: PropertiesChanged (then Position is read with one Get)
/// and Seeked (which carries the position). Nothing polls.
final class ImportedPlayer {
    let busName: String
    /// The unique name (`:1.42`) signals come from.
    let owner: String
    let sessionID: String
    private weak var client: DBusClient?
    private let interruptImported: Bool
    private let log: (String) -> Void
    private(set) var app: PluginContext?
    private(set) var properties: [String: DBusValue] = [:]
    private var position: Int64?
    private var enabled: [String: Bool] = [:]
    private var audioActive = false
    /// The model interrupted it (an `interruption began` not yet ended).
    private var interruptedByModel = false
    /// We paused it for that interruption: its end with `shouldResume` plays it again.
    private var pausedByUs = false
    private var ready = false
    private(set) var isClosed = false
    /// Moments seen since the last Get of Position was sent: one Get answers them all.
    private var positionReadInFlight = false
    private var momentPending = false

    init(busName: String, owner: String, client: DBusClient, interruptImported: Bool, log: @escaping (String) -> Void) {
        self.busName = busName
        self.owner = owner
        self.sessionID = MPRISImportMapping.sessionID(for: busName)
        self.client = client
        self.interruptImported = interruptImported
        self.log = log
    }

    /// Reads both interfaces, opens the app connection and creates the session.
    func start(host: PluginContext) {
        getAll(MPRISImportMapping.rootInterface) { [weak self] root in
            guard let self, !self.isClosed else { return }
            let identity = root["Identity"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? self.sessionID
            self.getAll(MPRISImportMapping.playerInterface) { [weak self] player in
                guard let self, !self.isClosed else { return }
                self.properties = player
                self.position = player["Position"]?.int64Value
                host.openApp(String(identity.prefix(200))) { [weak self] result in
                    guard let self else { return }
                    switch result {
                    case .failure(let e):
                        self.log("\(self.busName): cannot open its app connection: \(e.message)")
                    case .success(let app):
                        guard !self.isClosed else { return app.close() }
                        self.app = app
                        self.createSession(app)
                    }
                }
            }
        }
    }

    private func getAll(_ interface: String, _ done: @escaping ([String: DBusValue]) -> Void) {
        client?.call(busName, path: MPRISImportMapping.objectPath, interface: "org.freedesktop.DBus.Properties",
                     member: "GetAll", arguments: [.string(interface)]) { [weak self] result in
            switch result {
            case .success(let args):
                if case .dictionary(let d)? = args.first { return done(d) }
                done([:])
            case .failure(let e):
                self?.log("\(self?.busName ?? ""): GetAll \(interface): \(e.message)")
                done([:])
            }
        }
    }

    private func createSession(_ app: PluginContext) {
        let sid = JSON.string(sessionID)
        app.call("session.create", ["id": sid, "kind": "mpris", "driver": "external"]) { [weak self] result in
            guard let self, !self.isClosed else { return }
            if case .failure(let e) = result {
                return self.log("\(self.busName): session.create: \(e.message)")
            }
            app.send("audio.configure", ["session": sid, "category": "playback"])
            for command in MPRISImportMapping.commands {
                let on = self.isEnabled(command)
                self.enabled[command] = on
                app.addTarget(session: self.sessionID, command: command, enable: false) { [weak self] event, reply in
                    guard let self else { return reply(.commandFailed) }
                    self.perform(event, reply)
                }
                if on { app.send("command.enable", ["session": sid, "command": .string(command), "enabled": true]) }
            }
            app.onEvent = { [weak self] event in self?.event(event) }
            self.ready = true
            self.updateAudio()
            self.sync()
        }
    }

    private func isEnabled(_ command: String) -> Bool {
        MPRISImportMapping.isEnabled(command, properties)
    }

    // MARK: - State in

    /// `PropertiesChanged` from the player: merge, then read Position once and sync.
    func propertiesChanged(interface: String, changed: [String: DBusValue], invalidated: [String]) {
        guard interface == MPRISImportMapping.playerInterface, !isClosed else { return }
        properties.merge(changed) { _, new in new }
        if !invalidated.isEmpty {
            // Values left out of the signal: read them back before the moment counts.
            getAll(MPRISImportMapping.playerInterface) { [weak self] all in
                guard let self, !self.isClosed else { return }
                self.properties.merge(all) { _, new in new }
                self.moment()
            }
            return
        }
        moment()
    }

    /// `Seeked(x position)`: the position is in the signal.
    func seeked(to position: Int64) {
        guard !isClosed else { return }
        self.position = position
        sync()
    }

    private func moment() {
        guard ready else { return }
        updateCommands()
        updateAudio()
        guard !positionReadInFlight else { momentPending = true; return }
        positionReadInFlight = true
        client?.call(busName, path: MPRISImportMapping.objectPath, interface: "org.freedesktop.DBus.Properties",
                     member: "Get", arguments: [.string(MPRISImportMapping.playerInterface), .string("Position")]) { [weak self] result in
            guard let self, !self.isClosed else { return }
            self.positionReadInFlight = false
            if case .success(let args) = result, let p = args.first?.int64Value { self.position = p }
            if self.momentPending {
                self.momentPending = false
                return self.moment()
            }
            self.sync()
        }
    }

    private func sync() {
        guard ready, let app else { return }
        var p = MPRISImportMapping.sync(properties, position: position)
        p["session"] = .string(sessionID)
        app.call("player.sync", p) { [weak self] result in
            if case .failure(let e) = result { self?.log("\(self?.busName ?? ""): player.sync: \(e.message)") }
        }
    }

    private func updateCommands() {
        guard let app else { return }
        for command in MPRISImportMapping.commands {
            let on = isEnabled(command)
            guard enabled[command] != on else { continue }
            enabled[command] = on
            app.send("command.enable", ["session": .string(sessionID), "command": .string(command), "enabled": .bool(on)])
        }
    }

    /// Activated when it plays (re-activated if the model interrupted it meanwhile: playing
    /// again on its own takes the audio back and interrupts the others), kept while paused so it
    /// stays Now Playing and an interruption's end can resume it, deactivated when Stopped.
    private func updateAudio() {
        guard ready, let app else { return }
        let status = properties["PlaybackStatus"]?.stringValue
        let sid = JSON.string(sessionID)
        if status == "Playing", !audioActive || interruptedByModel {
            audioActive = true
            interruptedByModel = false
            pausedByUs = false
            app.send("audio.activate", ["session": sid])
        } else if status == "Stopped", audioActive {
            audioActive = false
            interruptedByModel = false
            pausedByUs = false
            app.send("audio.deactivate", ["session": sid])
        }
    }

    // MARK: - Commands and interruptions out

    private func perform(_ event: JSON, _ reply: @escaping (CommandStatus) -> Void) {
        guard let client, let call = MPRISImportMapping.call(for: event, properties: properties, position: position) else {
            return reply(.commandFailed)
        }
        let done: (Result<[DBusValue], DBusError>) -> Void = { [weak self] result in
            switch result {
            case .success: reply(.success)
            case .failure(let e):
                self?.log("\(self?.busName ?? ""): \(event["command"]?.stringValue ?? "command"): \(e.name): \(e.message)")
                reply(.commandFailed)
            }
        }
        switch call {
        case .method(let member, let args):
            client.call(busName, path: MPRISImportMapping.objectPath, interface: MPRISImportMapping.playerInterface,
                        member: member, arguments: args, done)
        case .set(let property, let value):
            client.setProperty(busName, path: MPRISImportMapping.objectPath, interface: MPRISImportMapping.playerInterface,
                               property: property, value: value, done)
        }
    }

    private func event(_ e: JSON) {
        guard e["type"]?.stringValue == "interruption", e["session"]?.stringValue == sessionID else { return }
        if e["interruption"]?.stringValue == "began" {
            interruptedByModel = true
            guard interruptImported, properties["PlaybackStatus"]?.stringValue == "Playing" else { return }
            pausedByUs = true
            client?.call(busName, path: MPRISImportMapping.objectPath, interface: MPRISImportMapping.playerInterface,
                         member: "Pause") { [weak self] result in
                if case .failure(let e) = result { self?.log("\(self?.busName ?? ""): Pause on interruption: \(e.message)") }
            }
        } else {
            interruptedByModel = false
            // Resumed only if we paused it: a player the user paused stays paused.
            guard pausedByUs else { return }
            pausedByUs = false
            guard e["shouldResume"]?.boolValue == true else { return }
            client?.call(busName, path: MPRISImportMapping.objectPath, interface: MPRISImportMapping.playerInterface,
                         member: "Play") { [weak self] result in
                if case .failure(let e) = result { self?.log("\(self?.busName ?? ""): Play after interruption: \(e.message)") }
            }
        }
    }

    /// The name went: the app connection closes and its session goes with it.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        app?.close()
        app = nil
    }
}
