import Glibc
import PlayerHostPluginAPI

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
    /// When `position` was read (ns on the loop's monotonic clock, `now`): a player without
    /// `Seeked` has moved on since, and a seek from the stale value would overshoot.
    private var positionReadAt: UInt64 = 0
    /// The loop's monotonic clock in ns, read here at the I/O edge (injected for tests).
    private let now: () -> UInt64
    /// The `supportedPlaybackRates` last configured (nil: none yet).
    private var configuredRates: [Double]?
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
    /// A `GetAll` for invalidated properties is out: further invalidations wait for it, so a
    /// flood of signals costs one call at a time, not one each.
    private var refreshInFlight = false
    private var refreshPending = false
    /// A publish round (command enables, audio, `player.sync`) is out: changes meanwhile make
    /// one more round after it, so a flood of signals never queues unbounded calls to the host.
    private var publishInFlight = false
    private var publishPending = false

    /// Whether the player says it plays.
    var isPlaying: Bool { properties["PlaybackStatus"]?.stringValue == "Playing" }

    init(busName: String, owner: String, client: DBusClient, interruptImported: Bool,
         now: @escaping () -> UInt64 = EventLoop.hrtime, log: @escaping (String) -> Void) {
        self.busName = busName
        self.now = now
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
            // Identity is the app's name (kept as given: `appName`), DesktopEntry its desktop entry.
            let identity = MPRISImportMapping.appName(root["Identity"], fallback: self.sessionID)
            let desktopEntry = MPRISImportMapping.desktopEntry(root["DesktopEntry"])
            self.getAll(MPRISImportMapping.playerInterface) { [weak self] player in
                guard let self, !self.isClosed else { return }
                self.properties = MPRISImportMapping.bounded(properties: player)
                self.setPosition(MPRISImportMapping.microseconds(player["Position"]))
                host.openApp(identity, desktopEntry: desktopEntry) { [weak self] result in
                    switch result {
                    case .failure(let e):
                        self?.log("\(self?.busName ?? identity): cannot open its app connection: \(e.message)")
                    case .success(let app):
                        // The player may have gone (and this object with it) while the app was
                        // opening: the app is ours to close either way, or its fds leak.
                        guard let self, !self.isClosed else { return app.close() }
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
                // A player that went while asked is not news (a churning name would log each time).
                if let self, !self.isClosed { self.log("\(self.busName): GetAll \(interface): \(e.message)") }
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
            self.configureRates(app)
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
            self.publish()
        }
    }

    private func isEnabled(_ command: String) -> Bool {
        MPRISImportMapping.isEnabled(command, properties)
    }

    // MARK: - State in

    /// `PropertiesChanged` from the player: merge, then read Position once and sync.
    func propertiesChanged(interface: String, changed: [String: DBusValue], invalidated: [String]) {
        guard interface == MPRISImportMapping.playerInterface, !isClosed else { return }
        properties.merge(MPRISImportMapping.bounded(properties: changed)) { _, new in new }
        if !invalidated.isEmpty || refreshInFlight {
            // Values left out of the signal: read them back before the moment counts.
            refresh()
            return
        }
        moment()
    }

    /// One `GetAll` at a time; invalidations meanwhile make one more after it.
    private func refresh() {
        guard !refreshInFlight else { refreshPending = true; return }
        refreshInFlight = true
        getAll(MPRISImportMapping.playerInterface) { [weak self] all in
            guard let self, !self.isClosed else { return }
            self.refreshInFlight = false
            self.properties.merge(MPRISImportMapping.bounded(properties: all)) { _, new in new }
            if self.refreshPending {
                self.refreshPending = false
                return self.refresh()
            }
            self.moment()
        }
    }

    /// `Seeked(x position)`: the position is in the signal (nil: out of range, so not known).
    func seeked(to position: Int64?) {
        guard !isClosed else { return }
        setPosition(position)
        publish()
    }

    private func moment() {
        guard ready else { return }
        guard !positionReadInFlight else { momentPending = true; return }
        positionReadInFlight = true
        client?.call(busName, path: MPRISImportMapping.objectPath, interface: "org.freedesktop.DBus.Properties",
                     member: "Get", arguments: [.string(MPRISImportMapping.playerInterface), .string("Position")]) { [weak self] result in
            guard let self, !self.isClosed else { return }
            self.positionReadInFlight = false
            // An answer out of range (or of another type) is "not known", like no answer.
            if case .success(let args) = result { self.setPosition(MPRISImportMapping.microseconds(args.first)) }
            if self.momentPending {
                self.momentPending = false
                return self.moment()
            }
            self.publish()
        }
    }

    /// A position the player gave (or a seek put it at), read now.
    private func setPosition(_ us: Int64?) {
        position = us
        positionReadAt = now()
    }

    /// The player's position now: the last one read, moved on by the time since while it plays.
    private var currentPosition: Int64? {
        MPRISImportMapping.extrapolated(position, readAt: positionReadAt, now: now(), properties: properties)
    }

    /// Sends what the moment changed: command enables, the audio session, then `player.sync`.
    /// One round at a time: its `player.sync` reply ends it.
    private func publish() {
        guard ready, let app else { return }
        guard !publishInFlight else { publishPending = true; return }
        publishInFlight = true
        updateCommands()
        updateAudio()
        var p = MPRISImportMapping.sync(properties, position: currentPosition)
        p["session"] = .string(sessionID)
        app.call("player.sync", p) { [weak self] result in
            guard let self else { return }
            self.publishInFlight = false
            if case .failure(let e) = result { self.log("\(self.busName): player.sync: \(e.message)") }
            guard self.publishPending, !self.isClosed else { return }
            self.publishPending = false
            self.publish()
        }
    }

    private func updateCommands() {
        guard let app else { return }
        configureRates(app)
        for command in MPRISImportMapping.commands {
            let on = isEnabled(command)
            guard enabled[command] != on else { continue }
            enabled[command] = on
            app.send("command.enable", ["session": .string(sessionID), "command": .string(command), "enabled": .bool(on)])
        }
    }

    /// `changePlaybackRate`'s rates follow the player's `MinimumRate`/`MaximumRate`.
    private func configureRates(_ app: PluginContext) {
        let rates = MPRISImportMapping.supportedRates(properties)
        guard rates != configuredRates else { return }
        configuredRates = rates
        app.send("command.configure", ["session": .string(sessionID), "command": "changePlaybackRate",
                                       "supportedPlaybackRates": .array(rates.map { .double($0) })])
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
        guard MPRISImportMapping.seeksByOffset(event, properties) else { return send(event, reply) }
        guard let client else { return reply(.commandFailed) }
        // A Seek by offset is only as good as the position it starts from: read it fresh (the
        // one from the last key moment is as old as that moment on a player without `Seeked`).
        // Within 0.5 s, so the Seek after it still fits the host's command timeout (2 s).
        client.call(busName, path: MPRISImportMapping.objectPath, interface: "org.freedesktop.DBus.Properties",
                    member: "Get", arguments: [.string(MPRISImportMapping.playerInterface), .string("Position")],
                    timeoutMs: MPRISImportMapping.freshPositionTimeoutMs) { [weak self] result in
            guard let self, !self.isClosed else { return reply(.commandFailed) }
            // Not answered: the last one read, extrapolated, is the best there is.
            if case .success(let args) = result { self.setPosition(MPRISImportMapping.microseconds(args.first)) }
            self.send(event, reply)
        }
    }

    private func send(_ event: JSON, _ reply: @escaping (CommandStatus) -> Void) {
        guard let client, let call = MPRISImportMapping.call(for: event, properties: properties, position: currentPosition) else {
            return reply(.commandFailed)
        }
        let seekTarget = MPRISImportMapping.seeksByOffset(event, properties) ? event["position"]?.doubleValue : nil
        let done: (Result<[DBusValue], DBusError>) -> Void = { [weak self] result in
            switch result {
            case .success:
                // A player without `Seeked` says nothing of where it is now: it is where we
                // put it, and the model hears so (else its elapsed stays the old one).
                if let self, let seekTarget, !self.isClosed {
                    self.setPosition(MPRISImportMapping.clampedMicroseconds(seekTarget))
                    self.publish()
                }
                reply(.success)
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

    /// How long the player may take to answer `OpenUri` (ms): loading a stream can take a moment,
    /// but a hung player must not hold the caller for sd-bus's 25 s.
    static let openUriTimeoutMs: UInt64 = 5000

    /// `OpenUri(uri)` on the player (`npctl -p NAME open`, as playerctl's `open`): done when the
    /// player answered; its D-Bus error becomes one error naming it.
    func openUri(_ uri: String, _ reply: @escaping (Result<JSON, RPCError>) -> Void) {
        guard let client, !isClosed else { return reply(.failure(RPCError(.sessionNotFound, "\(busName) is gone"))) }
        client.call(busName, path: MPRISImportMapping.objectPath, interface: MPRISImportMapping.playerInterface,
                    member: "OpenUri", arguments: [.string(uri)], timeoutMs: Self.openUriTimeoutMs) { [sessionID, busName] result in
            switch result {
            case .success: reply(.success(["session": .string(sessionID)]))
            case .failure(let e):
                reply(.failure(RPCError(.pluginFailure, "\(busName) refused OpenUri: \(e.name): \(e.message)",
                                        data: ["session": .string(sessionID), "dbusError": .string(e.name)])))
            }
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
