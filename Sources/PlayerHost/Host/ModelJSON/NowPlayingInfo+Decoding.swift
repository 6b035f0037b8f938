import PlayerHostBase
import PlayerHostModel

// The wire's info values decoded into the model's typed ones, beside their encoders: the model
// takes `InfoPatch`, `NowPlayingInfo`, `MediaItem` and never reads JSON (DESIGN "Layers").
// Every value here comes from a peer (a socket client, a plugin, the state file): each bound is
// checked before the value is made, with an `invalidInfo`/`invalidArgument` naming the key.

extension InfoValue {
    /// Validates `json` as the value of `key`; throws `invalidInfo` naming the key.
    public init(key: InfoKey, json: JSON) throws {
        func bad(_ what: String) -> ModelError { ModelError.info("\(key.rawValue) must be \(what)", key: key.rawValue) }
        switch key {
        case .title, .artist, .albumTitle, .albumArtist, .genre, .composer, .assetURL, .serviceIdentifier:
            guard let s = LocalizedString(json: json) else { throw bad("a string or an object of language → string") }
            self = .text(s)
        case .trackNumber, .trackCount, .discNumber, .queueIndex, .queueCount, .chapterNumber, .chapterCount:
            guard let i = json.intValue, i >= 0 else { throw bad("a non-negative integer") }
            self = .integer(i)
        case .duration, .elapsed, .creditsStartTime:
            guard let d = json.doubleValue, d.isFinite, d >= 0 else { throw bad("a non-negative number") }
            self = .number(try TimeBound.check(d, key.rawValue))
        case .rate, .defaultRate:
            guard let d = json.doubleValue, d.isFinite else { throw bad("a number") }
            self = .number(d)
        case .isLiveStream:
            guard let b = json.boolValue else { throw bad("a boolean") }
            self = .flag(b)
        case .mediaType:
            guard let m = json.stringValue.flatMap(MediaType.init(rawValue:)) else { throw bad("none, audio or video") }
            self = .mediaType(m)
        case .artwork:
            self = .artwork(try Artwork(json: json))
        case .adTimeRanges:
            guard let a = json.arrayValue else { throw bad("an array of {start, end} or {start, duration}") }
            self = .timeRanges(try a.map(TimeRange.init(json:)))
        case .languageOptions:
            guard let a = json.arrayValue else { throw bad("an array of language options") }
            self = .languageOptions(try a.map(LanguageOption.init(json:)))
        case .extra:
            guard let o = json.objectValue else { throw bad("an object") }
            self = .extra(o)
        }
    }
}

extension InfoPatch {
    /// Validates a JSON object of key → value (`null` removes). Unknown keys and bad types throw
    /// `invalidInfo`; nothing is partially accepted.
    public init(json: JSON) throws {
        guard let o = json.objectValue else { throw ModelError.info("info must be a JSON object") }
        var set: [InfoKey: InfoValue] = [:]
        var remove: Set<InfoKey> = []
        for (name, value) in o {
            guard let key = InfoKey(rawValue: name) else {
                throw ModelError.info("unknown info key '\(name)' (plugin keys go in extra)", key: name)
            }
            if value.isNull { remove.insert(key) } else { set[key] = try InfoValue(key: key, json: value) }
        }
        self.init(set: set, remove: remove)
    }
}

extension NowPlayingInfo {
    /// Validates a JSON object; `null` values are simply absent.
    public init(json: JSON) throws {
        self.init(try InfoPatch(json: json).set)
    }
}

extension Artwork {
    /// `{id, bounds?: {width, height}, sources?: [string]}`.
    public init(json: JSON) throws {
        guard let o = json.objectValue else { throw ModelError.info("artwork must be an object", key: "artwork") }
        guard let id = o["id"]?.stringValue, !id.isEmpty else {
            throw ModelError.info("artwork needs a non-empty string id", key: "artwork")
        }
        var width: Double?, height: Double?
        if let b = o["bounds"], !b.isNull {
            guard let w = b["width"]?.doubleValue, let h = b["height"]?.doubleValue, w > 0, h > 0 else {
                throw ModelError.info("artwork bounds need positive width and height", key: "artwork")
            }
            width = w
            height = h
        }
        var sources: [String] = []
        if let s = o["sources"], !s.isNull {
            guard let list = s.arrayValue else { throw ModelError.info("artwork sources must be an array", key: "artwork") }
            sources = try list.map {
                guard let str = $0.stringValue else { throw ModelError.info("artwork sources must be strings", key: "artwork") }
                return str
            }
        }
        // A `data:` URI as the id (MPRIS importers pass `mpris:artUrl` as id and source) becomes
        // its short content id (the public init normalises it): the cover is not repeated in
        // every event, key and fault.
        self.init(id: id, width: width, height: height, sources: sources)
    }
}

extension TimeRange {
    /// `{start, end}`, or `{start, duration}` as Apple's CMTimeRange has it (not both).
    public init(json: JSON) throws {
        let bad = ModelError.info("a time range is {start, end} or {start, duration}, with 0 <= start < end",
                                  key: "adTimeRanges")
        guard let s = json["start"]?.doubleValue else { throw bad }
        let e: Double
        switch (json["end"]?.doubleValue, json["duration"]?.doubleValue) {
        case (let end?, nil): e = end
        case (nil, let d?): e = s + d
        default: throw bad
        }
        guard s.isFinite, e.isFinite, s >= 0, e > s else { throw bad }
        try TimeBound.check(e, "adTimeRanges")
        self.init(start: s, end: e)
    }
}

extension LanguageOption {
    /// `{languageTag, type?: audible | legible, displayName?, identifier?}`.
    public init(json: JSON) throws {
        guard let tag = json["languageTag"]?.stringValue, !tag.isEmpty else {
            throw ModelError.info("a language option needs a languageTag", key: "languageOptions")
        }
        var kind = Kind.audible
        if let t = json["type"], !t.isNull {
            guard let k = t.stringValue.flatMap(Kind.init(rawValue:)) else {
                throw ModelError.info("language option type is audible or legible", key: "languageOptions")
            }
            kind = k
        }
        self.init(languageTag: tag, kind: kind, displayName: json["displayName"]?.stringValue,
                  identifier: json["identifier"]?.stringValue)
    }
}

extension MediaItem {
    /// Validates an item object `{title?, artist?, duration?, url?, info?}` (SPEC `player.load`).
    public init(json: JSON) throws {
        guard let o = json.objectValue else { throw ModelError.invalid("an item must be a JSON object") }
        for key in o.keys where !["title", "artist", "duration", "url", "info"].contains(key) {
            throw ModelError.invalid("unknown item field '\(key)'", ModelError.Detail(field: key))
        }
        func string(_ k: String) throws -> String? {
            guard let v = o[k], !v.isNull else { return nil }
            guard let s = v.stringValue else { throw ModelError.invalid("item \(k) must be a string") }
            return s
        }
        /// Title and artist may be localized (SPEC: every string key may be); the plain field
        /// keeps the `und` text, the item's info the whole value.
        func text(_ k: String) throws -> LocalizedString? {
            guard let v = o[k], !v.isNull else { return nil }
            guard let s = LocalizedString(json: v) else {
                throw ModelError.invalid("item \(k) must be a string or an object of language → string")
            }
            return s
        }
        let localizedTitle = try text("title")
        let localizedArtist = try text("artist")
        let url = try string("url")
        var duration: Double?
        if let d = o["duration"], !d.isNull {
            guard let v = d.doubleValue, v.isFinite, v >= 0 else {
                throw ModelError.invalid("item duration must be a non-negative number of seconds")
            }
            duration = try TimeBound.check(v, "duration")
        }
        var info = NowPlayingInfo()
        if let i = o["info"], !i.isNull { info = try NowPlayingInfo(json: i) }
        for (key, value) in [(InfoKey.title, localizedTitle), (.artist, localizedArtist)] {
            if let value, !value.isPlain, info[key] == nil { info[key] = .text(value) }
        }
        self.init(title: localizedTitle?.resolved(), artist: localizedArtist?.resolved(), duration: duration, url: url, info: info)
    }
}

extension NowPlayingModel {
    /// `info.set` from the wire: the JSON object decoded (`InfoPatch(json:)`), then the model's.
    public mutating func setInfo(session id: SessionID, info json: JSON, now: MonotonicInstant) throws -> ModelResult<PublishedInfo> {
        try setInfo(session: id, info: InfoPatch(json: json), now: now)
    }

    /// `info.update` from the wire: `null` removes a key.
    public mutating func updateInfo(session id: SessionID, info json: JSON, now: MonotonicInstant) throws -> ModelResult<PublishedInfo> {
        try updateInfo(session: id, info: InfoPatch(json: json), now: now)
    }
}

extension CommandStatus {
    /// Parses a wire name or the numeric value (as an out-of-process handler may answer either).
    public init?(json: JSON) {
        if let s = json.stringValue, let m = CommandStatus.allCases.first(where: { $0.name == s }) {
            self = m
        } else if let i = json.intValue, let m = CommandStatus(rawValue: i) {
            self = m
        } else {
            return nil
        }
    }
}
