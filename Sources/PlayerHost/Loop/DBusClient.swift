import CSDBus
import Glibc

/// The calling side of D-Bus on the libuv loop: method calls with a timeout whose replies come
/// back as Swift completions, and signal matches. It drives its own `DBusConnection` (the MPRIS
/// importer uses a connection of its own, apart from the export's), so the poll, the timer and
/// the bounded processing per turn are the connection's.
///
/// Every completion and signal handler runs on the loop thread on a later turn than the call
/// that asked for it — a call that cannot even be queued fails on the next turn. A timed-out call
/// completes with `org.freedesktop.DBus.Error.NoReply` (sd-bus's own timer, armed through the
/// connection's). When the bus goes away, every call still waiting fails with
/// `org.freedesktop.DBus.Error.Disconnected` and `onDisconnect` is called.
public final class DBusClient {
    /// One signal received from a match.
    public struct Signal: Sendable {
        /// The sender's unique name (`:1.42`).
        public var sender: String
        public var path: String
        public var interface: String
        public var member: String
        /// The arguments, in order (values of types `DBusValue` has no case for are left out).
        public var arguments: [DBusValue]
    }

    /// A match added with `addMatch`; pass it to `removeMatch`.
    public struct Match: Hashable, Sendable { let id: Int }

    public let connection: DBusConnection
    public var loop: EventLoop { connection.loop }
    /// Called once when the bus goes away.
    public var onDisconnect: ((String) -> Void)?

    /// Both the pending calls and the matches are boxes whose address is the sd-bus userdata;
    /// the dictionaries keep them alive until the reply, the removal or `close`.
    private final class Box {
        weak var client: DBusClient?
        let id: Int
        var completion: ((Result<[DBusValue], DBusError>) -> Void)?
        var handler: ((Signal) -> Void)?
        /// The match names the bus driver as its sender: only its own signals count.
        var driverOnly = false
        var slot: OpaquePointer?
        init(client: DBusClient, id: Int) {
            self.client = client
            self.id = id
        }
    }

    private var calls: [Int: Box] = [:]
    private var matches: [Int: Box] = [:]
    private var nextID = 0

    /// Calls waiting for their reply (for tests and stats).
    public var pendingCalls: Int { calls.count }

    public init(loop: EventLoop, address: String) {
        connection = DBusConnection(loop: loop, address: address)
    }

    deinit { close() }

    /// Connects; Hello and authentication finish on the loop.
    public func start() throws(DBusError) {
        connection.onDisconnect = { [weak self] reason in self?.disconnected(reason) }
        try connection.start()
    }

    /// Calls `interface.member` on `destination` at `path` with `arguments`; `completion` gets
    /// the reply's arguments or the error, within `timeoutMs` (0: sd-bus's default, 25 s).
    public func call(_ destination: String, path: String, interface: String, member: String,
                     arguments: [DBusValue] = [], timeoutMs: UInt64 = 2000,
                     _ completion: @escaping (Result<[DBusValue], DBusError>) -> Void) {
        guard let bus = connection.bus, !connection.isClosed else {
            return loop.onNextTurn { completion(.failure(Self.disconnected)) }
        }
        var m: OpaquePointer?
        var r = sd_bus_message_new_method_call(bus, &m, destination, path, interface, member)
        guard r >= 0, let m else { return fail(r, "calling \(member) on \(destination)", completion) }
        defer { sd_bus_message_unref(m) }
        for a in arguments where r >= 0 { r = DBusConnection.append(a, to: m) }
        guard r >= 0 else { return fail(r, "arguments of \(member)", completion) }
        start(m, timeoutMs: timeoutMs, what: "\(member) on \(destination)", completion)
    }

    /// `org.freedesktop.DBus.Properties.Set(interface, property, value)` on `destination`.
    public func setProperty(_ destination: String, path: String, interface: String, property: String,
                            value: DBusValue, timeoutMs: UInt64 = 2000,
                            _ completion: @escaping (Result<[DBusValue], DBusError>) -> Void) {
        guard let bus = connection.bus, !connection.isClosed else {
            return loop.onNextTurn { completion(.failure(Self.disconnected)) }
        }
        var m: OpaquePointer?
        var r = sd_bus_message_new_method_call(bus, &m, destination, path, "org.freedesktop.DBus.Properties", "Set")
        guard r >= 0, let m else { return fail(r, "setting \(property) on \(destination)", completion) }
        defer { sd_bus_message_unref(m) }
        r = DBusConnection.append(.string(interface), to: m)
        if r >= 0 { r = DBusConnection.append(.string(property), to: m) }
        if r >= 0 { r = sd_bus_message_open_container(m, CChar(UInt8(ascii: "v")), value.signature) }
        if r >= 0 { r = DBusConnection.append(value, to: m) }
        if r >= 0 { r = sd_bus_message_close_container(m) }
        guard r >= 0 else { return fail(r, "value of \(property)", completion) }
        start(m, timeoutMs: timeoutMs, what: "Set \(property) on \(destination)", completion)
    }

    /// Receives the signals that match (nil: any); the match is installed asynchronously.
    ///
    /// sd-bus does not check a well-known `sender` locally, so any peer can unicast a signal that
    /// "matches" to this connection. For the bus driver (`org.freedesktop.DBus`, whose messages
    /// the bus stamps with that name and no other's) the sender is checked here; for another
    /// well-known name the handler must check `Signal.sender` against the name's owner.
    public func addMatch(sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil,
                         _ handler: @escaping (Signal) -> Void) throws(DBusError) -> Match {
        guard let bus = connection.bus, !connection.isClosed else { throw Self.disconnected }
        nextID += 1
        let box = Box(client: self, id: nextID)
        box.handler = handler
        box.driverOnly = sender == Self.busDriver
        var slot: OpaquePointer?
        let r = sd_bus_match_signal_async(bus, &slot, sender, path, interface, member, { m, userdata, _ in
            guard let m, let userdata else { return 0 }
            let box = Unmanaged<Box>.fromOpaque(userdata).takeUnretainedValue()
            guard let handler = box.handler else { return 0 }
            let sender = DBusClient.string(sd_bus_message_get_sender(m))
            // A peer's forgery of a bus-driver signal (NameOwnerChanged, NameLost…).
            if box.driverOnly, sender != DBusClient.busDriver { return 0 }
            let signal = Signal(sender: sender,
                                path: DBusClient.string(sd_bus_message_get_path(m)),
                                interface: DBusClient.string(sd_bus_message_get_interface(m)),
                                member: DBusClient.string(sd_bus_message_get_member(m)),
                                arguments: DBusClient.readAll(m))
            handler(signal)
            return 0
        }, nil, Unmanaged.passUnretained(box).toOpaque())
        guard r >= 0 else { throw DBusError("org.freedesktop.DBus.Error.Failed", "adding a match: \(String(cString: strerror(-r)))") }
        box.slot = slot
        matches[box.id] = box
        connection.rearm()
        return Match(id: box.id)
    }

    /// Removes a match (idempotent).
    public func removeMatch(_ match: Match) {
        guard let box = matches.removeValue(forKey: match.id) else { return }
        box.handler = nil
        if let slot = box.slot { sd_bus_slot_unref(slot) }
        box.slot = nil
        connection.rearm()
    }

    /// Removes every match, drops the waiting calls without calling them, and closes the bus.
    public func close() {
        for box in matches.values {
            box.handler = nil
            if let slot = box.slot { sd_bus_slot_unref(slot) }
            box.slot = nil
        }
        matches.removeAll()
        connection.onDisconnect = nil
        connection.close()
        // The bus (and its floating call slots) is gone: nothing will call into these boxes.
        calls.removeAll()
    }

    // MARK: - Internals

    /// The bus driver's name, the sender of its own signals.
    public static let busDriver = "org.freedesktop.DBus"

    private static let disconnected = DBusError("org.freedesktop.DBus.Error.Disconnected", "not connected to the bus")

    private func fail(_ r: Int32, _ what: String, _ completion: @escaping (Result<[DBusValue], DBusError>) -> Void) {
        let e = DBusError("org.freedesktop.DBus.Error.Failed", "\(what): \(String(cString: strerror(-r)))")
        loop.onNextTurn { completion(.failure(e)) }
    }

    private func start(_ m: OpaquePointer, timeoutMs: UInt64, what: String,
                       _ completion: @escaping (Result<[DBusValue], DBusError>) -> Void) {
        guard let bus = connection.bus else { return loop.onNextTurn { completion(.failure(Self.disconnected)) } }
        nextID += 1
        let box = Box(client: self, id: nextID)
        box.completion = completion
        // A floating slot (nil): sd-bus drops it after the reply or the timeout.
        let r = sd_bus_call_async(bus, nil, m, { reply, userdata, _ in
            guard let userdata else { return 0 }
            let box = Unmanaged<Box>.fromOpaque(userdata).takeUnretainedValue()
            guard let client = box.client, let done = client.calls.removeValue(forKey: box.id)?.completion else { return 0 }
            guard let reply else {
                done(.failure(DBusError("org.freedesktop.DBus.Error.Failed", "no reply message")))
                return 0
            }
            if sd_bus_message_is_method_error(reply, nil) > 0 {
                let e = sd_bus_message_get_error(reply)
                done(.failure(DBusError(e.flatMap { $0.pointee.name.map { String(cString: $0) } } ?? "org.freedesktop.DBus.Error.Failed",
                                        e.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "")))
            } else {
                done(.success(DBusClient.readAll(reply)))
            }
            return 0
        }, Unmanaged.passUnretained(box).toOpaque(), timeoutMs * 1000)
        guard r >= 0 else { return fail(r, what, completion) }
        calls[box.id] = box
        connection.rearm()
    }

    private func disconnected(_ reason: String) {
        let waiting = calls.values.sorted { $0.id < $1.id }.compactMap(\.completion)
        calls.removeAll()
        for box in matches.values {
            box.handler = nil
            if let slot = box.slot { sd_bus_slot_unref(slot) }
            box.slot = nil
        }
        matches.removeAll()
        let e = DBusError("org.freedesktop.DBus.Error.Disconnected", reason)
        for done in waiting { done(.failure(e)) }
        onDisconnect?(reason)
    }

    /// Skips the entries of the current array not read (element signature `element`).
    private static func skipRest(_ m: OpaquePointer, _ element: UnsafePointer<CChar>) {
        while sd_bus_message_at_end(m, 0) == 0 {
            if sd_bus_message_skip(m, element) < 0 { break }
        }
    }

    private static func string(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }

    private static func t(_ c: Unicode.Scalar) -> CChar { CChar(UInt8(ascii: c)) }

    /// Reads every remaining value of a message.
    static func readAll(_ m: OpaquePointer) -> [DBusValue] {
        var out: [DBusValue] = []
        while sd_bus_message_at_end(m, 0) == 0 {
            guard let v = read(m) else {
                // Unreadable or of a type `DBusValue` lacks: skipped (stop if even that fails).
                if sd_bus_message_skip(m, nil) < 0 { break }
                continue
            }
            out.append(v)
        }
        return out
    }

    /// The most entries kept of one array (`as`, `ao`, `a{sv}`) a peer sends; the rest are
    /// skipped unread, so a peer's million-entry list costs no million Swift values.
    public static let maxArrayEntries = 1024
    /// The deepest nesting of variants and dictionaries read; deeper values are skipped.
    public static let maxDepth = 16

    /// Reads one complete value: the basic types MPRIS uses (integers of every width as
    /// `.int64`), variants unwrapped, `as`/`ao` as `.strings`, `a{sv}` as `.dictionary` (at most
    /// `maxArrayEntries` entries each, `maxDepth` levels deep). Anything else is left in place and
    /// nil is returned (the caller skips it).
    static func read(_ m: OpaquePointer, depth: Int = 0) -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(m, &type, &contents) > 0 else { return nil }
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            var p: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(m, type, &p) > 0, let p else { return nil }
            return type == t("o") ? .objectPath(String(cString: p)) : .string(String(cString: p))
        case UInt8(ascii: "b"):
            var v: Int32 = 0
            guard sd_bus_message_read_basic(m, type, &v) > 0 else { return nil }
            return .boolean(v != 0)
        case UInt8(ascii: "d"):
            var v: Double = 0
            guard sd_bus_message_read_basic(m, type, &v) > 0 else { return nil }
            return .double(v)
        case UInt8(ascii: "x"), UInt8(ascii: "t"):
            var v: Int64 = 0
            guard sd_bus_message_read_basic(m, type, &v) > 0 else { return nil }
            return .int64(v)
        case UInt8(ascii: "i"):
            var v: Int32 = 0
            guard sd_bus_message_read_basic(m, type, &v) > 0 else { return nil }
            return .int64(Int64(v))
        case UInt8(ascii: "u"):
            var v: UInt32 = 0
            guard sd_bus_message_read_basic(m, type, &v) > 0 else { return nil }
            return .int64(Int64(v))
        case UInt8(ascii: "n"), UInt8(ascii: "q"):
            var v: Int16 = 0
            guard sd_bus_message_read_basic(m, type, &v) > 0 else { return nil }
            return .int64(type == t("q") ? Int64(UInt16(bitPattern: v)) : Int64(v))
        case UInt8(ascii: "y"):
            var v: UInt8 = 0
            guard sd_bus_message_read_basic(m, type, &v) > 0 else { return nil }
            return .int64(Int64(v))
        case UInt8(ascii: "v"):
            guard depth < maxDepth, let contents, sd_bus_message_enter_container(m, type, contents) > 0 else { return nil }
            let inner = read(m, depth: depth + 1)
            if inner == nil { _ = sd_bus_message_skip(m, nil) }
            _ = sd_bus_message_exit_container(m)
            return inner
        case UInt8(ascii: "a"):
            guard depth < maxDepth, let contents else { return nil }
            let sig = String(cString: contents)
            if sig == "s" || sig == "o" {
                guard sd_bus_message_enter_container(m, type, contents) > 0 else { return nil }
                var list: [String] = []
                while list.count < maxArrayEntries, sd_bus_message_at_end(m, 0) == 0, let v = read(m)?.stringValue { list.append(v) }
                skipRest(m, contents)
                _ = sd_bus_message_exit_container(m)
                return .strings(list)
            }
            if sig == "{sv}" {
                guard sd_bus_message_enter_container(m, type, contents) > 0 else { return nil }
                var dict: [String: DBusValue] = [:]
                var entries = 0
                while entries < maxArrayEntries, sd_bus_message_enter_container(m, t("e"), "sv") > 0 {
                    entries += 1
                    if let key = read(m)?.stringValue {
                        if let v = read(m, depth: depth + 1) { dict[key] = v } else { _ = sd_bus_message_skip(m, nil) }
                    }
                    _ = sd_bus_message_exit_container(m)
                }
                skipRest(m, contents)
                _ = sd_bus_message_exit_container(m)
                return .dictionary(dict)
            }
            return nil
        default:
            return nil
        }
    }
}
