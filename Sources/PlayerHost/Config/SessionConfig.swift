import PlayerHostBase
import PlayerHostModel

/// A session the config creates at start.
public struct SessionConfig: Codable, Sendable, Equatable {
    public var id: String
    public var kind: String
    public var players: Int?
    /// Audio category (`playback`, `playAndRecord`, `soloAmbient`, `ambient`).
    public var category: String?
    public var options: [String]?
    /// Activate the audio session when the session first plays (default true): right before
    /// `autoplay` starts it, else on its first play command. Never at start or reload, where an
    /// idle session would interrupt (pause) another app's playback. `false` leaves autoplay's
    /// players playing with the audio session inactive; a play command still activates it.
    public var activate: Bool?
    /// Target and enable the transport commands on the session's own players.
    public var bindDefaults: Bool?
    public var backgroundAudio: Bool?
    public var automaticallyPublishes: Bool?
    /// Start playing at once.
    public var autoplay: Bool?
    /// `off`, `one` or `all`.
    public var repeatMode: String?
    public var items: [ItemConfig]?

    public init(id: String, kind: String) {
        self.id = id
        self.kind = kind
    }

    static let schema: [ConfigKey] = [
        ConfigKey("id", .string),
        ConfigKey("kind", .string),
        ConfigKey("players", .integer),
        ConfigKey("category", .string),
        ConfigKey("options", .array(.string)),
        ConfigKey("activate", .boolean),
        ConfigKey("bind_defaults", .boolean),
        ConfigKey("background_audio", .boolean),
        ConfigKey("automatically_publishes", .boolean),
        ConfigKey("autoplay", .boolean),
        ConfigKey("repeat", .string),
        ConfigKey("item", .tables(ItemConfig.schema)),
    ]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, kind, players, category, options, activate
        case bindDefaults = "bind_defaults"
        case backgroundAudio = "background_audio"
        case automaticallyPublishes = "automatically_publishes"
        case autoplay
        case repeatMode = "repeat"
        case items = "item"
    }
}

/// A queue item in the config.
public struct ItemConfig: Codable, Sendable, Equatable {
    public var title: String
    public var artist: String?
    public var album: String?
    public var duration: Double?
    public var url: String?

    public init(title: String, artist: String? = nil, album: String? = nil, duration: Double? = nil, url: String? = nil) {
        self.title = title
        self.artist = artist
        self.album = album
        self.duration = duration
        self.url = url
    }

    static let schema: [ConfigKey] = [
        ConfigKey("title", .string),
        ConfigKey("artist", .string),
        ConfigKey("album", .string),
        ConfigKey("duration", .number),
        ConfigKey("url", .string),
    ]

    enum CodingKeys: String, CodingKey, CaseIterable { case title, artist, album, duration, url }

    /// The item as `player.load` takes it.
    public var json: JSON {
        var o: [String: JSON] = ["title": .string(title)]
        if let artist { o["artist"] = .string(artist) }
        if let duration { o["duration"] = .double(duration) }
        if let url { o["url"] = .string(url) }
        if let album { o["info"] = ["albumTitle": .string(album)] }
        return .object(o)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        title = try c.decode(String.self, forKey: .title)
        artist = try c.decodeIfPresent(String.self, forKey: .artist)
        album = try c.decodeIfPresent(String.self, forKey: .album)
        url = try c.decodeIfPresent(String.self, forKey: .url)
        // TOML tells integers from floats; `duration = 324` and `duration = 324.5` both mean seconds.
        if let i = try? c.decodeIfPresent(Int.self, forKey: .duration) {
            duration = Double(i)
        } else {
            duration = try c.decodeIfPresent(Double.self, forKey: .duration)
        }
    }
}
