import Logging

/// The Now Playing session as an MPRIS2 player on the session bus.
///
/// Owns `org.mpris.MediaPlayer2.playerhost` at `/org/mpris/MediaPlayer2` for as long as the
/// daemon runs (not only while something is Now Playing: a name that comes and goes makes
/// desktop shells flicker; with nothing Now Playing it shows Stopped, empty Metadata and
/// `CanPlay` false, which shells take as "hide the card"). Its input is one typed value,
/// `MPRISNowPlaying?`, rebuilt after each publication; `MPRISProperties` maps it, and the diff
/// with the previous mapping is what goes out: PropertiesChanged with the new values for
/// real changes only, `Seeked` on a jump. Method calls and property writes become commands of
/// the Now Playing session through the same path as `command.send`.
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
    /// The properties as last published.
    public private(set) var properties = MPRISProperties()
    /// PropertiesChanged and Seeked signals sent since start.
    public private(set) var signalsSent = 0
    public private(set) var reconnects = 0

    let loop: EventLoop
    let logger: Logger
    let service: NowPlayingService
    let address: String?
    let enabled: Bool
    /// Opens a URI in a player plugin (OpenUri); nil when none can.
    var opener: ((String) -> Result<Void, DBusError>)?
    /// Whether a player plugin can open URIs now (SupportedUriSchemes is empty otherwise).
    var canOpen: () -> Bool = { false }

    private var connection: DBusConnection?
    private var reconnectTimer: Timer?
    private var backoff: UInt64 = 100
    private var isClosed = false
    private var outageLogged = false

    /// `address`: the session bus (nil: there is none).
    public init(loop: EventLoop, logger: Logger, service: NowPlayingService, address: String?, enabled: Bool = true) {
        self.loop = loop
        self.logger = logger
        self.service = service
        self.address = address
        self.enabled = enabled
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
        properties = MPRISProperties(MPRISNowPlaying.current(service.model, now: service.now))
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
         "messagesDispatched": .int(Int64(connection?.messagesProcessed ?? 0))]
    }

    // MARK: - Input

    /// A batch of published model events: when it may touch what the Now Playing session shows,
    /// the current value is rebuilt and diffed (a batch that changes nothing sends nothing).
    func receive(_ events: [ModelEvent]) {
        guard connection != nil else { return }
        let current = service.model.nowPlayingSession
        let relevant = events.contains { e in
            if case .nowPlayingChanged = e { return true }
            guard let s = e.session else { return false }
            return s == current || s == properties.session
        }
        guard relevant else { return }
        update(MPRISNowPlaying.current(service.model, now: service.now))
    }

    /// Publishes a new Now Playing value: PropertiesChanged for what differs, Seeked on a jump.
    public func update(_ value: MPRISNowPlaying?) {
        let new = MPRISProperties(value)
        let old = properties
        properties = new
        guard let connection else { return }
        let changed = new.changedPlayerProperties(since: old)
        if !changed.isEmpty {
            connection.emitPropertiesChanged(path: Self.objectPath, interface: .player, names: changed)
            signalsSent += 1
        }
        if let position = new.seekedPosition(since: old) {
            connection.emitSeeked(path: Self.objectPath, position: position)
            signalsSent += 1
        }
    }

    // MARK: - DBusObjectHandler

    public func value(of property: String, in interface: MPRISInterface) -> DBusValue? {
        switch (interface, property) {
        case (.root, "CanQuit"), (.root, "CanRaise"), (.root, "HasTrackList"): return .boolean(false)
        case (.root, "Identity"): return .string(Self.identity)
        case (.root, "SupportedUriSchemes"): return .strings(canOpen() ? ["file", "http", "https"] : [])
        case (.root, "SupportedMimeTypes"):
            return .strings(canOpen() ? ["audio/mpeg", "audio/flac", "audio/ogg", "audio/wav", "audio/mp4", "video/mp4", "video/webm"] : [])
        case (.player, "Position"): return .int64(properties.positionMicroseconds(at: service.now))
        case (.player, "Volume"): return .double(1.0)
        case (.player, "CanControl"): return .boolean(true)
        case (.player, _): return properties.playerProperties[property]
        default: return nil
        }
    }

    public func set(_ property: String, in interface: MPRISInterface, to value: DBusValue) -> Result<Void, DBusError> {
        carryOut(MPRISRequest.set(property, interface: interface, value: value))
    }

    public func call(_ member: String, in interface: MPRISInterface, arguments: [DBusValue]) -> Result<Void, DBusError> {
        carryOut(MPRISRequest.call(member, interface: interface, arguments: arguments, properties: properties, now: service.now))
    }

    private func carryOut(_ request: MPRISRequest) -> Result<Void, DBusError> {
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
            do {
                let progress = try service.perform { m, t in try m.sendCommand(kind, session: nil, payload: payload, now: t) }
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
        c.onNameAcquired = { [weak self] name, owned in
            guard let self else { return }
            self.status = owned ? .active : .queued
            self.backoff = 100
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
        update(MPRISNowPlaying.current(service.model, now: service.now))
    }

    private func lost(_ reason: String) {
        connection = nil
        retry("the session bus went away (\(reason))")
    }

    /// Tries again after the backoff; the first failure of an outage is logged, the rest at debug.
    private func retry(_ reason: String) {
        guard !isClosed else { return }
        status = .reconnecting
        if outageLogged {
            logger.debug("MPRIS: \(reason); retrying in \(backoff) ms")
        } else {
            logger.warning("MPRIS: \(reason); reconnecting with backoff")
            outageLogged = true
        }
        if reconnectTimer == nil { reconnectTimer = try? Timer(loop: loop) }
        reconnectTimer?.start(after: backoff) { [weak self] in
            guard let self else { return }
            self.reconnects += 1
            self.connect()
        }
        backoff = min(backoff * 2, Self.maxBackoffMilliseconds)
    }
}
