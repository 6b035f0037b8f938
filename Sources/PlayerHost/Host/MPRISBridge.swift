import Logging
import PlayerHostBase
import PlayerHostLoop
import PlayerHostMPRIS
import PlayerHostModel

/// The host's sessions as one MPRIS2 player on the session bus.
///
/// What it shows is `MPRISExportSelection`'s choice (`[mpris] export`): by default the host's own
/// session that is Now Playing, or was most recently while an imported desktop player holds the
/// slot (that player has its own card: mirroring it would show it twice); with
/// `export = "now-playing"`, whatever is Now Playing.
///
/// Owns `org.mpris.MediaPlayer2.playerhost` at `/org/mpris/MediaPlayer2` for as long as the
/// daemon runs (not only while something is shown: a name that comes and goes makes desktop
/// shells flicker; with nothing to show it is Stopped, with empty Metadata and `CanPlay` false,
/// which shells take as "hide the card"). Its input is the export's own slot: the `Publisher`
/// gates the session the export shows (a `SlotSink`: first change at once, later ones in the
/// window merged, identical ones dropped), and the bridge shows only what that gate published,
/// with the session's command center (`commands` events, so Can* follow at once).
/// `MPRISProperties` maps it, and `MPRISSignal.between` the previous mapping and the new one is
/// exactly what goes out: PropertiesChanged with the new values of what changed (none when
/// nothing did), `Seeked` on a jump. Gets read the live value (a caller sees its command's
/// effect at once); signals never do. Method calls and property writes become commands of the
/// session shown through the same path as `command.send`.
///
/// Lifecycle: disabled by `[mpris] enabled = false`; no session bus → the daemon runs without
/// MPRIS and says so once; the bus going away → reconnect with backoff (100 ms doubling to 5 s).
public final class MPRISBridge: DBusObjectHandler {
    public static let busName = "org.mpris.MediaPlayer2.playerhost"
    public static let objectPath = "/org/mpris/MediaPlayer2"
    static let identity = "PlayerHost"
    static let maxBackoffMilliseconds: UInt64 = 5000

    /// Where the bridge stands, as `host.stats` shows it.
    public enum Status: String, Sendable {
        case disabled
        case noSessionBus = "no session bus"
        case connecting
        case active
        /// Connected, but another process owns the name; we are queued behind it.
        case queued
        case reconnecting
        case stopped
    }

    public private(set) var status: Status = .connecting
    /// The properties as last published (what the signals sent so far add up to).
    public private(set) var properties = MPRISProperties()
    /// What the export's slot gate published last (nil: nothing shown).
    public private(set) var slotValue: NowPlayingSnapshot?
    /// Sees every signal the bridge builds, sent or not (no bus): tests read the payload here.
    var onSignal: ((MPRISSignal) -> Void)?
    /// PropertiesChanged and Seeked signals sent since start.
    public private(set) var signalsSent = 0
    public private(set) var reconnects = 0

    let loop: EventLoop
    let logger: Logger
    let service: NowPlayingService
    let address: String?
    let enabled: Bool
    /// Which session is shown; its mode is `[mpris] export` (a reload sets it).
    private var selection: MPRISExportSelection
    /// `[mpris] export`: setting it publishes what the new mode shows.
    public var exportMode: MPRISExportMode {
        get { selection.mode }
        set {
            guard newValue != selection.mode else { return }
            selection.mode = newValue
            // The slot shows another session now: offered to its gate like any change.
            service.publisher.offerSlots()
        }
    }
    /// Opens a URI in a player plugin (OpenUri); nil when none can.
    var opener: ((String) -> Result<Void, DBusError>)?
    /// Whether a player plugin can open URIs now (SupportedUriSchemes is empty otherwise).
    var canOpen: () -> Bool = { false }

    private var connection: DBusConnection?
    private var reconnectTimer: Timer?
    /// When to try the bus again: the host's one restart rule, 100 ms doubling to 5 s while
    /// attempts keep failing, never giving up; back to 100 ms once the name is ours (or queued).
    static let reconnectBackoff = RestartPolicy(initialBackoffMS: 100, maxBackoffMS: maxBackoffMilliseconds,
                                                stableAfterMS: .max, startLimit: nil)
    private var reconnectPolicy = MPRISBridge.reconnectBackoff
    private var isClosed = false
    private var outageLogged = false
    private var liveCache: (turn: UInt64, value: MPRISProperties)?

    /// `address`: the session bus (nil: there is none).
    public init(loop: EventLoop, logger: Logger, service: NowPlayingService, address: String?, enabled: Bool = true,
                exportMode: MPRISExportMode = .own) {
        selection = MPRISExportSelection(mode: exportMode)
        self.loop = loop
        self.logger = logger
        self.service = service
        self.address = address
        self.enabled = enabled
        // The export's own slot, gated by the publisher (followed without a bus too: `mpris.get`).
        service.publisher.addSlot(self)
    }

    /// Sets `exportMode` from `[mpris] export` (validated with the config; anything else: `own`).
    public func configure(export: String?) {
        exportMode = export.flatMap(MPRISExportMode.init(configValue:)) ?? .own
    }

    /// Connects, exports the object and asks for the name (answers arrive on later turns).
    public func start() {
        guard enabled else {
            status = .disabled
            logger.info("MPRIS is off ([mpris] enabled = false)")
            return
        }
        guard address != nil else {
            status = .noSessionBus
            logger.notice("no session bus (DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus): running without MPRIS")
            return
        }
        properties = MPRISProperties(publishedValue())
        connect()
    }

    /// Shutdown: closes the connection (the name goes with it) and the reconnect timer.
    public func close() {
        isClosed = true
        reconnectTimer?.close()
        reconnectTimer = nil
        connection?.close()
        connection = nil
        if status != .disabled && status != .noSessionBus { status = .stopped }
    }

    /// `host.stats`' `mpris` object.
    var statsJSON: JSON {
        ["status": .string(status.rawValue), "busName": .string(Self.busName),
         "signalsSent": .int(Int64(signalsSent)), "reconnects": .int(Int64(reconnects)),
         "export": .string(selection.mode.rawValue), "session": properties.session.map { .string($0) } ?? .null,
         "messagesDispatched": .int(Int64(connection?.messagesProcessed ?? 0))]
    }

    // MARK: - Input

    /// The value shown now (guarded, elapsed inferred) with its command center: what Gets read.
    private func currentValue() -> MPRISNowPlaying? {
        shownValue(slot: service.publisher.currentNowPlaying())
    }

    /// What the export's slot gate published, with its session's command center: what signals carry.
    private func publishedValue() -> MPRISNowPlaying? {
        slotValue.map { MPRISNowPlaying($0, commands: commands(of: $0.session)) }
    }

    /// What the export shows while `slot` is the Now Playing value: that value when the selection
    /// picks its session, else the chosen own session's info as it is now.
    private func shownValue(slot: NowPlayingSnapshot?) -> MPRISNowPlaying? {
        let model = service.model
        guard let shown = selection.choose(nowPlaying: slot?.session, sessions: { model.sessions[$0] }) else { return nil }
        if let slot, slot.session == shown { return MPRISNowPlaying(slot, commands: commands(of: shown)) }
        // Not Now Playing: its published info, caught up to now as `info.get` reads it.
        var caughtUp = model
        let t = max(service.now, caughtUp.clock)
        caughtUp.settle(to: t)
        guard let s = caughtUp.sessions[shown] else { return nil }
        return MPRISNowPlaying(caughtUp.snapshot(of: s, at: t), commands: s.commandCenter)
    }

    /// `mpris.get`: what `playerctl -p playerhost` reads, as `nowPlaying.get` shapes it
    /// (`{session, info, playbackState, timestamp}`, null when nothing is shown); npctl builds
    /// its `playerhost` from it.
    public func shownJSON(language: String?) -> JSON {
        guard let v = currentValue() else { return .null }
        return NowPlayingSnapshot(session: v.session, info: v.info, playbackState: v.playbackState, timestamp: v.timestamp,
                                  volume: v.volume).toJSON(language: language)
    }

    /// The live properties, built once per loop turn (a GetAll or a PropertiesChanged reads a
    /// dozen); anything that may change the model in between drops the cache.
    private func liveProperties() -> MPRISProperties {
        let turn = loop.nowMilliseconds
        if let cached = liveCache, cached.turn == turn { return cached.value }
        let value = MPRISProperties(currentValue())
        liveCache = (turn, value)
        return value
    }

    private func commands(of session: SessionID) -> CommandCenter {
        service.model.sessions[session]?.commandCenter ?? CommandCenter()
    }

    /// Publishes a new value of the export: PropertiesChanged with the new values of what
    /// differs, Seeked on a jump (`MPRISSignal.between`).
    public func update(_ value: MPRISNowPlaying?) {
        liveCache = nil
        let new = MPRISProperties(value)
        let old = properties
        properties = new
        for signal in MPRISSignal.between(old, new) {
            onSignal?(signal)
            guard let connection else { continue }
            switch signal {
            case .propertiesChanged(let changes):
                connection.emitPropertiesChanged(path: Self.objectPath, interface: MPRISInterface.player.name, changed: changes.map { ($0.name, $0.value) })
            case .seeked(let position):
                connection.emitSeeked(path: Self.objectPath, position: position)
            }
            signalsSent += 1
        }
    }

    // MARK: - DBusObjectHandler

    public func value(of property: String, in name: String) -> DBusValue? {
        guard let interface = MPRISInterface(name: name) else { return nil }
        switch (interface, property) {
        case (.root, "CanQuit"), (.root, "CanRaise"), (.root, "HasTrackList"): return .boolean(false)
        case (.root, "Identity"): return .string(Self.identity)
        case (.root, "SupportedUriSchemes"): return .strings(canOpen() ? ["file", "http", "https"] : [])
        case (.root, "SupportedMimeTypes"):
            return .strings(canOpen() ? ["audio/mpeg", "audio/flac", "audio/ogg", "audio/wav", "audio/mp4", "video/mp4", "video/webm"] : [])
        case (.player, "CanControl"): return .boolean(true)
        case (.player, _):
            // A Get reads the value as it is now; signals carry what the gate let through, so a
            // caller asking right after a command sees its effect even inside a coalescing window.
            let live = liveProperties()
            if property == "Position" { return .int64(live.positionMicroseconds(at: service.now)) }
            return live.playerProperties[property]
        default: return nil
        }
    }

    public func set(_ property: String, in name: String, to value: DBusValue) -> Result<Void, DBusError> {
        guard let interface = MPRISInterface(name: name) else { return .failure(.invalidArgs("no interface \(name)")) }
        return carryOut(MPRISRequest.set(property, interface: interface, value: value, properties: liveProperties()))
    }

    public func call(_ member: String, in name: String, arguments: [DBusValue]) -> Result<Void, DBusError> {
        guard let interface = MPRISInterface(name: name) else { return .failure(.invalidArgs("no interface \(name)")) }
        // Against the live value, as Gets show it (SetPosition's trackid comes from a Get).
        let live = liveProperties()
        return carryOut(MPRISRequest.call(member, interface: interface, arguments: arguments, properties: live, now: service.now))
    }

    private func carryOut(_ request: MPRISRequest) -> Result<Void, DBusError> {
        // The session shown gets the command (nil: the Now Playing one, in `now-playing` mode);
        // with nothing shown in `own` mode there is nobody to send it to: an imported player
        // holding the slot is controlled through its own card.
        let target = liveProperties().session
        liveCache = nil
        switch request {
        case .ignore:
            return .success(())
        case .fail(let e):
            return .failure(e)
        case .open(let uri):
            guard let opener else { return .failure(.notSupported("no player plugin can open URIs")) }
            return opener(uri)
        case .send(let kind, let payload):
            // The path command.send takes. A disabled or untargeted command does nothing: MPRIS
            // callers are told through Can*, not by an error.
            guard target != nil || selection.mode == .nowPlaying else { return .success(()) }
            do {
                let progress = try service.perform { m, t in try m.sendCommand(kind, session: target, payload: payload, now: t) }
                service.drive(progress, promise: nil)
            } catch {
                logger.debug("MPRIS \(kind.rawValue): \(error.message)")
            }
            return .success(())
        }
    }

    // MARK: - Connection

    private func connect() {
        guard !isClosed, let address else { return }
        let c = DBusConnection(loop: loop, address: address)
        c.onDisconnect = { [weak self] reason in self?.lost(reason) }
        c.onNameOwnership = { [weak self] name, owned in
            guard let self else { return }
            // Each report, not only RequestName's reply: after an impostor releases the name the
            // bus hands it to us with NameAcquired alone.
            guard self.status != (owned ? .active : .queued) else { return }
            self.status = owned ? .active : .queued
            self.reconnectPolicy.reset()
            self.outageLogged = false
            if owned { self.logger.info("MPRIS: \(name) on \(address)") } else { self.logger.warning("MPRIS: \(name) is owned by another process; queued") }
        }
        do {
            try c.start()
            try c.exportMPRIS(path: Self.objectPath, handler: self)
            try c.requestName(Self.busName)
        } catch {
            c.close()
            retry("\(error.message)")
            return
        }
        connection = c
        status = .connecting
        // What changed while away goes out as one PropertiesChanged once we are back.
        update(publishedValue())
    }

    private func lost(_ reason: String) {
        connection = nil
        retry("the session bus went away (\(reason))")
    }

    /// Tries again after the backoff; the first failure of an outage is logged, the rest at debug.
    private func retry(_ reason: String) {
        guard !isClosed else { return }
        status = .reconnecting
        // Each failed attempt counts as a quick death (never a stable run: the policy is reset
        // when the bus gives us the name), so the wait doubles.
        guard case .restart(let delay) = reconnectPolicy.died(ranForMS: 0) else { return }
        if outageLogged {
            logger.debug("MPRIS: \(reason); retrying in \(delay) ms")
        } else {
            logger.warning("MPRIS: \(reason); reconnecting with backoff")
            outageLogged = true
        }
        if reconnectTimer == nil { reconnectTimer = try? Timer(loop: loop) }
        reconnectTimer?.start(after: delay) { [weak self] in
            guard let self else { return }
            self.reconnects += 1
            self.connect()
        }
    }
}

extension MPRISBridge: EventSink, SlotSink {
    /// Command changes of the session shown (Can*, LoopStatus, Shuffle, rates), which the gate
    /// does not carry: the slot's published value with the new command center (not the live
    /// value: what the gate holds comes out when its window closes). Closed sessions leave the
    /// selection's memory. Registered for every topic so that any model change drops the live cache.
    public func receive(_ event: PublishedEvent) {
        // Every model change comes with an event: the live value read by Gets is stale now.
        liveCache = nil
        switch event.payload {
        case .model(.commandChanged(let session, _)) where session == properties.session:
            update(publishedValue())
        case .model(.sessionClosed(let session, _)):
            selection.forget(session)
        default:
            break
        }
    }

    /// The session the export shows (`MPRISExportSelection`, from the live Now Playing session)
    /// and its published info, anchored as the Now Playing value is: the slot's gate decides
    /// what of it goes out, and when.
    public func slotCandidate(in model: NowPlayingModel) -> NowPlayingSnapshot? {
        guard let shown = selection.choose(nowPlaying: model.nowPlayingSession, sessions: { model.sessions[$0] }),
              let s = model.sessions[shown] else { return nil }
        let p = model.publishedInfo(s)
        return NowPlayingSnapshot(session: shown, info: p.info, playbackState: p.playbackState, timestamp: p.timestamp, volume: p.volume)
    }

    /// What the slot's gate let through: the export shows it.
    public func slotPublished(_ value: NowPlayingSnapshot?) {
        slotValue = value
        update(publishedValue())
    }
}
