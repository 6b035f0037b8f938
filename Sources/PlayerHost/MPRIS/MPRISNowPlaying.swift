import PlayerHostBase
import PlayerHostModel

/// What the MPRIS bridge reflects: the Now Playing session's published value, its command center,
/// and the instant the value holds for. The bridge's whole input, built from the model after each
/// publication; nil when nothing is Now Playing.
public struct MPRISNowPlaying: Sendable, Hashable {
    public var session: SessionID
    /// The info as published, `elapsed` inferred for `timestamp`.
    public var info: NowPlayingInfo
    public var playbackState: PlaybackState
    public var timestamp: MonotonicInstant
    public var commands: CommandCenter
    /// The session's volume (`Volume`).
    public var volume: PlayerVolume

    public init(session: SessionID, info: NowPlayingInfo, playbackState: PlaybackState,
                timestamp: MonotonicInstant, commands: CommandCenter = CommandCenter(), volume: PlayerVolume = PlayerVolume()) {
        self.session = session
        self.info = info
        self.playbackState = playbackState
        self.timestamp = timestamp
        self.commands = commands
        self.volume = volume
    }

    /// A published Now Playing value and its session's command center.
    public init(_ snapshot: NowPlayingSnapshot, commands: CommandCenter) {
        self.init(session: snapshot.session, info: snapshot.info, playbackState: snapshot.playbackState,
                  timestamp: snapshot.timestamp, commands: commands, volume: snapshot.volume)
    }

    /// The Now Playing session of `model` at `now`, or nil.
    public static func current(_ model: NowPlayingModel, now: MonotonicInstant) -> MPRISNowPlaying? {
        guard let snapshot = model.nowPlaying(at: now), let s = model.sessions[snapshot.session] else { return nil }
        return MPRISNowPlaying(snapshot, commands: s.commandCenter)
    }

    /// What tells one item from the next (`MPRISValues.itemKey`: its place in the queue and
    /// what it is). The same item played again (repeat one) keeps its id, as MPRIS wants.
    var itemKey: String {
        var index: Int64?
        if case .integer(let i)? = info[.queueIndex] { index = Int64(i) }
        return MPRISValues.itemKey(queueIndex: index, texts: [InfoKey.title, .artist, .albumTitle, .assetURL].map { info.text($0) },
                                   duration: info.duration)
    }
}
