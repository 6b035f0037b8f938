import PlayerHostBase
import PlayerHostLoop
import PlayerHostModel

/// The MPRIS2 properties of the session the export shows (`MPRISExportSelection`): a pure mapping from `MPRISNowPlaying`
/// (nothing of D-Bus but its value types). The bridge diffs two of these to know which
/// PropertiesChanged and Seeked signals to send.
///
/// | MPRIS | from |
/// |---|---|
/// | `mpris:trackid` (o) | `MPRISValues.trackID`, `/org/playerhost/track/s<session>_<item>`: changes with the item and the session |
/// | `xesam:title`, `xesam:album` (s) | `title`, `albumTitle` |
/// | `xesam:artist`, `xesam:albumArtist`, `xesam:genre`, `xesam:composer` (as) | `artist`, `albumArtist`, `genre`, `composer` |
/// | `mpris:length` (x, µs) | `duration` (absent for live streams, and for a length beyond `Microseconds.maxSeconds`) |
/// | `mpris:artUrl` (s) | the resolved cover in the artwork cache (`artwork.image.url`) only; absent before or without resolution |
/// | `xesam:url` (s) | `assetURL` as a URI (`MPRISValues.uri`: an absolute path becomes `file://`, percent-encoded) |
/// | `PlaybackStatus` | playing → Playing; paused, interrupted → Paused; stopped → Stopped |
/// | `Rate` | the rate while playing, else `defaultRate` (never 0: paused shows in the status) |
/// | `LoopStatus`, `Shuffle` | `changeRepeatMode.currentRepeatType`, `changeShuffleMode.currentShuffleType` |
/// | `Minimum/MaximumRate` | `changePlaybackRate.supportedPlaybackRates` (and the current rate) |
/// | `CanPlay`, `CanPause`, `CanGoNext`, `CanGoPrevious`, `CanSeek` | command availability |
/// | `Volume` | the session's volume, 0 while muted (writable: `changeVolume`, within its `maximumVolume`) |
/// | `Position` (x, µs) | `elapsed + rate × (now − timestamp)` within [0, length or `Microseconds.maxSeconds`], computed on each read, never signalled |
///
/// Every seconds → µs conversion goes through `Microseconds.from(seconds:)` (saturating): the
/// values come from peers (a socket client's item, an imported player), and a multiplication
/// that overflows `Int64` traps.
public struct MPRISProperties: Sendable, Hashable {
    /// The trackid when nothing is Now Playing (the spec's "no track" path).
    public static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"

    public var trackID: String
    public var metadata: [String: DBusValue]
    public var playbackStatus: String
    public var loopStatus: String
    public var rate: Double
    public var shuffle: Bool
    public var minimumRate: Double
    public var maximumRate: Double
    /// What is heard (0 while muted), and the loudest a write may ask for (`maximumVolume`).
    public var volume: Double = 1
    public var maximumVolume: Double = 1
    public var canPlay = false
    public var canPause = false
    public var canGoNext = false
    public var canGoPrevious = false
    public var canSeek = false
    /// Content seconds at `timestamp`, and how fast they advance (0 unless playing).
    public var elapsed: Double = 0
    public var advance: Double = 0
    public var timestamp: MonotonicInstant = .zero
    /// Seconds, when known and within `Microseconds.maxSeconds` (a longer one is treated as
    /// unknown: no `mpris:length`, the position bounded by `maxSeconds`).
    public var duration: Double?
    public var session: SessionID?

    /// Nothing Now Playing: Stopped, empty Metadata, nothing can be done (shells hide the card).
    public init() {
        trackID = Self.noTrack
        metadata = [:]
        playbackStatus = "Stopped"
        loopStatus = "None"
        rate = 1
        shuffle = false
        minimumRate = 1
        maximumRate = 1
    }

    public init(_ np: MPRISNowPlaying?) {
        self.init()
        guard let np else { return }
        let info = np.info
        session = np.session
        let live = info.isLiveStream
        duration = live ? nil : info.duration.flatMap { $0 >= 0 && Microseconds.isInBounds($0) ? $0 : nil }
        trackID = MPRISValues.trackID(session: np.session, itemKey: np.itemKey)

        var m: [String: DBusValue] = ["mpris:trackid": .objectPath(trackID)]
        if let t = info.text(.title) { m["xesam:title"] = .string(t) }
        if let a = info.text(.albumTitle) { m["xesam:album"] = .string(a) }
        let lists: [(InfoKey, String)] = [(.artist, "xesam:artist"), (.albumArtist, "xesam:albumArtist"),
                                          (.genre, "xesam:genre"), (.composer, "xesam:composer")]
        for (key, name) in lists { if let v = info.text(key) { m[name] = .strings([v]) } }
        if let d = duration { m["mpris:length"] = .int64(Microseconds.from(seconds: d)) }
        if let u = info.text(.assetURL) { m["xesam:url"] = .string(MPRISValues.uri(u)) }
        // Only what the artwork helper resolved (a file in the cache): a raw source may be a
        // file that failed (`/etc/shadow`, `/dev/zero`, a FIFO) and goes to every desktop shell.
        if case .artwork(let a)? = info[.artwork], let url = a.image?.url { m["mpris:artUrl"] = .string(url) }
        metadata = m

        switch np.playbackState {
        case .playing: playbackStatus = "Playing"
        case .paused, .interrupted: playbackStatus = "Paused"
        case .stopped: playbackStatus = "Stopped"
        }
        let playingRate = info.rate ?? 0
        let defaultRate = info.number(.defaultRate) ?? 1
        rate = playingRate > 0 ? playingRate : (defaultRate > 0 ? defaultRate : 1)
        elapsed = info.elapsed ?? 0
        advance = np.playbackState == .playing ? max(0, playingRate) : 0
        timestamp = np.timestamp

        let c = np.commands
        switch c[.changeRepeatMode].configuration.currentRepeatType {
        case .off: loopStatus = "None"
        case .one: loopStatus = "Track"
        case .all: loopStatus = "Playlist"
        }
        shuffle = c[.changeShuffleMode].configuration.currentShuffleType != .off
        let rates = c[.changePlaybackRate].isAvailable ? c[.changePlaybackRate].configuration.supportedPlaybackRates : []
        minimumRate = (rates + [rate]).min() ?? rate
        maximumRate = (rates + [rate]).max() ?? rate
        canPlay = c[.play].isAvailable || c[.togglePlayPause].isAvailable
        canPause = c[.pause].isAvailable || c[.togglePlayPause].isAvailable
        volume = np.volume.effective
        maximumVolume = c[.changeVolume].configuration.maximumVolume
        canGoNext = c[.nextTrack].isAvailable
        canGoPrevious = c[.previousTrack].isAvailable
        canSeek = !live && c[.changePlaybackPosition].isAvailable
    }

    /// The signalled properties of `org.mpris.MediaPlayer2.Player`, by name (Position is not one).
    public var playerProperties: [String: DBusValue] {
        [
            "PlaybackStatus": .string(playbackStatus), "LoopStatus": .string(loopStatus), "Rate": .double(rate),
            "Shuffle": .boolean(shuffle), "Metadata": .dictionary(metadata),
            "MinimumRate": .double(minimumRate), "MaximumRate": .double(maximumRate),
            "Volume": .double(volume),
            "CanGoNext": .boolean(canGoNext), "CanGoPrevious": .boolean(canGoPrevious),
            "CanPlay": .boolean(canPlay), "CanPause": .boolean(canPause), "CanSeek": .boolean(canSeek),
        ]
    }

    /// Names of the signalled properties whose values differ from `old`, sorted.
    public func changedPlayerProperties(since old: MPRISProperties) -> [String] {
        let mine = playerProperties
        let theirs = old.playerProperties
        return mine.keys.filter { mine[$0] != theirs[$0] }.sorted()
    }

    /// The largest position of the item: its length, else (a live stream, an item without
    /// one) `Microseconds.maxSeconds`.
    public var upperBound: Double { duration ?? Microseconds.maxSeconds }

    /// Content seconds at `now`, clamped to [0, `upperBound`] (NaN, from a peer's odd rate or
    /// elapsed, is 0).
    public func position(at now: MonotonicInstant) -> Double {
        let p = elapsed + advance * max(0, now.seconds(since: timestamp))
        guard !p.isNaN else { return 0 }
        return min(max(0, p), upperBound)
    }

    /// `Position` in µs at `now`.
    public func positionMicroseconds(at now: MonotonicInstant) -> Int64 {
        Microseconds.from(seconds: position(at: now))
    }

    /// How far a position may stray from what the previous value predicts before it counts as
    /// a jump: apps publishing their own elapsed drift a little between key moments.
    public static let seekTolerance = 0.25

    /// The `Seeked` position (µs) if going from `old` to this is a jump: a new track that does
    /// not start at 0 (a hand-off to a session mid-item), or the same track away from where
    /// `old` predicts. Nil otherwise (pause, resume, rate change, a new item from its start).
    public func seekedPosition(since old: MPRISProperties) -> Int64? {
        guard session != nil else { return nil }
        let now = position(at: timestamp)
        if trackID != old.trackID {
            return now > Self.seekTolerance ? Microseconds.from(seconds: now) : nil
        }
        let predicted = old.position(at: timestamp)
        return abs(now - predicted) > Self.seekTolerance ? Microseconds.from(seconds: now) : nil
    }

    /// An object-path-safe hash (FNV-1a, 64 bits, hex): stable across runs.
    static func hex(_ s: String) -> String { MPRISValues.hex(s) }
}
