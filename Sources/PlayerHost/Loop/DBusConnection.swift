import CSDBus
import Glibc

/// One sd-bus connection driven by the libuv loop: the bus's descriptor is watched by an
/// `FDPoll` for what `sd_bus_get_events` asks, its next timeout (`sd_bus_get_timeout`, an
/// absolute CLOCK_MONOTONIC time in µs, `UINT64_MAX` for none) becomes a relative `Timer`, and
/// `sd_bus_process` runs until it has nothing left, at most `maxMessagesPerTurn` messages per
/// loop turn so a D-Bus flood cannot starve the other handles. Both are re-armed after each
/// dispatch and after each emit. Idle, nothing ticks: the poll waits and no timer is armed.
///
/// The only Swift code that touches sd-bus. Failures come back on a later loop turn through
/// `onDisconnect`, never from inside the call that caused them; after it the connection is closed.
public final class DBusConnection {
    public let loop: EventLoop
    /// The bus address (`unix:path=…`).
    public let address: String
    /// At most this many messages per loop turn; the rest waits for the next turn.
    public var maxMessagesPerTurn = 64
    /// Called once when the bus goes away (the connection is closed by then).
    public var onDisconnect: ((String) -> Void)?
    /// Called with true when the requested name becomes ours, false while we are queued behind
    /// another owner: from RequestName's reply, then from every NameAcquired / NameLost the bus
    /// sends about it (an owner that releases the name hands it to us without another reply).
    public var onNameOwnership: ((String, Bool) -> Void)?
    /// Messages dispatched since start (for tests and stats).
    public private(set) var messagesProcessed = 0

    /// The sd-bus handle (internal: `DBusClient` builds calls and matches on it).
    private(set) var bus: OpaquePointer?
    private var poll: FDPoll?
    private var timer: Timer?
    private var handlers: UnsafeMutablePointer<ph_mpris_handlers>?
    private weak var objectHandler: DBusObjectHandler?
    private var isProcessing = false
    private var pendingName: String?
    public private(set) var isClosed = false

    public init(loop: EventLoop, address: String) {
        self.loop = loop
        self.address = address
    }

    deinit { close() }

    /// The session bus address: `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus` if that
    /// socket exists; nil when there is no session bus.
    public static func sessionBusAddress(environment: [String: String]) -> String? {
        if let a = environment["DBUS_SESSION_BUS_ADDRESS"], !a.isEmpty { return a }
        if let dir = environment["XDG_RUNTIME_DIR"], !dir.isEmpty {
            var st = stat()
            let path = dir + "/bus"
            if stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFSOCK { return "unix:path=" + path }
        }
        return nil
    }

    /// Connects (the socket connect is synchronous, authentication and Hello run on the loop).
    public func start() throws(DBusError) {
        guard bus == nil, !isClosed else { throw DBusError("org.freedesktop.DBus.Error.Failed", "already started") }
        var b: OpaquePointer?
        var r = sd_bus_new(&b)
        guard r >= 0, let b else { throw Self.error(r, "sd_bus_new") }
        r = sd_bus_set_address(b, address)
        if r >= 0 { r = sd_bus_set_bus_client(b, 1) }
        if r >= 0 { r = sd_bus_start(b) }
        guard r >= 0 else {
            sd_bus_unref(b)
            throw Self.error(r, "connecting to \(address)")
        }
        bus = b
        do {
            poll = try FDPoll(loop: loop, fileDescriptor: sd_bus_get_fd(b))
            timer = try Timer(loop: loop)
        } catch {
            close()
            throw DBusError("org.freedesktop.DBus.Error.Failed", "\(error)")
        }
        rearm()
    }

    /// Exports both MPRIS interfaces at `path`, answered by `handler` (held weakly).
    public func exportMPRIS(path: String, handler: DBusObjectHandler) throws(DBusError) {
        guard let bus, handlers == nil else { throw DBusError("org.freedesktop.DBus.Error.Failed", "not connected") }
        objectHandler = handler
        let h = UnsafeMutablePointer<ph_mpris_handlers>.allocate(capacity: 1)
        h.initialize(to: ph_mpris_handlers(
            context: Unmanaged.passUnretained(self).toOpaque(),
            get: { ctx, iface, property, reply, error in
                guard let me = DBusConnection.from(ctx), let property, let reply else { return -EINVAL }
                let name = String(cString: property)
                guard let value = me.objectHandler?.value(of: name, in: DBusConnection.interfaceName(iface)) else {
                    return sd_bus_error_set(error, "org.freedesktop.DBus.Error.UnknownProperty", "no value for \(name)")
                }
                return DBusConnection.append(value, to: reply)
            },
            set: { ctx, iface, property, message, error in
                guard let me = DBusConnection.from(ctx), let property, let message,
                      let value = DBusConnection.readArguments(message).first else {
                    return sd_bus_error_set(error, "org.freedesktop.DBus.Error.InvalidArgs", "unreadable value")
                }
                let result = me.objectHandler?.set(String(cString: property), in: DBusConnection.interfaceName(iface), to: value)
                    ?? .failure(DBusError("org.freedesktop.DBus.Error.Failed", "the object is gone"))
                return DBusConnection.reply(result, error)
            },
            call: { ctx, iface, member, message, error in
                guard let me = DBusConnection.from(ctx), let member, let message else { return -EINVAL }
                let result = me.objectHandler?.call(String(cString: member), in: DBusConnection.interfaceName(iface),
                                                    arguments: DBusConnection.readArguments(message))
                    ?? .failure(DBusError("org.freedesktop.DBus.Error.Failed", "the object is gone"))
                return DBusConnection.reply(result, error)
            }))
        handlers = h
        let r = ph_mpris_add_object(bus, path, h)
        guard r >= 0 else { throw Self.error(r, "exporting \(path)") }
    }

    /// Asks the bus for `name` (queued behind a current owner); the answer comes through
    /// `onNameAcquired` on a later turn.
    public func requestName(_ name: String) throws(DBusError) {
        guard let bus else { throw DBusError("org.freedesktop.DBus.Error.Failed", "not connected") }
        pendingName = name
        // The bus driver's unicast NameAcquired / NameLost, matched before the request goes out
        // so none is missed. The sender is checked here too: sd-bus cannot match a well-known
        // sender locally and lets it through, and any peer can unicast a forged NameAcquired
        // (the bus stamps the real sender, so "org.freedesktop.DBus" is the driver's alone).
        for member in ["NameAcquired", "NameLost"] {
            let m = sd_bus_match_signal_async(bus, nil, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                              member, { m, ctx, _ in
                guard let me = DBusConnection.from(ctx), let m, let wanted = me.pendingName,
                      let sender = sd_bus_message_get_sender(m), strcmp(sender, "org.freedesktop.DBus") == 0 else { return 0 }
                var p: UnsafePointer<CChar>?
                guard sd_bus_message_read_basic(m, CChar(UInt8(ascii: "s")), &p) > 0, let p, String(cString: p) == wanted else { return 0 }
                me.onNameOwnership?(wanted, sd_bus_message_is_signal(m, nil, "NameAcquired") > 0)
                return 0
            }, nil, Unmanaged.passUnretained(self).toOpaque())
            guard m >= 0 else { throw Self.error(m, "watching \(member)") }
        }
        let r = sd_bus_request_name_async(bus, nil, name, UInt64(SD_BUS_NAME_QUEUE), { m, ctx, _ in
            guard let me = DBusConnection.from(ctx), let name = me.pendingName else { return 0 }
            var answer: UInt32 = 0
            let ok = m != nil && sd_bus_message_is_method_error(m, nil) == 0
                && sd_bus_message_read_basic(m, CChar(UInt8(ascii: "u")), &answer) >= 0
            // 1 primary owner, 4 already the owner; 2 queued.
            me.onNameOwnership?(name, ok && (answer == 1 || answer == 4))
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        guard r >= 0 else { throw Self.error(r, "requesting \(name)") }
        rearm()
    }

    /// Emits PropertiesChanged on `interface` (a D-Bus interface name) carrying exactly `changed` (name, value),
    /// in that order, with no invalidated names. The values are the caller's: nothing is read
    /// back through the object's getters (which answer Gets with the live value). Nothing is
    /// sent for an empty list. A failure is left for the next dispatch to find (the bus going away).
    public func emitPropertiesChanged(path: String, interface: String, changed: [(name: String, value: DBusValue)]) {
        guard let bus, !changed.isEmpty else { return }
        var m: OpaquePointer?
        guard sd_bus_message_new_signal(bus, &m, path, "org.freedesktop.DBus.Properties", "PropertiesChanged") >= 0, let m else { return }
        defer { sd_bus_message_unref(m) }
        var r = interface.withCString { sd_bus_message_append_basic(m, Self.t("s"), $0) }
        if r >= 0 { r = sd_bus_message_open_container(m, Self.t("a"), "{sv}") }
        for (name, value) in changed where r >= 0 {
            r = sd_bus_message_open_container(m, Self.t("e"), "sv")
            if r >= 0 { r = name.withCString { sd_bus_message_append_basic(m, Self.t("s"), $0) } }
            if r >= 0 { r = sd_bus_message_open_container(m, Self.t("v"), value.signature) }
            if r >= 0 { r = Self.append(value, to: m) }
            if r >= 0 { r = sd_bus_message_close_container(m) }
            if r >= 0 { r = sd_bus_message_close_container(m) }
        }
        if r >= 0 { r = sd_bus_message_close_container(m) }
        if r >= 0 { r = sd_bus_message_open_container(m, Self.t("a"), "s") }
        if r >= 0 { r = sd_bus_message_close_container(m) }
        guard r >= 0 else { return }
        _ = sd_bus_send(bus, m, nil)
        rearm()
    }

    /// Emits `org.mpris.MediaPlayer2.Player.Seeked(x position)`.
    public func emitSeeked(path: String, position: Int64) {
        guard let bus else { return }
        _ = ph_mpris_emit_seeked(bus, path, position)
        rearm()
    }

    /// Closes the connection and its handles (idempotent). The bus name goes with the socket.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        poll?.close()
        timer?.close()
        poll = nil
        timer = nil
        if let bus {
            sd_bus_close(bus)
            sd_bus_unref(bus)
        }
        bus = nil
        handlers?.deallocate()
        handlers = nil
    }

    // MARK: - Loop integration

    /// Re-arms the poll and the timer for what sd-bus waits on now (after queueing a message).
    func rearm(more: Bool = false) {
        guard let bus, !isClosed, !isProcessing, let poll, let timer else { return }
        let wanted = sd_bus_get_events(bus)
        guard wanted >= 0 else { return }
        var events: FDPoll.Events = []
        if wanted & Int32(POLLIN) != 0 { events.insert(.readable) }
        if wanted & Int32(POLLOUT) != 0 { events.insert(.writable) }
        try? poll.start(events) { [weak self] _ in self?.process() }
        var deadline: UInt64 = 0
        if more {
            // The batch was cut short: continue next turn, after the loop polled the others.
            timer.start(after: 0) { [weak self] in self?.process() }
        } else if sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max {
            var ts = timespec()
            clock_gettime(CLOCK_MONOTONIC, &ts)
            let now = UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
            let ms = deadline > now ? (deadline - now + 999) / 1000 : 0
            timer.start(after: ms) { [weak self] in self?.process() }
        } else {
            timer.stop()
        }
    }

    /// Dispatches what is pending, bounded per turn.
    private func process() {
        guard let bus, !isClosed, !isProcessing else { return }
        isProcessing = true
        var failure: Int32 = 0
        var more = false
        for i in 0..<maxMessagesPerTurn {
            let r = sd_bus_process(bus, nil)
            if r < 0 { failure = r; break }
            if r == 0 { break }
            messagesProcessed += 1
            if i == maxMessagesPerTurn - 1 { more = true }
        }
        isProcessing = false
        if failure < 0 || sd_bus_is_open(bus) <= 0 {
            let reason = failure < 0 ? String(cString: strerror(-failure)) : "the bus closed the connection"
            close()
            onDisconnect?(reason)
            return
        }
        rearm(more: more)
    }

    // MARK: - Messages

    private static func from(_ ctx: UnsafeMutableRawPointer?) -> DBusConnection? {
        guard let ctx else { return nil }
        return Unmanaged<DBusConnection>.fromOpaque(ctx).takeUnretainedValue()
    }

    /// The D-Bus name of a vtable interface code.
    private static func interfaceName(_ code: Int32) -> String {
        String(cString: ph_mpris_interface_name(code))
    }

    private static func reply(_ result: Result<Void, DBusError>, _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        switch result {
        case .success: return 0
        case .failure(let e): return sd_bus_error_set(error, e.name, e.message)
        }
    }

    private static func error(_ r: Int32, _ what: String) -> DBusError {
        DBusError("org.freedesktop.DBus.Error.Failed", "\(what): \(String(cString: strerror(-r)))")
    }

    private static func t(_ c: Unicode.Scalar) -> CChar { CChar(UInt8(ascii: c)) }

    /// Appends one value to a message being built.
    static func append(_ value: DBusValue, to m: OpaquePointer) -> Int32 {
        switch value {
        case .string(let s): return s.withCString { sd_bus_message_append_basic(m, t("s"), $0) }
        case .objectPath(let s): return s.withCString { sd_bus_message_append_basic(m, t("o"), $0) }
        case .boolean(let b):
            var v: Int32 = b ? 1 : 0
            return sd_bus_message_append_basic(m, t("b"), &v)
        case .double(let d):
            var v = d
            return sd_bus_message_append_basic(m, t("d"), &v)
        case .int64(let i):
            var v = i
            return sd_bus_message_append_basic(m, t("x"), &v)
        case .strings(let list):
            var r = sd_bus_message_open_container(m, t("a"), "s")
            for s in list where r >= 0 { r = s.withCString { sd_bus_message_append_basic(m, t("s"), $0) } }
            return r < 0 ? r : sd_bus_message_close_container(m)
        case .dictionary(let d):
            var r = sd_bus_message_open_container(m, t("a"), "{sv}")
            for (key, v) in d.sorted(by: { $0.key < $1.key }) where r >= 0 {
                r = sd_bus_message_open_container(m, t("e"), "sv")
                if r >= 0 { r = key.withCString { sd_bus_message_append_basic(m, t("s"), $0) } }
                if r >= 0 { r = sd_bus_message_open_container(m, t("v"), v.signature) }
                if r >= 0 { r = append(v, to: m) }
                if r >= 0 { r = sd_bus_message_close_container(m) }
                if r >= 0 { r = sd_bus_message_close_container(m) }
            }
            return r < 0 ? r : sd_bus_message_close_container(m)
        }
    }

    /// Reads the basic-typed values left in a message (containers are skipped).
    static func readArguments(_ m: OpaquePointer) -> [DBusValue] {
        var out: [DBusValue] = []
        while true {
            var type: CChar = 0
            var contents: UnsafePointer<CChar>?
            guard sd_bus_message_peek_type(m, &type, &contents) > 0 else { break }
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "s"), UInt8(ascii: "o"):
                var p: UnsafePointer<CChar>?
                guard sd_bus_message_read_basic(m, type, &p) > 0, let p else { return out }
                let s = String(cString: p)
                out.append(type == t("o") ? .objectPath(s) : .string(s))
            case UInt8(ascii: "x"):
                var v: Int64 = 0
                guard sd_bus_message_read_basic(m, type, &v) > 0 else { return out }
                out.append(.int64(v))
            case UInt8(ascii: "b"):
                var v: Int32 = 0
                guard sd_bus_message_read_basic(m, type, &v) > 0 else { return out }
                out.append(.boolean(v != 0))
            case UInt8(ascii: "d"):
                var v: Double = 0
                guard sd_bus_message_read_basic(m, type, &v) > 0 else { return out }
                out.append(.double(v))
            default:
                guard sd_bus_message_skip(m, nil) >= 0 else { return out }
            }
        }
        return out
    }
}
