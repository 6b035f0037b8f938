/// A backend's report of an external player's true state (`player.sync`).
///
/// Every field is optional: absent fields keep their value. `elapsed` is media time of the
/// current item at the report's instant; `duration` is the current item's (an engine often
/// learns it only after loading); `index` points into `items` (the engine's own playlist order:
/// the model does not reorder an external queue, so `shuffleMode` is only reported).
public struct PlayerSync: Sendable, Hashable {
    public var items: [MediaItem]?
    public var index: Int?
    public var elapsed: Double?
    public var rate: Double?
    public var duration: Double?
    public var status: PlayerStatus?
    public var repeatMode: RepeatMode?
    public var shuffleMode: ShuffleMode?
    /// The engine's level (`0...PlayerVolume.maximum`: a backend clamps what its engine allows
    /// beyond it) and mute.
    public var volume: Double?
    public var muted: Bool?

    public init(items: [MediaItem]? = nil, index: Int? = nil, elapsed: Double? = nil, rate: Double? = nil,
                duration: Double? = nil, status: PlayerStatus? = nil, repeatMode: RepeatMode? = nil,
                shuffleMode: ShuffleMode? = nil, volume: Double? = nil, muted: Bool? = nil) {
        self.items = items
        self.index = index
        self.elapsed = elapsed
        self.rate = rate
        self.duration = duration
        self.status = status
        self.repeatMode = repeatMode
        self.shuffleMode = shuffleMode
        self.volume = volume
        self.muted = muted
    }

    /// Numbers must be finite and non-negative (`invalidArgument` naming the field).
    func validate() throws {
        for (name, value) in [("elapsed", elapsed), ("rate", rate), ("duration", duration)] {
            if let v = value, !(v.isFinite && v >= 0) {
                throw ModelError.invalid("\(name) must be a finite number >= 0", ModelError.Detail(field: name))
            }
        }
        for (name, value) in [("elapsed", elapsed), ("duration", duration)] {
            if let v = value { try TimeBound.check(v, name) }
        }
        if let volume { try PlayerVolume.check(volume, upTo: PlayerVolume.maximum, field: "volume") }
        if let index, index < 0 { throw ModelError.invalid("index must be >= 0", ModelError.Detail(field: "index")) }
    }
}
