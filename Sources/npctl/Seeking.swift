import ArgumentParser
import PlayerHost

/// `npctl position [S][+|-]`: print or change the position, playerctl's syntax.
struct Position: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the position in seconds, or seek: S (to S), S+ / S- (S seconds forward / back).",
        discussion: "Seeks go through command changePlaybackPosition. Relative seeks start from the position computed now.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    @Argument(help: ArgumentHelp("Seconds; a trailing + or - makes it relative (30, 10+, 10-).", valueName: "offset"))
    var offset: String?

    /// `30` → (30, nil); `10+` → (10, +1); `10-` → (10, -1). A leading `+` is allowed too; a
    /// leading `-` cannot reach us (the parser takes it for an option), hence playerctl's suffix.
    static func parse(_ s: String) throws -> (value: Double, sign: Double?) {
        var t = Substring(s)
        var sign: Double?
        if t.hasSuffix("+") { sign = 1; t.removeLast() } else if t.hasSuffix("-") { sign = -1; t.removeLast() } else if t.hasPrefix("+") {
            sign = 1; t.removeFirst()
        }
        guard let v = Double(t), v.isFinite, v >= 0 else {
            throw Failure("position: '\(s)' is not seconds, S+ or S- (e.g. 30, 10+, 10-)", code: 2)
        }
        return (v, sign)
    }

    func run() throws {
        try reporting {
            let request = try offset.map(Self.parse)
            let remote = try Remote(global)
            guard let request else {
                let s = try remote.requireSnapshot(target)
                if global.json {
                    print(JSON.object(["session": .string(s.session), "position": .double(s.position)]).jsonString)
                } else {
                    print(TimeText.number(s.position))
                }
                return
            }
            guard let sign = request.sign else {
                return try remote.sendReporting("changePlaybackPosition", session: target.session,
                                                ["position": .double(request.value)])
            }
            // Relative: from where the session is now, sent to that same session (not whatever
            // is Now Playing by the time the seek arrives).
            let s = try remote.requireSnapshot(target)
            var to = max(0, s.position + sign * request.value)
            if let d = s.duration, d > 0 { to = min(to, d) }
            try remote.sendReporting("changePlaybackPosition", session: s.session, ["position": .double(to)])
        }
    }
}

/// `npctl skip-forward [S]`.
struct SkipForward: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip-forward",
        abstract: "Skip forward (command skipForward; default interval: the session's preferredIntervals[0]).")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("Seconds.", valueName: "interval")) var interval: Double?

    func run() throws {
        try reporting {
            try Remote(global).sendReporting("skipForward", session: target.session, interval.map { ["interval": .double($0)] } ?? [:])
        }
    }
}

/// `npctl skip-backward [S]`.
struct SkipBackward: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip-backward",
        abstract: "Skip backward (command skipBackward; default interval: the session's preferredIntervals[0]).")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("Seconds.", valueName: "interval")) var interval: Double?

    func run() throws {
        try reporting {
            try Remote(global).sendReporting("skipBackward", session: target.session, interval.map { ["interval": .double($0)] } ?? [:])
        }
    }
}

/// `npctl rate [R]`.
struct Rate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the playback rate (while paused: the rate play resumes at), or set it (command changePlaybackRate; R must be a supported rate).")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("New rate, e.g. 1.5.", valueName: "rate")) var rate: Double?

    func run() throws {
        try reporting {
            let remote = try Remote(global)
            if let rate {
                return try remote.sendReporting("changePlaybackRate", session: target.session, ["rate": .double(rate)])
            }
            let s = try remote.requireSnapshot(target)
            // Paused, the published rate is 0 by definition; the rate a user set (and will hear
            // on play) is defaultRate, which is what changePlaybackRate sets while paused.
            let playing = s.rate > 0 ? s.rate : (s.info["defaultRate"]?.doubleValue ?? 1)
            if global.json {
                print(JSON.object(["session": .string(s.session), "rate": .double(s.rate), "playbackRate": .double(playing)]).jsonString)
            } else {
                print(TimeText.number(playing))
            }
        }
    }
}
