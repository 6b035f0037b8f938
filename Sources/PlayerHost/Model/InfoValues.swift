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
}
