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
            from the position computed now and stop at 0 and at the end. --follow prints \
            the position now and after each seek (not on play or pause: playerctl follows \
            Seeked); with a --format naming position, every second too.

            Examples:
              npctl position            # prints e.g. 83.235000
              npctl position 1:30       # seek to 1:30
              npctl position 10+        # 10 s forward
              npctl position -5         # 5 s back
              npctl position --follow --format '{{duration(position)}}'
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    @Argument(help: ArgumentHelp("S, M:SS, H:MM:SS, +S, -S, S+ or S-.", valueName: "pos"))
    var offset: String?

    func run() throws {
        try reporting {
            try global.refuseJSONWithFormat()
            let o = playerctlOptions
            if o.follow, offset == nil {
                let template = try o.format.map(parseTemplate)
                return try Follower(global: global, target: target, verb: "position", template: template, line: { player, now in
                    let view = player.view
                    guard let template else { return view.positionText(at: now) }
                    return template.render(view.context(player: player.target.name, instance: player.target.instance, withMetadata: false, at: now))
                }).run()
            }
            if global.json, offset == nil {
                let s = try HostLink(global).requireSnapshot(target)
                return print(JSON.object(["session": .string(s.session), "position": .double(s.position)]).jsonString)
            }
            guard let offset else {
                let template = try o.format.map(parseTemplate)
                return try PlayerctlRunner.run(global, target, verb: "position", supportsFormat: true) { player in
                    guard let template else { return .handled(try player.view().positionText(at: InfoSnapshot.hostNow()) + "\n") }
                    return .handled(try template.expand(player.context(metadata: false)) + "\n")
                }
            }
            if o.format != nil { PlayerctlFailure.command("format strings are not supported on command functions.").report() }
            guard let request = PositionRequest(offset) else {
                var f = PlayerctlFailure.command("Could not parse position as a number: \(offset)")
                f.hints = ["position takes \(PositionRequest.forms)"]
                f.report()
            }
            try PlayerctlRunner.run(global, target, verb: "position", supportsFormat: true) { player in
                let view = try player.view(commands: true)
                guard view.canSeek, let id = view.session else { return .skipped }
                var to: Double
                switch request {
                case .absolute(let t): to = t
                default:
                    // Relative: from where the session is now, sent to that same session.
                    let s = InfoSnapshot(try player.raw())
                    to = request.target(from: s.position, duration: s.duration)
                }
                try player.remote.sendReporting("changePlaybackPosition", session: id, ["position": .double(to)], asPlayerctl: true)
                return .handled(nil)
            }
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
            try HostLink(global).sendReporting("skipForward", session: target.session, interval.map { ["interval": .double($0)] } ?? [:])
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
            try HostLink(global).sendReporting("skipBackward", session: target.session, interval.map { ["interval": .double($0)] } ?? [:])
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
            let remote = try HostLink(global)
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
