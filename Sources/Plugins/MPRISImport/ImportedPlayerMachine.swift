import PlayerHostPluginAPI

/// One desktop MPRIS player brought into the model, as a pure state machine: the import's
/// phases (read the root, read the player, open the app, create the session, ready, closed),
/// the one-at-a-time rounds (a `GetAll` refresh, the Position read of a moment, a publish), the
/// audio session's state, and the commands and interruptions that go out to the player.
///
/// Inputs are the player's signals and replies, the host's replies and requests; each
/// `handle(_:now:)` returns the actions for `ImportedPlayer`, its driver (the bus calls, the app
/// connection), to carry out in order. Time is `now` (monotonic ns), so a stale position is
/// extrapolated the same in tests (ImportedPlayerMachineTests) as on the loop.
///
/// State comes in at key moments only: PropertiesChanged (then Position is read with one Get)
/// and Seeked (which carries the position). Nothing polls.
struct ImportedPlayerMachine {
    let busName: String
    let sessionID: String
    let interruptImported: Bool
    private(set) var phase: Phase = .idle
    private(set) var properties: [String: DBusValue] = [:]
    private var position: Int64?
    /// When `position` was read: a player without `Seeked` has moved on since, and a seek from
    /// the stale value would overshoot.
    private var positionReadAt: UInt64 = 0
    /// The `supportedPlaybackRates` last configured (nil: none yet).
    var configuredRates: [Double]?
    var enabled: [String: Bool] = [:]
    var audio = Audio()
    /// A `GetAll` for invalidated properties is out: further invalidations wait for it, so a
    /// flood of signals costs one call at a time, not one each.
    private(set) var refresh = Round.idle
    /// The Position read of a moment: moments meanwhile are answered by it.
    private(set) var positionRead = Round.idle
    /// A publish round (command enables, audio, `player.sync`) is out: changes meanwhile make
    /// one more round after it, so a flood of signals never queues unbounded calls to the host.
    var publishing = Round.idle
    private(set) var awaiting: [Int: Purpose] = [:]
    private var nextTag = 1
    private var now: UInt64 = 0
    private var out: [Action] = []

    init(busName: String, interruptImported: Bool) {
        self.busName = busName
        sessionID = MPRISImportMapping.sessionID(for: busName)
        self.interruptImported = interruptImported
    }

    var isClosed: Bool { phase == .closed }
    var isReady: Bool { phase == .ready }

    /// Whether the player says it plays.
    var isPlaying: Bool { properties["PlaybackStatus"]?.stringValue == "Playing" }

    /// Handles one input at monotonic time `now` (ns); returns what to do, in order.
    mutating func handle(_ input: Input, now: UInt64) -> [Action] {
        self.now = now
        out = []
        switch input {
        case .start:
            guard phase == .idle else { break }
            phase = .readingRoot
            call(.getAll(MPRISImportMapping.rootInterface), for: .readRoot)
        case .reply(let tag, let result):
            if let purpose = awaiting.removeValue(forKey: tag) { replied(purpose, result) }
        case .unsent(let tag):
            if let purpose = awaiting.removeValue(forKey: tag) { unsent(purpose) }
        case .appOpened(let result): appOpened(result)
        case .sessionCreated(let result): sessionCreated(result)
        case .propertiesChanged(let interface, let changed, let invalidated):
            propertiesChanged(interface: interface, changed: changed, invalidated: invalidated)
        case .seeked(let position):
            guard !isClosed else { break }
            setPosition(position)
            publish()
        case .synced(let error):
            let again = publishing == .inFlight(again: true)
            publishing = .idle
            if let error { emit(.log("\(busName): player.sync: \(error)")) }
            if again, !isClosed { publish() }
        case .perform(let token, let event): perform(token, event)
        case .openUri(let token, let uri):
            guard !isClosed else {
                emit(.answerOpenUri(token, .failure(RPCError(.sessionNotFound, "\(busName) is gone"))))
                break
            }
            call(.method("OpenUri", [.string(uri)], timeoutMs: Self.openUriTimeoutMs), for: .openUri(token))
        case .hostEvent(let e): hostEvent(e)
        case .close:
            guard !isClosed else { break }
            phase = .closed
            emit(.closeApp)
        }
        let actions = out
        out = []
        return actions
    }

    /// How long the player may take to answer `OpenUri` (ms): loading a stream can take a moment,
    /// but a hung player must not hold the caller for sd-bus's 25 s.
    static let openUriTimeoutMs: UInt64 = 5000
    /// The bus client's default call timeout (ms).
    static let callTimeoutMs: UInt64 = 2000

    mutating func emit(_ action: Action) { out.append(action) }

    mutating func call(_ c: BusCall, for purpose: Purpose) {
        let tag = nextTag
        nextTag += 1
        awaiting[tag] = purpose
        emit(.call(tag, c))
    }

    // MARK: - Import

    private mutating func replied(_ purpose: Purpose, _ result: Result<[DBusValue], DBusError>) {
        switch purpose {
        case .readRoot:
            let root = all(result, MPRISImportMapping.rootInterface)
            guard phase == .readingRoot else { return }
            // Identity is the app's name (kept as given: `appName`), DesktopEntry its desktop entry.
            phase = .readingPlayer(identity: MPRISImportMapping.appName(root["Identity"], fallback: sessionID),
                                   desktopEntry: MPRISImportMapping.desktopEntry(root["DesktopEntry"]))
            call(.getAll(MPRISImportMapping.playerInterface), for: .readPlayer)
        case .readPlayer:
            let player = all(result, MPRISImportMapping.playerInterface)
            guard case .readingPlayer(let identity, let desktopEntry) = phase else { return }
            properties = MPRISImportMapping.bounded(properties: player)
            setPosition(MPRISImportMapping.microseconds(player["Position"]))
            phase = .openingApp
            emit(.openApp(identity, desktopEntry: desktopEntry))
        case .refresh:
            let all = all(result, MPRISImportMapping.playerInterface)
            guard !isClosed else { return }
            let again = refresh == .inFlight(again: true)
            refresh = .idle
            properties.merge(MPRISImportMapping.bounded(properties: all)) { _, new in new }
            if again { return refreshProperties() }
            moment()
        case .momentPosition:
            guard !isClosed else { return }
            let again = positionRead == .inFlight(again: true)
            positionRead = .idle
            // An answer out of range (or of another type) is "not known", like no answer.
            if case .success(let args) = result { setPosition(MPRISImportMapping.microseconds(args.first)) }
            if again { return moment() }
            publish()
        case .freshPosition(let token, let event):
            guard !isClosed else { return emit(.answer(token, .commandFailed)) }
            // Not answered: the last one read, extrapolated, is the best there is.
            if case .success(let args) = result { setPosition(MPRISImportMapping.microseconds(args.first)) }
            send(token, event)
        case .command(let token, let name, let seekTarget):
            switch result {
            case .success:
                // A player without `Seeked` says nothing of where it is now: it is where we
                // put it, and the model hears so (else its elapsed stays the old one).
                if let seekTarget, !isClosed {
                    setPosition(MPRISImportMapping.clampedMicroseconds(seekTarget))
                    publish()
                }
                emit(.answer(token, .success))
            case .failure(let e):
                emit(.log("\(busName): \(name): \(e.name): \(e.message)"))
                emit(.answer(token, .commandFailed))
            }
        case .openUri(let token):
            switch result {
            case .success: emit(.answerOpenUri(token, .success(["session": .string(sessionID)])))
            case .failure(let e):
                emit(.answerOpenUri(token, .failure(RPCError(.pluginFailure, "\(busName) refused OpenUri: \(e.name): \(e.message)",
                                                             data: ["session": .string(sessionID), "dbusError": .string(e.name)]))))
            }
        case .interruption(let what):
            if case .failure(let e) = result { emit(.log("\(busName): \(what): \(e.message)")) }
        }
    }

    /// A call the bus client could not send: what answers a host request answers it.
    private mutating func unsent(_ purpose: Purpose) {
        switch purpose {
        case .freshPosition(let token, _), .command(let token, _, _): emit(.answer(token, .commandFailed))
        case .openUri(let token): emit(.answerOpenUri(token, .failure(RPCError(.sessionNotFound, "\(busName) is gone"))))
        case .readRoot, .readPlayer, .refresh, .momentPosition, .interruption: break
        }
    }

    /// A `GetAll`'s dictionary (empty on failure, logged unless the player went meanwhile: a
    /// churning name would log each time).
    private mutating func all(_ result: Result<[DBusValue], DBusError>, _ interface: String) -> [String: DBusValue] {
        switch result {
        case .success(let args):
            if case .dictionary(let d)? = args.first { return d }
            return [:]
        case .failure(let e):
            if !isClosed { emit(.log("\(busName): GetAll \(interface): \(e.message)")) }
            return [:]
        }
    }

    private mutating func appOpened(_ result: Result<Void, RPCError>) {
        switch result {
        case .failure(let e):
            emit(.log("\(busName): cannot open its app connection: \(e.message)"))
            if phase == .openingApp { phase = .stuck("no app connection: \(e.message)") }
        case .success:
            // The player may have gone while the app was opening: the app is ours to close
            // either way, or its fds leak.
            guard phase == .openingApp else { return emit(.closeApp) }
            phase = .creatingSession
            emit(.createSession)
        }
    }

    private mutating func sessionCreated(_ result: Result<Void, RPCError>) {
        guard phase == .creatingSession else { return }
        if case .failure(let e) = result {
            phase = .stuck("no session: \(e.message)")
            return emit(.log("\(busName): session.create: \(e.message)"))
        }
        let sid = JSON.string(sessionID)
        emit(.hostSend("audio.configure", ["session": sid, "category": "playback"]))
        configureRates()
        for command in MPRISImportMapping.commands {
            let on = MPRISImportMapping.isEnabled(command, properties)
            enabled[command] = on
            emit(.addTarget(command))
            if on { emit(.hostSend("command.enable", ["session": sid, "command": .string(command), "enabled": true])) }
        }
        emit(.listen)
        phase = .ready
        publish()
    }

    // MARK: - State in

    /// `PropertiesChanged` from the player: merge, then read Position once and sync.
    private mutating func propertiesChanged(interface: String, changed: [String: DBusValue], invalidated: [String]) {
        guard interface == MPRISImportMapping.playerInterface, !isClosed else { return }
        properties.merge(MPRISImportMapping.bounded(properties: changed)) { _, new in new }
        if !invalidated.isEmpty || refresh.isInFlight {
            // Values left out of the signal: read them back before the moment counts.
            return refreshProperties()
        }
        moment()
    }

    /// One `GetAll` at a time; invalidations meanwhile make one more after it.
    private mutating func refreshProperties() {
        guard !refresh.isInFlight else { refresh = .inFlight(again: true); return }
        refresh = .inFlight(again: false)
        call(.getAll(MPRISImportMapping.playerInterface), for: .refresh)
    }

    private mutating func moment() {
        guard isReady else { return }
        guard !positionRead.isInFlight else { positionRead = .inFlight(again: true); return }
        positionRead = .inFlight(again: false)
        call(.get("Position", timeoutMs: Self.callTimeoutMs), for: .momentPosition)
    }

    /// A position the player gave (or a seek put it at), read now.
    mutating func setPosition(_ us: Int64?) {
        position = us
        positionReadAt = now
    }

    /// The player's position now: the last one read, moved on by the time since while it plays.
    var currentPosition: Int64? {
        MPRISImportMapping.extrapolated(position, readAt: positionReadAt, now: now, properties: properties)
    }
}
