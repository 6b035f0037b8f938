import CSDBus
import Glibc
@testable import PlayerHost

/// A D-Bus type the fuzz builds values of: any basic type but `h` (file descriptors), arrays,
/// dictionaries, structs and variants, nested.
indirect enum FuzzDBusType: Sendable {
    case basic(Character)
    case array(FuzzDBusType)
    case dict(Character, FuzzDBusType)
    case structure([FuzzDBusType])
    case variant

    static let basics: [Character] = ["y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g"]

    var signature: String {
        switch self {
        case .basic(let c): return String(c)
        case .array(let t): return "a" + t.signature
        case .dict(let k, let v): return "a{\(k)\(v.signature)}"
        case .structure(let ts): return "(" + ts.map(\.signature).joined() + ")"
        case .variant: return "v"
        }
    }
}

/// Makes the fuzz's D-Bus messages, seeded: every method and property MPRIS exports, called with
/// the right signature and edge values (INT64_MIN/MAX, 10¹⁵ ± 1 µs, NaN, ±∞, huge strings, the
/// current and stale trackids), with wrong signatures, wrong interfaces, paths and members, huge
/// and deeply nested values, no-reply calls, and forged bus-driver signals.
///
/// Nesting stays inside the D-Bus limits (32 arrays, 32 structs): a message beyond them is not
/// the daemon's to see, the bus disconnects the sender.
struct DBusFuzzer {
    var random: FuzzRandom
    /// The Now Playing trackid as last read (SetPosition's first argument, sometimes).
    var trackID = MPRISProperties.noTrack
    /// The daemon's unique name (forged signals are unicast to it).
    var daemon: String
    /// Bytes of strings the current message may still take: the bus disconnects a peer whose
    /// message or array is beyond its limits (64 MiB arrays), which would end the fuzz, not test
    /// the daemon. Huge strings and long arrays come, but within this.
    private var bytesLeft = 0
    static let messageBudget = 4 << 20

    static let root = "org.mpris.MediaPlayer2"
    static let player = "org.mpris.MediaPlayer2.Player"
    static let properties = "org.freedesktop.DBus.Properties"
    static let path = "/org/mpris/MediaPlayer2"
    static let rootMethods = ["Raise", "Quit"]
    static let playerMethods = ["Next", "Previous", "Pause", "PlayPause", "Stop", "Play", "Seek", "SetPosition", "OpenUri"]
    static let rootProperties = ["CanQuit", "CanRaise", "HasTrackList", "Identity", "SupportedUriSchemes", "SupportedMimeTypes"]
    static let playerProperties = ["PlaybackStatus", "LoopStatus", "Rate", "Shuffle", "Metadata", "Volume", "Position",
                                   "MinimumRate", "MaximumRate", "CanGoNext", "CanGoPrevious", "CanPlay", "CanPause",
                                   "CanSeek", "CanControl"]
    /// The writable ones and their types.
    static let writable: [(String, FuzzDBusType)] = [("LoopStatus", .basic("s")), ("Rate", .basic("d")),
                                                     ("Shuffle", .basic("b")), ("Volume", .basic("d"))]

    init(seed: UInt64, daemon: String) {
        random = FuzzRandom(seed: seed)
        self.daemon = daemon
    }

    /// What one generated request is, for the tally and the last-sent log.
    struct Request {
        var what: String
        var expectsReply: Bool
        var isSignal = false
    }

    // MARK: - Requests

    /// Builds the next request on `bus` (nil when sd-bus refused to build it: not sent).
    mutating func next(on bus: OpaquePointer?) -> (OpaquePointer, Request)? {
        let roll = random.below(100)
        bytesLeft = Self.messageBudget
        if roll < 3 { return forgedSignal(on: bus) }
        var m: OpaquePointer?
        var what: String
        var r: Int32
        switch roll {
        case 3..<45:  // an MPRIS method, mostly well typed
            let (iface, member) = random.chance(85) ? (Self.player, random.pick(Self.playerMethods)) : (Self.root, random.pick(Self.rootMethods))
            r = sd_bus_message_new_method_call(bus, &m, Self.busName, Self.path, iface, member)
            what = member
            if r >= 0, let m { r = random.chance(80) ? wellTypedArguments(member, m) : randomArguments(m, &what) }
        case 45..<80:  // Properties: Get, GetAll, Set
            let member = random.pick(["Get", "Get", "GetAll", "Set", "Set"])
            r = sd_bus_message_new_method_call(bus, &m, Self.busName, Self.path, Self.properties, member)
            what = member
            if r >= 0, let m { r = propertiesArguments(member, m, &what) }
        case 80..<95:  // anything: odd paths, interfaces, members, arguments
            let path = random.pick([Self.path, "/", "/org/mpris", Self.path + "/x", "/org/playerhost/track/s0"])
            let iface: String? = random.pick([Self.player, Self.root, Self.properties, "org.example.Nope", nil])
            let member = random.pick(Self.playerMethods + Self.rootMethods + ["Get", "Set", "GetAll", "Nope", "Seeked", "PropertiesChanged"])
            r = sd_bus_message_new_method_call(bus, &m, Self.busName, path, iface, member)
            what = "\(path) \(iface ?? "-") \(member)"
            if r >= 0, let m { r = randomArguments(m, &what) }
        default:  // the standard interfaces every object has
            let (iface, member) = random.pick([("org.freedesktop.DBus.Introspectable", "Introspect"), ("org.freedesktop.DBus.Peer", "Ping"),
                                               ("org.freedesktop.DBus.Peer", "GetMachineId")])
            r = sd_bus_message_new_method_call(bus, &m, Self.busName, random.chance(80) ? Self.path : "/", iface, member)
            what = member
        }
        guard let m else { return nil }
        guard r >= 0 else {
            sd_bus_message_unref(m)
            return nil
        }
        return (m, Request(what: what, expectsReply: !random.chance(3)))
    }

    static let busName = MPRISBridge.busName

    /// The method's own signature with edge values.
    mutating func wellTypedArguments(_ member: String, _ m: OpaquePointer) -> Int32 {
        switch member {
        case "Seek": return appendInt64(m, int64())
        case "SetPosition":
            let r = appendString(m, "o", random.chance(70) ? trackID : objectPath())
            return r < 0 ? r : appendInt64(m, int64())
        case "OpenUri": return appendString(m, "s", string())
        default: return 0
        }
    }

    /// Any signature, values anywhere in range, nested.
    mutating func randomArguments(_ m: OpaquePointer, _ what: inout String) -> Int32 {
        var signature = ""
        var r: Int32 = 0
        for _ in 0..<random.below(4) where r >= 0 {
            let t = type(depth: random.below(random.chance(10) ? 30 : 4))
            signature += t.signature
            r = append(t, to: m)
        }
        what += " (\(signature.prefix(40)))"
        return r
    }

    mutating func propertiesArguments(_ member: String, _ m: OpaquePointer, _ what: inout String) -> Int32 {
        let iface = random.chance(85) ? random.pick([Self.player, Self.player, Self.root]) : random.pick(["", "org.example.Nope", Self.properties])
        var r = appendString(m, "s", iface)
        if member == "GetAll" || r < 0 { return r }
        if member == "Get" {
            let name = random.chance(90) ? random.pick(Self.playerProperties + Self.rootProperties) : string()
            what += " \(name.prefix(20))"
            return appendString(m, "s", name)
        }
        // Set: a writable property with its type (edge values) or any property with any type.
        let (name, t): (String, FuzzDBusType)
        if random.chance(60) {
            (name, t) = random.pick(Self.writable)
        } else {
            name = random.chance(80) ? random.pick(Self.playerProperties + Self.rootProperties) : string()
            t = type(depth: random.below(random.chance(10) ? 30 : 3))
        }
        what += " \(name.prefix(20)) \(t.signature.prefix(20))"
        r = appendString(m, "s", name)
        if r >= 0 { r = sd_bus_message_open_container(m, Self.c("v"), t.signature) }
        if r >= 0 { r = append(t, to: m) }
        if r >= 0 { r = sd_bus_message_close_container(m) }
        return r
    }

    /// NameAcquired / NameLost for the MPRIS name, or a PropertiesChanged, unicast to the daemon
    /// from the fuzz's own connection: a peer's forgery, which must change nothing.
    mutating func forgedSignal(on bus: OpaquePointer?) -> (OpaquePointer, Request)? {
        var m: OpaquePointer?
        let member = random.pick(["NameAcquired", "NameLost", "NameOwnerChanged"])
        guard sd_bus_message_new_signal(bus, &m, "/org/freedesktop/DBus", "org.freedesktop.DBus", member) >= 0, let m else { return nil }
        var r = sd_bus_message_set_destination(m, daemon)
        if r >= 0 { r = appendString(m, "s", Self.busName) }
        if r >= 0, member == "NameOwnerChanged" {
            r = appendString(m, "s", "")
            if r >= 0 { r = appendString(m, "s", daemon) }
        }
        guard r >= 0 else {
            sd_bus_message_unref(m)
            return nil
        }
        return (m, Request(what: "forged \(member)", expectsReply: false, isSignal: true))
    }

    // MARK: - Types and values

    /// A random type at most `depth` containers deep and of at most 40 nodes (a signature is at
    /// most 255 characters, and structs of structs grow fast).
    mutating func type(depth: Int) -> FuzzDBusType {
        var budget = 40
        return type(depth: depth, budget: &budget)
    }

    private mutating func type(depth: Int, budget: inout Int) -> FuzzDBusType {
        budget -= 1
        guard depth > 0, budget > 0, random.chance(depth > 4 ? 90 : 50) else { return .basic(random.pick(FuzzDBusType.basics)) }
        switch random.below(4) {
        case 0: return .array(type(depth: depth - 1, budget: &budget))
        case 1: return .dict(random.pick(FuzzDBusType.basics), type(depth: depth - 1, budget: &budget))
        case 2:
            let n = 1 + random.below(3)
            var members: [FuzzDBusType] = []
            for _ in 0..<n { members.append(type(depth: depth - 1, budget: &budget)) }
            return .structure(members)
        default: return .variant
        }
    }

    static func c(_ s: Character) -> CChar { CChar(bitPattern: s.asciiValue ?? 0) }

    /// Appends a random value of `t` (variants pick their own content, shallow).
    mutating func append(_ t: FuzzDBusType, to m: OpaquePointer, depth: Int = 0) -> Int32 {
        switch t {
        case .basic(let c): return appendBasic(c, to: m)
        case .array(let e):
            var r = sd_bus_message_open_container(m, Self.c("a"), e.signature)
            for _ in 0..<count(depth) where r >= 0 { r = append(e, to: m, depth: depth + 1) }
            return r < 0 ? r : sd_bus_message_close_container(m)
        case .dict(let k, let v):
            var r = sd_bus_message_open_container(m, Self.c("a"), "{\(k)\(v.signature)}")
            for _ in 0..<count(depth) where r >= 0 {
                r = sd_bus_message_open_container(m, Self.c("e"), "\(k)\(v.signature)")
                if r >= 0 { r = appendBasic(k, to: m) }
                if r >= 0 { r = append(v, to: m, depth: depth + 1) }
                if r >= 0 { r = sd_bus_message_close_container(m) }
            }
            return r < 0 ? r : sd_bus_message_close_container(m)
        case .structure(let ts):
            var r = sd_bus_message_open_container(m, Self.c("r"), ts.map(\.signature).joined())
            for e in ts where r >= 0 { r = append(e, to: m, depth: depth + 1) }
            return r < 0 ? r : sd_bus_message_close_container(m)
        case .variant:
            let inner = depth < 6 && random.chance(30) ? type(depth: 2) : .basic(random.pick(FuzzDBusType.basics))
            var r = sd_bus_message_open_container(m, Self.c("v"), inner.signature)
            if r >= 0 { r = append(inner, to: m, depth: depth + 1) }
            return r < 0 ? r : sd_bus_message_close_container(m)
        }
    }

    /// How many elements an array gets: mostly few, now and then thousands (shallow only).
    mutating func count(_ depth: Int) -> Int {
        if depth == 0, bytesLeft > 1 << 20, random.chance(2) { return 1000 + random.below(20_000) }
        return random.below(depth < 3 ? 5 : 2)
    }

    mutating func appendBasic(_ c: Character, to m: OpaquePointer) -> Int32 {
        let t = Self.c(c)
        func put<T>(_ v: T) -> Int32 {
            var v = v
            return sd_bus_message_append_basic(m, t, &v)
        }
        switch c {
        case "y": return put(UInt8(truncatingIfNeeded: random.next()))
        case "b": return put(Int32(random.below(2)))
        case "n": return put(random.pick([Int16.min, -1, 0, 1, .max, Int16(truncatingIfNeeded: random.next())]))
        case "q": return put(random.pick([UInt16.max, 0, 1, UInt16(truncatingIfNeeded: random.next())]))
        case "i": return put(random.pick([Int32.min, -1, 0, 1, .max, Int32(truncatingIfNeeded: random.next())]))
        case "u": return put(random.pick([UInt32.max, 0, 1, UInt32(truncatingIfNeeded: random.next())]))
        case "x": return put(int64())
        case "t": return put(random.pick([UInt64.max, 0, 1, random.next()]))
        case "d": return put(double())
        case "s": return appendString(m, "s", string())
        case "o": return appendString(m, "o", objectPath())
        default: return appendString(m, "g", random.pick(["", "x", "a{sv}", "(ii)", "av", "aaaai"]))
        }
    }

    mutating func int64() -> Int64 {
        let maxUs = Microseconds.maxMicroseconds
        return random.pick([Int64.max, .min, .max - 1, .min + 1, 0, 1, -1, maxUs, maxUs + 1, -maxUs, -maxUs - 1,
                            1_000_000, -1_000_000, 30_000_000, 9_223_372_036_854, Int64(bitPattern: random.next())])
    }

    mutating func double() -> Double {
        random.pick([0, -0.0, .nan, .infinity, -.infinity, 1e300, -1e300, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
                     1e-320, 1, 2, 0.5, -1, 1e9, 1e13, Double(bitPattern: random.next())])
    }

    mutating func string() -> String {
        defer { bytesLeft -= 64 }
        if random.chance(2) {
            let n = random.chance(20) ? 600_000 : 40_000
            if 2 * n < bytesLeft {
                bytesLeft -= 2 * n
                return String(repeating: "ß", count: n)
            }
        }
        if bytesLeft < 8192 { return random.pick(["", "x", "None", trackID]) }
        bytesLeft -= 4096
        return random.pick(["", "None", "Track", "Playlist", "Rate", "Volume", "Position", "LoopStatus", "Metadata",
                            "x", "ünïcødé ♫", "file:///etc/shadow", "/dev/zero", "http://127.0.0.1:1/x", "file:///tmp/x.mp3",
                            trackID, String(repeating: "a", count: 4096), "org.mpris.MediaPlayer2.Player"])
    }

    mutating func objectPath() -> String {
        random.pick(["/", trackID, MPRISProperties.noTrack, Self.path, "/org/playerhost/track/s0_0",
                     "/" + Array(repeating: "a", count: 200).joined(separator: "/"), "/_"])
    }
}
