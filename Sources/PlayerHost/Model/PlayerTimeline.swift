import PlayerHostBase

/// A player's status (≈ AVPlayer.Status, plus idle for an empty queue).
public enum PlayerStatus: String, Sendable, Hashable, CaseIterable {
    case idle, loading, ready, failed
}

/// Repeat mode (the `changeRepeatMode` payload values).
public enum RepeatMode: String, Sendable, Hashable, CaseIterable {
    case off, one, all
}

/// Shuffle mode (the `changeShuffleMode` payload values).
public enum ShuffleMode: String, Sendable, Hashable, CaseIterable {
    case off, items, collections
}

/// What happened when the current item reached its end.
public enum ItemEndOutcome: Sendable, Hashable {
    case repeated, advanced, endedQueue
}

/// The pure timeline of a clock player: a queue played on an injected clock.
///
/// Position is never ticked. It is an anchor `(anchorElapsed, rate, anchorTime)` and the position
/// at `now` is inferred as `anchorElapsed + rate × (now − anchorTime)`, clamped to
/// `[0, duration]`. The anchor moves only at key moments (play, pause, seek, rate change, track
/// change), so nothing changes between them and the host arms one timer for `itemEndDeadline`.
public struct PlayerTimeline: Sendable, Hashable {
    public private(set) var items: [MediaItem] = []
    /// Play order: indices into `items` (identity unless shuffled).
    public private(set) var order: [Int] = []
    /// Index into `order` of the current item; nil when the queue is empty.
    public private(set) var position: Int?
    public private(set) var anchorElapsed: Double = 0
    public private(set) var anchorTime: MonotonicInstant = .zero
    /// 0 = paused.
    public private(set) var rate: Double = 0
    /// The rate `play` uses.
    public private(set) var defaultRate: Double = 1
    public internal(set) var status: PlayerStatus = .idle
    public private(set) var repeatMode: RepeatMode = .off
    public private(set) var shuffleMode: ShuffleMode = .off
    /// Set by `stop` and by the end of the queue; cleared by play and track changes.
    public private(set) var isStopped = true
    /// Level and mute: a setting, like the modes (kept by `load`, on an empty queue too).
    public private(set) var volume = PlayerVolume()

    public init() {}

    public var isPlaying: Bool { rate > 0 }
    public var currentIndex: Int? { position.map { order[$0] } }
    public var currentItem: MediaItem? { currentIndex.map { items[$0] } }
    public var duration: Double? { currentItem?.duration }

    /// Position in the current item at `now`, clamped to `[0, duration]`.
    public func elapsed(at now: MonotonicInstant) -> Double {
        let dt = max(0, now.seconds(since: anchorTime))
        return clamp(anchorElapsed + rate * dt)
    }

    /// The instant the current item ends while playing; nil when paused or without a duration.
    public var itemEndDeadline: MonotonicInstant? {
        guard rate > 0, let d = duration else { return nil }
        return anchorTime.advanced(bySeconds: max(0, d - anchorElapsed) / rate)
    }

    // MARK: Operations (each takes the instant it happens at)

    /// Replaces the queue; the player is ready and paused at the first item (or idle if empty).
    public mutating func load(_ newItems: [MediaItem], at now: MonotonicInstant, rng: inout SplitMix64) {
        items = newItems
        order = Array(items.indices)
        position = items.isEmpty ? nil : 0
        if shuffleMode != .off, !items.isEmpty { reshuffle(keepingCurrent: false, rng: &rng) }
        status = items.isEmpty ? .idle : .ready
        rate = 0
        isStopped = items.isEmpty
        anchor(0, at: now)
    }

    /// Starts playback at `defaultRate`. At the end of an item it moves on (to the first item
    /// after the end of the queue). Returns whether playback started (false if already playing).
    @discardableResult
    public mutating func play(at now: MonotonicInstant) throws -> Bool {
        try requirePlayable()
        if rate > 0 { return false }
        if let d = duration, elapsed(at: now) >= d {
            if let next = position.map({ $0 + 1 }), next < order.count { position = next } else { position = 0 }
            anchor(0, at: now)
        } else {
            anchor(elapsed(at: now), at: now)
        }
        rate = defaultRate
        isStopped = false
        return true
    }

    /// Pauses, keeping the position. Returns whether anything changed.
    @discardableResult
    public mutating func pause(at now: MonotonicInstant) -> Bool {
        guard rate > 0 else { return false }
        anchor(elapsed(at: now), at: now)
        rate = 0
        return true
    }

    /// Stops: paused at the start of the current item, `stopped`.
    public mutating func stop(at now: MonotonicInstant) {
        if rate == 0, isStopped, anchorElapsed == 0 { return }
        rate = 0
        isStopped = true
        anchor(0, at: now)
    }

    /// Seeks within the current item (media time), clamped to `[0, duration]`; rate kept.
    public mutating func seek(to seconds: Double, at now: MonotonicInstant) throws {
        guard seconds.isFinite else { throw ModelError.invalid("position must be a finite number") }
        guard position != nil else { throw ModelError.state("the player has no items") }
        anchor(clamp(seconds), at: now)
        if rate == 0, isStopped { isStopped = false }
    }

    /// Sets the rate: 0 pauses, > 0 plays at that rate. Returns whether playback started.
    @discardableResult
    public mutating func setRate(_ newRate: Double, at now: MonotonicInstant) throws -> Bool {
        guard newRate.isFinite, newRate >= 0 else { throw ModelError.invalid("rate must be a number >= 0") }
        if newRate == 0 { pause(at: now); return false }
        try requirePlayable()
        let started = rate == 0
        if rate != newRate {
            anchor(elapsed(at: now), at: now)
            rate = newRate
        }
        isStopped = false
        return started
    }

    /// The rate `play` uses (must be > 0).
    public mutating func setDefaultRate(_ r: Double) throws {
        guard r.isFinite, r > 0 else { throw ModelError.invalid("defaultRate must be a number > 0") }
        defaultRate = r
    }

    /// Next item in play order (wraps with repeat all); throws `invalidState` at the end.
    public mutating func next(at now: MonotonicInstant) throws {
        guard let p = position else { throw ModelError.state("the player has no items") }
        if p + 1 < order.count {
            position = p + 1
        } else if repeatMode == .all {
            position = 0
        } else {
            throw ModelError.state("no next item (end of queue)")
        }
        anchor(0, at: now)
    }

    /// Previous item in play order (wraps with repeat all); at the first item, restarts it.
    public mutating func previous(at now: MonotonicInstant) throws {
        guard let p = position else { throw ModelError.state("the player has no items") }
        if p > 0 {
            position = p - 1
        } else if repeatMode == .all {
            position = order.count - 1
        }
        anchor(0, at: now)
    }

    public mutating func setRepeat(_ mode: RepeatMode) { repeatMode = mode }

    /// Sets the level (checked against `limit`, at most `PlayerVolume.maximum`) and/or the
    /// mute; nil keeps it. A level outside the range is `invalidArgument` and changes nothing.
    public mutating func setVolume(_ level: Double?, muted: Bool?, upTo limit: Double = PlayerVolume.maximum) throws {
        volume = try volume.setting(level: level, muted: muted, upTo: limit)
    }

    /// Sets shuffle; turning it on keeps the current item current and shuffles the rest
    /// (by collection — runs of the same albumTitle — for `collections`).
    public mutating func setShuffle(_ mode: ShuffleMode, rng: inout SplitMix64) {
        guard mode != shuffleMode else { return }
        shuffleMode = mode
        if mode == .off {
            let current = currentIndex
            order = Array(items.indices)
            position = current
        } else if !items.isEmpty {
            reshuffle(keepingCurrent: true, rng: &rng)
        }
    }

    /// Puts back a play order kept across a restart (`HostSnapshot`), on the item `current`
    /// (an index into `items`; nil: the current one stays). `newOrder` comes from a file:
    /// anything but a permutation of the items' indices is refused (`invalid`), changing nothing.
    mutating func restorePlayOrder(_ newOrder: [Int], current: Int?) throws {
        guard newOrder.count == items.count, Set(newOrder) == Set(items.indices) else {
            throw ModelError.invalid("the kept play order is not one of this queue's")
        }
        let item = current ?? currentIndex
        order = newOrder
        position = item.flatMap { newOrder.firstIndex(of: $0) } ?? (items.isEmpty ? nil : 0)
    }

    /// Handles the end of the current item at exactly `deadline` (its end instant, not the
    /// possibly later instant the host's timer fired), so the next item starts on time.
    public mutating func finishItem(at deadline: MonotonicInstant) -> ItemEndOutcome {
        let p = position ?? 0
        if repeatMode == .one, (duration ?? 0) > 0 {
            anchor(0, at: deadline)
            return .repeated
        }
        if p + 1 < order.count {
            position = p + 1
            anchor(0, at: deadline)
            return .advanced
        }
        if repeatMode == .all, order.count > 0 {
            position = 0
            anchor(0, at: deadline)
            return .advanced
        }
        rate = 0
        isStopped = true
        anchor(duration ?? anchorElapsed, at: deadline)
        return .endedQueue
    }

    /// The instant to finish the current item at, for an end due at `deadline` and handled
    /// at `now`: under repeat, the last end of a whole period (one item for `one`, the queue
    /// for `all`) at or before `now`, computed from the clock; otherwise `deadline`. So a
    /// short item on repeat is caught up in one step however many times it came round.
    public func lastRepeat(endingAt deadline: MonotonicInstant, upTo now: MonotonicInstant) -> MonotonicInstant {
        guard rate > 0, now > deadline else { return deadline }
        let seconds: Double
        switch repeatMode {
        case .off:
            return deadline
        case .one:
            seconds = duration ?? 0
        case .all:
            // A whole cycle returns to this same instant of this same item.
            var total = 0.0
            for i in items { guard let d = i.duration, d > 0 else { return deadline }; total += d }
            seconds = total
        }
        let periodNS = (seconds / rate * 1e9).rounded()
        guard periodNS.isFinite, periodNS >= 1, periodNS < 1.8e19 else { return deadline }
        let period = UInt64(periodNS)
        let k = (now.nanoseconds - deadline.nanoseconds) / period
        return MonotonicInstant(nanoseconds: deadline.nanoseconds + k * period)
    }

    /// Moves the anchor to `instant` without changing the trajectory (used at ad boundaries,
    /// where the published content rate changes). `elapsed` snaps the position exactly.
    public mutating func reanchor(at instant: MonotonicInstant, elapsed: Double? = nil) {
        anchor(elapsed.map(clamp) ?? self.elapsed(at: instant), at: instant)
    }

    /// Takes an external backend's report of its true state (see `PlayerSync`); absent fields
    /// keep their value. The anchor moves only when the trajectory does (another item, another
    /// rate, an elapsed that disagrees with the inferred one, a new duration), so a report that
    /// agrees with what readers already infer changes nothing. A player that is not `ready`
    /// does not move media time, so its rate is 0 whatever the engine's nominal speed.
    public mutating func sync(_ r: PlayerSync, at now: MonotonicInstant) throws {
        try r.validate()
        let newVolume = try volume.setting(level: r.volume, muted: r.muted)
        let before = self
        let inferred = elapsed(at: now)
        if let newItems = r.items {
            items = newItems
            // The engine orders its own playlist; the model keeps it as reported.
            order = Array(items.indices)
            position = items.isEmpty ? nil : min(position ?? 0, items.count - 1)
            // The same media re-sent without a duration keeps the one learned earlier.
            if let p = position, items[p].duration == nil, let old = before.currentItem,
               old.withoutDuration == items[p].withoutDuration {
                items[p].duration = old.duration
            }
        }
        if let i = r.index {
            guard items.indices.contains(i) else {
                throw ModelError.invalid("index \(i) is outside the queue of \(items.count) items", ModelError.Detail(field: "index"))
            }
            position = i
        }
        if r.elapsed != nil || r.duration != nil, position == nil {
            throw ModelError.invalid("elapsed and duration need a current item: report items first")
        }
        if let d = r.duration { items[order[position!]].duration = d }
        if let m = r.repeatMode { repeatMode = m }
        if let m = r.shuffleMode { shuffleMode = m }
        if let s = r.status {
            if s == .idle, !items.isEmpty { throw ModelError.invalid("a player with items is not idle", ModelError.Detail(field: "status")) }
            if s == .ready, items.isEmpty { throw ModelError.invalid("a player without items is idle, not ready", ModelError.Detail(field: "status")) }
            status = s
        } else if items.isEmpty {
            status = .idle
        } else if status == .idle {
            status = .ready
        }
        let newRate = status == .ready ? (r.rate ?? rate) : 0
        let itemChanged = currentIndex != before.currentIndex
            || currentItem?.withoutDuration != before.currentItem?.withoutDuration
        let target = clamp(r.elapsed ?? (itemChanged ? 0 : inferred))
        // A microsecond absorbs the rounding of `inferred`; no display could show the difference.
        if itemChanged || newRate != before.rate || duration != before.duration || abs(target - inferred) > 1e-6 {
            anchor(target, at: now)
        }
        rate = newRate
        isStopped = items.isEmpty
        volume = newVolume
    }

    // MARK: Internals

    private mutating func anchor(_ elapsed: Double, at now: MonotonicInstant) {
        anchorElapsed = elapsed
        anchorTime = now
    }

    /// Within the item: [0, duration], or [0, `Microseconds.maxSeconds`] without one (a skip
    /// from near the bound saturates there rather than leaving the documented range).
    private func clamp(_ t: Double) -> Double {
        min(max(0, t), duration ?? Microseconds.maxSeconds)
    }

    private func requirePlayable() throws {
        guard position != nil else { throw ModelError.state("the player has no items; load some first") }
        switch status {
        case .failed: throw ModelError.state("the player failed")
        case .loading: throw ModelError.state("the player is still loading")
        case .idle, .ready: break
        }
    }

    private mutating func reshuffle(keepingCurrent: Bool, rng: inout SplitMix64) {
        let current = keepingCurrent ? currentIndex : nil
        var groups: [[Int]] = []
        if shuffleMode == .collections {
            for i in items.indices {
                let album = items[i].effectiveInfo.text(.albumTitle)
                if let last = groups.last?.last, items[last].effectiveInfo.text(.albumTitle) == album, album != nil {
                    groups[groups.count - 1].append(i)
                } else {
                    groups.append([i])
                }
            }
        } else {
            groups = items.indices.map { [$0] }
        }
        var first: [Int] = []
        if let current, let g = groups.firstIndex(where: { $0.contains(current) }) {
            first = groups.remove(at: g)
        }
        groups.shuffle(using: &rng)
        order = first + groups.flatMap { $0 }
        position = current.flatMap { order.firstIndex(of: $0) } ?? 0
    }
}
