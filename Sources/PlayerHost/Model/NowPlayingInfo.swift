import PlayerHostBase

/// The typed keys of now-playing info, named as on the wire.
public enum InfoKey: String, Sendable, Hashable, CaseIterable, Comparable {
    case title, artist, albumTitle, albumArtist, genre, composer
    case trackNumber, trackCount, discNumber
    case duration, elapsed, rate, defaultRate
    case queueIndex, queueCount, chapterNumber, chapterCount
    case isLiveStream, mediaType, assetURL, artwork, adTimeRanges, creditsStartTime
    case serviceIdentifier, languageOptions, extra

    /// Keys the session publishes from its players while `automaticallyPublishes` is on;
    /// writes to them are refused then (the seeds' MusicKit lesson).
    public static let automatic: Set<InfoKey> = [.duration, .elapsed, .rate, .defaultRate, .queueIndex, .queueCount]

    /// Keys an automatically publishing session takes from its current item's info (≈
    /// AVPlayerItem.nowPlayingInfo): every key its players do not publish. Writes to them are
    /// refused too, so nothing a client writes outlives the item it was meant for.
    public static let fromItem: Set<InfoKey> = Set(allCases).subtracting(automatic)

    /// Keys whose values are strings, each of which may be localized.
    public static let strings: Set<InfoKey> = [
        .title, .artist, .albumTitle, .albumArtist, .genre, .composer, .assetURL, .serviceIdentifier,
    ]

    public static func < (a: InfoKey, b: InfoKey) -> Bool { a.rawValue < b.rawValue }
}

/// One typed info value.
public enum InfoValue: Sendable, Hashable {
    case text(LocalizedString)
    case integer(Int)
    case number(Double)
    case flag(Bool)
    case mediaType(MediaType)
    case artwork(Artwork)
    case timeRanges([TimeRange])
    case languageOptions([LanguageOption])
    /// A plugin's own keys, kept as written: the host never reads inside them, only stores
    /// and republishes them, so they stay the wire's values.
    case extra([String: JSON])
}

/// A change to info: keys to set and keys to remove (`null` on the wire).
public struct InfoPatch: Sendable, Hashable {
    public var set: [InfoKey: InfoValue] = [:]
    public var remove: Set<InfoKey> = []

    public init(set: [InfoKey: InfoValue] = [:], remove: Set<InfoKey> = []) {
        self.set = set
        self.remove = remove
    }

    /// Every key the patch touches.
    public var keys: Set<InfoKey> { remove.union(set.keys) }
}

/// A now-playing dictionary with typed values (≈ MPNowPlayingInfoCenter.nowPlayingInfo).
public struct NowPlayingInfo: Sendable, Hashable {
    public private(set) var values: [InfoKey: InfoValue]

    public init(_ values: [InfoKey: InfoValue] = [:]) { self.values = values }

    public var isEmpty: Bool { values.isEmpty }
    public var keys: [InfoKey] { values.keys.sorted() }

    public subscript(key: InfoKey) -> InfoValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// Merges `patch`: its keys are set, its removals dropped, the rest kept (`info.update`).
    public func applying(_ patch: InfoPatch) -> NowPlayingInfo {
        var copy = self
        for k in patch.remove { copy.values[k] = nil }
        for (k, v) in patch.set { copy.values[k] = v }
        return copy
    }

    /// Keys of `other` fill in where this has none.
    public func fillingGaps(from other: NowPlayingInfo) -> NowPlayingInfo {
        var copy = self
        for (k, v) in other.values where copy.values[k] == nil { copy.values[k] = v }
        return copy
    }

    /// Without the given keys.
    public func removing(_ keys: Set<InfoKey>) -> NowPlayingInfo {
        var copy = self
        for k in keys { copy.values[k] = nil }
        return copy
    }

    public func text(_ key: InfoKey, language: String? = nil) -> String? {
        if case .text(let s)? = values[key] { return s.resolved(for: language) }
        return nil
    }

    public func number(_ key: InfoKey) -> Double? {
        switch values[key] {
        case .number(let d)?: return d
        case .integer(let i)?: return Double(i)
        default: return nil
        }
    }

    public var title: String? { text(.title) }
    public var duration: Double? { number(.duration) }
    public var elapsed: Double? { number(.elapsed) }
    public var rate: Double? { number(.rate) }

    public var adTimeRanges: [TimeRange] {
        if case .timeRanges(let r)? = values[.adTimeRanges] { return r }
        return []
    }

    public var isLiveStream: Bool {
        if case .flag(let b)? = values[.isLiveStream] { return b }
        return false
    }
}
