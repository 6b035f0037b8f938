import PlayerHostBase

/// The kind of media, the `mediaType` key.
public enum MediaType: String, Sendable, Hashable, CaseIterable {
    case none, audio, video
}

/// Artwork metadata: `{id, bounds: {width, height}, sources: [...]}`.
///
/// Resolution of `sources` (embedded > cached > remote) belongs to the artwork issue; the model
/// only carries and validates the description.
public struct Artwork: Sendable, Hashable {
    public var id: String
    public var width: Double?
    public var height: Double?
    public var sources: [String]
    /// The resolved image (`ArtworkResolution`); set by the host, never read from clients.
    public var image: ArtworkImage?

    public init(id: String, width: Double? = nil, height: Double? = nil, sources: [String] = [], image: ArtworkImage? = nil) {
        self.id = ArtworkDataURI.normalisedID(id)
        self.width = width
        self.height = height
        self.sources = sources
        self.image = image
    }

    init(json: JSON) throws {
        guard let o = json.objectValue else { throw ModelError.info("artwork must be an object", key: "artwork") }
        guard let id = o["id"]?.stringValue, !id.isEmpty else {
            throw ModelError.info("artwork needs a non-empty string id", key: "artwork")
        }
        // A `data:` URI as the id (MPRIS importers pass `mpris:artUrl` as id and source) becomes
        // its short content id: the cover is not repeated in every event, key and fault.
        self.id = ArtworkDataURI.normalisedID(id)
        if let b = o["bounds"], !b.isNull {
            guard let w = b["width"]?.doubleValue, let h = b["height"]?.doubleValue, w > 0, h > 0 else {
                throw ModelError.info("artwork bounds need positive width and height", key: "artwork")
            }
            width = w
            height = h
        }
        if let s = o["sources"], !s.isNull {
            guard let list = s.arrayValue else { throw ModelError.info("artwork sources must be an array", key: "artwork") }
            sources = try list.map {
                guard let str = $0.stringValue else { throw ModelError.info("artwork sources must be strings", key: "artwork") }
                return str
            }
        } else {
            sources = []
        }
    }
}

/// A time range on an item's media timeline, in seconds: `{start, end}` (used for ads).
public struct TimeRange: Sendable, Hashable {
    public var start: Double
    public var end: Double

    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }

    public var length: Double { end - start }

    /// `{start, end}`, or `{start, duration}` as Apple's CMTimeRange has it (not both).
    init(json: JSON) throws {
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
        start = s
        end = e
    }
}

/// One entry of `languageOptions` (≈ MPNowPlayingInfoLanguageOption).
public struct LanguageOption: Sendable, Hashable {
    /// `audible` (audio tracks) or `legible` (subtitles, captions).
    public enum Kind: String, Sendable, Hashable { case audible, legible }

    public var languageTag: String
    public var kind: Kind
    public var displayName: String?
    public var identifier: String?

    public init(languageTag: String, kind: Kind = .audible, displayName: String? = nil, identifier: String? = nil) {
        self.languageTag = languageTag
        self.kind = kind
        self.displayName = displayName
        self.identifier = identifier
    }

    init(json: JSON) throws {
        guard let tag = json["languageTag"]?.stringValue, !tag.isEmpty else {
            throw ModelError.info("a language option needs a languageTag", key: "languageOptions")
        }
        languageTag = tag
        if let t = json["type"], !t.isNull {
            guard let k = t.stringValue.flatMap(Kind.init(rawValue:)) else {
                throw ModelError.info("language option type is audible or legible", key: "languageOptions")
            }
            kind = k
        } else {
            kind = .audible
        }
        displayName = json["displayName"]?.stringValue
        identifier = json["identifier"]?.stringValue
    }
}
