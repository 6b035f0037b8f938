import ArgumentParser
import PlayerHostClient
import PlayerHostModel

/// A transport verb: one remote command sent through `command.send`, so it goes through the
/// session's command center exactly like a media key would (enabled + targeted, handlers in
/// order, first non-success status wins) rather than poking the player directly.
/// Success prints nothing, like playerctl; so does a command the player then refuses (exit 0,
/// as playerctl), with the reason on stderr for a person at a terminal and in `--json`.
protocol TransportVerb: ParsableCommand {
    static var wireCommand: String { get }
    /// playerctl's verb (`play-pause`).
    static var verb: String { get }
    /// The MPRIS capability playerctl checks first (`CanPlay`, `CanGoNext`, …).
    static func can(_ view: PlayerctlView) -> Bool
    var global: GlobalOptions { get }
    var target: SessionOption { get }
}

extension TransportVerb {
    static func can(_ view: PlayerctlView) -> Bool { view.canPlay }

    func run() throws { try sendTransport() }

    /// As playerctl: a player that cannot (its capability off) is skipped for the next one;
    /// none that can is "No player could handle this command" (exit 1).
    func sendTransport() throws {
        try reporting {
            try PlayerctlRunner.run(global, target, verb: Self.verb, supportsFormat: false) { player in
                let view = try player.view(commands: true)
                guard Self.can(view), let id = view.session else { return .skipped }
                try player.remote.sendReporting(Self.wireCommand, session: id, asPlayerctl: true)
                return .handled(nil)
            }
        }
    }

    /// The help text every transport verb shares, with its own examples.
    static func help(_ what: String, verb: String) -> ArgumentParser.CommandConfiguration {
        ArgumentParser.CommandConfiguration(
            commandName: verb,
            abstract: "\(what) (command \(wireCommand), through the session's command center).",
            discussion: """
                Success prints nothing, like playerctl. A player that cannot (its capability \
                off) is "No player could handle this command" (exit 1).

                Examples:
                  npctl \(verb)            # the Now Playing session
                  npctl \(verb) --session pip  # another session
                  npctl -p mpv \(verb)     # an imported player
                  npctl -a \(verb)         # every player that can
                """)
    }
}

struct Play: TransportVerb {
    static let verb = "play"
    static let wireCommand = "play"
    static let configuration: ArgumentParser.CommandConfiguration = {
        var c = help("Play", verb: "play")
        c.discussion += "\n  npctl play 3          # play item 3 of an mpv queue (mpc play N; see Jump.swift)"
        return c
    }()
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("Play item N of the mpv queue, as npctl queue numbers it.", valueName: "n"))
    var item: Int?

    func run() throws {
        guard let item else { return try sendTransport() }
        try jump(to: item)
    }
}

struct Pause: TransportVerb {
    static let verb = "pause"
    static func can(_ view: PlayerctlView) -> Bool { view.canPause }
    static let wireCommand = "pause"
    static let configuration = help("Pause", verb: "pause")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
}

struct PlayPause: TransportVerb {
    static let verb = "play-pause"
    static let wireCommand = "togglePlayPause"
    static let configuration: ArgumentParser.CommandConfiguration = {
        var c = help("Toggle play/pause", verb: "play-pause")
        c.aliases = ["toggle"]
        return c
    }()
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
}

struct Stop: TransportVerb {
    static let verb = "stop"
    static let wireCommand = "stop"
    static let configuration = help("Stop", verb: "stop")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
}

struct Next: TransportVerb {
    static let verb = "next"
    static func can(_ view: PlayerctlView) -> Bool { view.canGoNext }
    static let wireCommand = "nextTrack"
    static let configuration = help("Next track", verb: "next")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
}

struct Previous: TransportVerb {
    static let verb = "previous"
    static func can(_ view: PlayerctlView) -> Bool { view.canGoPrevious }
    static let wireCommand = "previousTrack"
    static let configuration: ArgumentParser.CommandConfiguration = {
        var c = help("Previous track", verb: "previous")
        c.aliases = ["prev"]
        return c
    }()
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
}
