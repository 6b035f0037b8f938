import PlayerHostBase
import PlayerHostModel
import PlayerHostRPC
import OrderedCollections

/// The state file's format: a `HostSnapshot` as JSON, versioned.
///
/// ```json
/// {"version": 1, "savedAt": 1764000000.5, "nowPlaying": "keep",
///  "sessions": [{"id": "keep", "kind": "main", "origin": "client", "driver": "clock",
///    "automaticallyPublishes": true, "backgroundAudio": false,
///    "audio": {"category": "playback", "options": [], "active": true},
///    "isActive": true, "info": {"title": "…"},
///    "players": [{"items": [{"title": "A", "duration": 300}], "itemIndex": 0, "elapsed": 42,
///                 "rate": 0, "defaultRate": 1, "repeatMode": "one", "shuffleMode": "off",
///                 "stopped": false, "order": [1, 0], "volume": 0.5, "muted": false}],
///    "commands": [{"command": "skipForward", "isEnabled": true, "targets": [[0]],
///                  "preferredIntervals": [5, 30]}]}],
///  "plugins": {"mpv": {…}}}
/// ```
///
/// `plugins` holds what plugins asked the host to keep for them (`plugin.saveState`), by app
/// name, as they gave it: the host never reads inside.
///
/// A reader accepts every version up to `currentVersion` and migrates older ones on the way in
/// (`migrate`); a newer version is refused (`StateFileError.futureVersion`), as are bytes that do
/// not parse or lack what a session needs.
public enum StateFile {
    /// The version this build writes.
    public static let currentVersion = 1

    /// The snapshot as the file's bytes (one line, then a newline). `savedAt` is wall-clock
    /// seconds since the epoch, for people reading the file.
    public static func render(_ snapshot: HostSnapshot, savedAt: Double) -> [UInt8] {
        var o: [String: JSON] = [
            "version": .int(Int64(currentVersion)),
            "savedAt": .double(savedAt),
            "sessions": .array(snapshot.sessions.map(sessionJSON)),
        ]
        if let np = snapshot.nowPlaying { o["nowPlaying"] = .string(np) }
        if let p = snapshot.pinned { o["pinned"] = .string(p) }
        return JSON.object(o).serialized() + [UInt8(ascii: "\n")]
    }

    /// The file's bytes from sessions already rendered (`sessionJSON(_:).serialized()`), in
    /// order. Parses as `render` would have written it. `plugins` is the `plugins` object already
    /// rendered (nil: none kept).
    static func assemble(_ sessions: some Sequence<[UInt8]>, nowPlaying: SessionID?, savedAt: Double,
                         plugins: [UInt8]? = nil, pinned: String? = nil) -> [UInt8] {
        var out: [UInt8] = []
        for chunk in StateFilePieces.Chunks(head: head(nowPlaying: nowPlaying, pinned: pinned, savedAt: savedAt), sessions: sessions,
                                            tail: tail(plugins: plugins)) {
            out += chunk
        }
        return out
    }

    /// Everything before the first session's bytes.
    static func head(nowPlaying: SessionID?, pinned: String? = nil, savedAt: Double) -> [UInt8] {
        var out: [UInt8] = Array(#"{"version":"#.utf8)
        out += JSON.int(Int64(currentVersion)).serialized()
        out += Array(#","savedAt":"#.utf8) + JSON.double(savedAt).serialized()
        if let np = nowPlaying { out += Array(#","nowPlaying":"#.utf8) + JSON.string(np).serialized() }
        if let p = pinned { out += Array(#","pinned":"#.utf8) + JSON.string(p).serialized() }
        out += Array(#","sessions":["#.utf8)
        return out
    }

    static let comma: [UInt8] = [UInt8(ascii: ",")]

    /// Everything after the last session's bytes: the end of the list, the plugins' section.
    static func tail(plugins: [UInt8]?) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "]")]
        if let plugins { out += Array(#","plugins":"#.utf8) + plugins }
        out += Array("}\n".utf8)
        return out
    }

    /// Parses the file's bytes.
    public static func parse(_ bytes: [UInt8]) throws(StateFileError) -> HostSnapshot {
        try parseFile(bytes).snapshot
    }

    /// Parses the file's bytes: the host's sessions, the plugins' kept states (by app name) and
    /// when it was written (wall-clock seconds; nil if it does not say).
    public static func parseFile(_ bytes: [UInt8]) throws(StateFileError)
        -> (snapshot: HostSnapshot, plugins: [String: JSON], savedAt: Double?) {
        let json: JSON
        do { json = try JSONParser.parse(bytes) } catch { throw .corrupt("\(error)") }
        guard let version = json["version"]?.intValue else { throw .corrupt("no version") }
        guard version <= currentVersion else { throw .futureVersion(version) }
        guard version >= 1 else { throw .corrupt("version \(version)") }
        let migrated = migrate(json, from: version)
        guard let list = migrated["sessions"]?.arrayValue else { throw .corrupt("no sessions list") }
        var snapshot = HostSnapshot()
        do {
            snapshot.sessions = try list.map(session)
        } catch let e as StateFileError {
            throw e
        } catch {
            throw .corrupt("\(error)")
        }
        snapshot.nowPlaying = migrated["nowPlaying"]?.stringValue
        snapshot.pinned = migrated["pinned"]?.stringValue
        return (snapshot, migrated["plugins"]?.objectValue ?? [:], migrated["savedAt"]?.doubleValue)
    }

    /// Brings an older file up to `currentVersion`, one version at a time. (Version 1 is the
    /// first: nothing to do yet; version 2 adds its step here.)
    static func migrate(_ json: JSON, from version: Int) -> JSON {
        json
    }

    // MARK: Rendering

    static func sessionJSON(_ s: HostSnapshot.SessionState) -> JSON {
        var o: [String: JSON] = [
            "id": .string(s.id), "kind": .string(s.kind), "origin": .string(s.origin.rawValue),
            "driver": .string(s.driver.rawValue),
            "automaticallyPublishes": .bool(s.automaticallyPublishes), "backgroundAudio": .bool(s.backgroundAudio),
            "audio": ["category": .string(s.category.rawValue), "options": .array(s.options.map { .string($0.rawValue) }),
                      "active": .bool(s.audioActive)],
            "isActive": .bool(s.isActive),
            "players": .array(s.players.map(playerJSON)),
            "commands": .array(s.commands.map(commandJSON)),
        ]
        if !s.manualInfo.isEmpty { o["info"] = s.manualInfo.toJSON() }
        return .object(o)
    }

    static func playerJSON(_ p: HostSnapshot.PlayerState) -> JSON {
        var o: [String: JSON] = [
            "items": .array(p.items.map { $0.toJSON() }),
            "elapsed": .double(p.elapsed), "rate": .double(p.rate), "defaultRate": .double(p.defaultRate),
            "repeatMode": .string(p.repeatMode.rawValue), "shuffleMode": .string(p.shuffleMode.rawValue),
            "stopped": .bool(p.isStopped),
            "volume": .double(p.volume), "muted": .bool(p.isMuted),
        ]
        if let i = p.itemIndex { o["itemIndex"] = .int(Int64(i)) }
        if let order = p.order { o["order"] = .array(order.map { .int(Int64($0)) }) }
        return .object(o)
    }

    /// `{command, isEnabled, targets}` plus the configuration keys the command has.
    static func commandJSON(_ c: HostSnapshot.CommandState) -> JSON {
        var o: [String: JSON] = [
            "command": .string(c.kind.rawValue), "isEnabled": .bool(c.isEnabled),
            "targets": .array(c.builtinTargets.map { .array($0.map { .int(Int64($0)) }) }),
        ]
        // Only the command's own keys are built (this runs for every command of every session
        // rendered; building all eight to keep one or two cost the state store's renders).
        for key in c.kind.configurationKeys { o[key] = configurationValue(key, c.configuration) }
        return .object(o)
    }

    /// One configuration key's value (nil: a key this file does not know).
    static func configurationValue(_ key: String, _ cfg: CommandConfiguration) -> JSON? {
        switch key {
        case "preferredIntervals": return .array(cfg.preferredIntervals.map { .double($0) })
        case "supportedPlaybackRates": return .array(cfg.supportedPlaybackRates.map { .double($0) })
        case "currentRepeatType": return .string(cfg.currentRepeatType.rawValue)
        case "currentShuffleType": return .string(cfg.currentShuffleType.rawValue)
        case "maximumVolume": return .double(cfg.maximumVolume)
        case "minimumRating": return .double(cfg.minimumRating)
        case "maximumRating": return .double(cfg.maximumRating)
        case "isActive": return .bool(cfg.isActive)
        case "localizedTitle": return .string(cfg.localizedTitle)
        default: return nil
        }
    }

    // MARK: Parsing

    static func session(_ j: JSON) throws -> HostSnapshot.SessionState {
        guard let id = j["id"]?.stringValue, let kind = j["kind"]?.stringValue else {
            throw StateFileError.corrupt("a session without id or kind")
        }
        var s = HostSnapshot.SessionState(id: id, kind: kind)
        s.origin = j["origin"]?.stringValue.flatMap(HostSnapshot.Origin.init(rawValue:)) ?? .client
        s.driver = j["driver"]?.stringValue.flatMap(PlayerDriver.init(rawValue:)) ?? .clock
        s.automaticallyPublishes = j["automaticallyPublishes"]?.boolValue ?? true
        s.backgroundAudio = j["backgroundAudio"]?.boolValue ?? false
        if let a = j["audio"] {
            s.category = a["category"]?.stringValue.flatMap(AudioCategory.init(rawValue:)) ?? .soloAmbient
            s.options = (a["options"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(AudioOption.init(rawValue:)) }
            s.audioActive = a["active"]?.boolValue ?? false
        }
        s.isActive = j["isActive"]?.boolValue ?? false
        if let info = j["info"] { s.manualInfo = try NowPlayingInfo(json: info) }
        s.players = try (j["players"]?.arrayValue ?? []).map(player)
        s.commands = try (j["commands"]?.arrayValue ?? []).map(command)
        return s
    }

    static func player(_ j: JSON) throws -> HostSnapshot.PlayerState {
        var p = HostSnapshot.PlayerState()
        p.items = try (j["items"]?.arrayValue ?? []).map(MediaItem.init(json:))
        p.itemIndex = j["itemIndex"]?.intValue.flatMap { p.items.indices.contains($0) ? $0 : nil }
        // Checked again when restored (a permutation of the items' indices); wrong here → none.
        p.order = j["order"]?.arrayValue.map { $0.compactMap(\.intValue) }.flatMap { $0.count == p.items.count ? $0 : nil }
        p.elapsed = max(0, j["elapsed"]?.doubleValue ?? 0)
        p.rate = j["rate"]?.doubleValue ?? 0
        p.defaultRate = j["defaultRate"]?.doubleValue ?? 1
        p.repeatMode = j["repeatMode"]?.stringValue.flatMap(RepeatMode.init(rawValue:)) ?? .off
        p.shuffleMode = j["shuffleMode"]?.stringValue.flatMap(ShuffleMode.init(rawValue:)) ?? .off
        p.isStopped = j["stopped"]?.boolValue ?? false
        // An older file has none: full volume, not muted (a level out of range is refused on restore).
        p.volume = j["volume"]?.doubleValue ?? 1
        p.isMuted = j["muted"]?.boolValue ?? false
        return p
    }

    static func command(_ j: JSON) throws -> HostSnapshot.CommandState {
        guard let kind = j["command"]?.stringValue.flatMap(RemoteCommandKind.init(rawValue:)) else {
            throw StateFileError.corrupt("a command without a known name")
        }
        var c = HostSnapshot.CommandState(kind: kind)
        c.isEnabled = j["isEnabled"]?.boolValue ?? false
        c.builtinTargets = (j["targets"]?.arrayValue ?? []).map { ($0.arrayValue ?? []).compactMap(\.intValue) }
        var cfg = CommandConfiguration()
        if let a = j["preferredIntervals"]?.arrayValue { cfg.preferredIntervals = a.compactMap(\.doubleValue) }
        if let a = j["supportedPlaybackRates"]?.arrayValue { cfg.supportedPlaybackRates = a.compactMap(\.doubleValue) }
        if let m = j["currentRepeatType"]?.stringValue.flatMap(RepeatMode.init(rawValue:)) { cfg.currentRepeatType = m }
        if let m = j["currentShuffleType"]?.stringValue.flatMap(ShuffleMode.init(rawValue:)) { cfg.currentShuffleType = m }
        if let d = j["maximumVolume"]?.doubleValue { cfg.maximumVolume = d }
        if let d = j["minimumRating"]?.doubleValue { cfg.minimumRating = d }
        if let d = j["maximumRating"]?.doubleValue { cfg.maximumRating = d }
        if let b = j["isActive"]?.boolValue { cfg.isActive = b }
        if let t = j["localizedTitle"]?.stringValue { cfg.localizedTitle = t }
        c.configuration = cfg
        return c
    }
}

/// Why a state file was not used.
public enum StateFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// It does not parse or lacks what a session needs (a truncated write, garbage).
    case corrupt(String)
    /// Written by a newer playerhostd.
    case futureVersion(Int)

    public var description: String {
        switch self {
        case .corrupt(let why): return "corrupt (\(why))"
        case .futureVersion(let v): return "version \(v) is newer than this playerhostd reads (\(StateFile.currentVersion))"
        }
    }
}

/// The state file as the state store hands it to the writing thread: the header, then each host
/// session's bytes as the cache keeps them (shared, not copied: handing n sessions over costs the
/// loop O(1)), joined into the file by whoever writes it (`chunks`), off the loop.
struct StateFilePieces: Sendable {
    /// Each session's rendered bytes, in the file's order.
    let sessions: OrderedDictionary<SessionID, [UInt8]>
    let head: [UInt8]
    let tail: [UInt8]

    init(sessions: OrderedDictionary<SessionID, [UInt8]>, nowPlaying: SessionID?, savedAt: Double, plugins: [UInt8]? = nil,
         pinned: String? = nil) {
        self.sessions = sessions
        head = StateFile.head(nowPlaying: nowPlaying, pinned: pinned, savedAt: savedAt)
        tail = StateFile.tail(plugins: plugins)
    }

    /// The file's byte strings in order: head, sessions with commas between them, tail.
    var chunks: Chunks<OrderedDictionary<SessionID, [UInt8]>.Values> { Chunks(head: head, sessions: sessions.values, tail: tail) }

    /// The file's size in bytes (checked against `max_state_file_mb` before writing).
    var byteCount: Int {
        head.count + tail.count + max(0, sessions.count - 1) * StateFile.comma.count
            + sessions.values.reduce(0) { $0 + $1.count }
    }

    /// The whole file in one array (tests, and the synchronous write's fallback).
    var joined: [UInt8] {
        var out: [UInt8] = []
        for c in chunks { out += c }
        return out
    }

    /// Head, then the sessions separated by commas, then the tail (the list's end, the plugins'
    /// section), as a sequence of byte strings.
    struct Chunks<S: Sequence<[UInt8]>>: Sequence, IteratorProtocol {
        private var head: [UInt8]?
        private let tail: [UInt8]
        private var sessions: S.Iterator
        private var pendingSession: [UInt8]?
        private var started = false
        private var done = false

        init(head: [UInt8], sessions: S, tail: [UInt8]) {
            self.head = head
            self.tail = tail
            self.sessions = sessions.makeIterator()
        }

        mutating func next() -> [UInt8]? {
            if let h = head {
                head = nil
                return h
            }
            if let s = pendingSession {
                pendingSession = nil
                return s
            }
            guard !done else { return nil }
            guard let s = sessions.next() else {
                done = true
                return tail
            }
            if started {
                pendingSession = s
                return StateFile.comma
            }
            started = true
            return s
        }
    }
}
