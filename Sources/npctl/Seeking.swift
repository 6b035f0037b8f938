import ArgumentParser
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel

/// `npctl position [POS]`: print or change the position, in playerctl's and mpc's syntax.
struct Position: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "position",
        abstract: "Print the position in seconds, or seek to a time or by some seconds.",
        discussion: """
            POS is S, M:SS or H:MM:SS (seek to), or relative: +S / -S (mpc) or S+ / S- \
            (playerctl). Seeks go through command changePlaybackPosition. Relative seeks start \
            from the position computed now and stop at 0 and at the end.

            Examples:
              npctl position            # prints e.g. 83.235
              npctl position 1:30       # seek to 1:30
              npctl position 10+        # 10 s forward
              npctl position -5         # 5 s back
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    @Argument(help: ArgumentHelp("S, M:SS, H:MM:SS, +S, -S, S+ or S-.", valueName: "pos"))
    var offset: String?

    static func parse(_ s: String) throws -> PositionRequest {
        guard let r = PositionRequest(s) else {
            throw Failure("position: '\(s)' is not a time: use \(PositionRequest.forms)", code: 2)
        }
        return r
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
            if case .absolute(let to) = request {
                return try remote.sendReporting("changePlaybackPosition", session: target.session, ["position": .double(to)])
            }
            // Relative: from where the session is now, sent to that same session (not whatever
            // is Now Playing by the time the seek arrives).
            let s = try remote.requireSnapshot(target)
            let to = request.target(from: s.position, duration: s.duration)
            try remote.sendReporting("changePlaybackPosition", session: s.session, ["position": .double(to)])
        }
    }
}

/// `npctl skip-forward [S]`.
struct SkipForward: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip-forward",
        abstract: "Skip forward (command skipForward; default interval: the session's preferredIntervals[0]).",
        discussion: """
            Examples:
              npctl skip-forward
              npctl skip-forward 30
            """)
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
        abstract: "Skip backward (command skipBackward; default interval: the session's preferredIntervals[0]).",
        discussion: """
            Examples:
              npctl skip-backward
              npctl skip-backward 5
            """)
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
        commandName: "rate",
        abstract: "Print the playback rate, or set it (command changePlaybackRate).",
        discussion: """
            While paused, the rate printed is the one play resumes at. A rate the session \
            does not support is refused with the list of those it does.

            Examples:
              npctl rate
              npctl rate 1.5
            """)
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
