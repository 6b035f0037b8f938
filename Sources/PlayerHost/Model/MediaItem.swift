import PlayerHostBase

/// One queue entry of a player: static metadata plus an optional media reference.
///
/// `duration` drives the clock player's timeline (nil: plays until told otherwise, like a live
/// stream). `info` is the item's own now-playing info (≈ AVPlayerItem.nowPlayingInfo); `title`
/// and `artist` are conveniences that fill `info` when it lacks them.
public struct MediaItem: Sendable, Hashable {
    public var title: String?
    public var artist: String?
    public var duration: Double?
    public var url: String?
    public var info: NowPlayingInfo

    public init(title: String? = nil, artist: String? = nil, duration: Double? = nil, url: String? = nil,
                info: NowPlayingInfo = NowPlayingInfo()) {
        self.title = title
        self.artist = artist
        self.duration = duration
        self.url = url
        self.info = info
    }

    /// The item's info with `title`, `artist`, `assetURL` and `duration` filled from the fields.
    public var effectiveInfo: NowPlayingInfo {
        var fields = NowPlayingInfo()
        if let title { fields[.title] = .text(LocalizedString(title)) }
        if let artist { fields[.artist] = .text(LocalizedString(artist)) }
        if let url { fields[.assetURL] = .text(LocalizedString(url)) }
        if let duration { fields[.duration] = .number(duration) }
        return info.fillingGaps(from: fields)
    }

    /// The same media whatever its known length: an engine often learns the duration late.
    var withoutDuration: MediaItem {
        var copy = self
        copy.duration = nil
        return copy
    }
}

/// Ad ranges of one item, merged and sorted, mapping media time ↔ content time.
///
/// Published `duration` and `elapsed` are content time (ads excluded); inside an ad, content time
/// holds at the ad's start (WWDC22's preroll example).
public struct AdSchedule: Sendable, Hashable {
    public private(set) var ranges: [TimeRange]

    public init(_ ranges: [TimeRange]) {
        var merged: [TimeRange] = []
        for r in ranges.sorted(by: { $0.start < $1.start }) {
            if let last = merged.last, r.start <= last.end {
                merged[merged.count - 1].end = max(last.end, r.end)
            } else {
                merged.append(r)
            }
        }
        self.ranges = merged
    }

    public var isEmpty: Bool { ranges.isEmpty }

    /// Whether media time `t` is inside an ad (start inclusive, end exclusive).
    public func isInAd(_ t: Double) -> Bool { ranges.contains { t >= $0.start && t < $0.end } }

    /// Content time at media time `t`.
    public func contentTime(_ t: Double) -> Double {
        var ads = 0.0
        for r in ranges {
            if t >= r.end { ads += r.length } else if t > r.start { ads += t - r.start } else { break }
        }
        return max(0, t - ads)
    }

    /// Content duration of an item of media `duration`.
    public func contentDuration(_ duration: Double) -> Double {
        var ads = 0.0
        for r in ranges where r.start < duration { ads += min(r.end, duration) - r.start }
        return max(0, duration - ads)
    }

    /// Media time for content position `c`: ads that start before `c` are skipped over, so a
    /// seek to content 0 with a preroll lands on the preroll (it still has to play).
    public func mediaTime(_ c: Double) -> Double {
        var t = c
        for r in ranges where r.start < t { t += r.length }
        return t
    }

    /// The first ad boundary strictly after media time `t`, before `limit` when given.
    public func nextBoundary(after t: Double, before limit: Double?) -> Double? {
        for r in ranges {
            for b in [r.start, r.end] where b > t {
                if let limit, b >= limit { return nil }
                return b
            }
        }
        return nil
    }
}
