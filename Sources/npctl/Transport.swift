import ArgumentParser
import PlayerHostModel

/// A transport verb: one remote command sent through `command.send`, so it goes through the
/// session's command center exactly like a media key would (enabled + targeted, handlers in
/// order, first non-success status wins) rather than poking the player directly.
/// Success prints nothing, like playerctl; any other status is printed and exits 1.
protocol TransportVerb: ParsableCommand {
    static var wireCommand: String { get }
    var global: GlobalOptions { get }
    var target: SessionOption { get }
    var every: AllOption { get }
}

extension TransportVerb {
    func run() throws { try sendTransport() }

    func sendTransport() throws {
        try reporting {
            let remote = try Remote(global)
            if every.all { return try remote.sendToAll(Self.wireCommand) }
            try remote.sendReporting(Self.wireCommand, session: target.session)
        }
    }

    /// The help text every transport verb shares, with its own examples.
    static func help(_ what: String, verb: String) -> ArgumentParser.CommandConfiguration {
        ArgumentParser.CommandConfiguration(
            commandName: verb,
            abstract: "\(what) (command \(wireCommand), through the session's command center).",
            discussion: """
                Success prints nothing, like playerctl; a refusal prints the reason and exits 1.

                Examples:
                  npctl \(verb)            # the Now Playing session
                  npctl \(verb) -s pip     # another session
                  npctl -a \(verb)         # every session that offers \(wireCommand)
                """)
    }
}

struct Play: TransportVerb {
    static let wireCommand = "play"
    static let configuration: ArgumentParser.CommandConfiguration = {
        var c = help("Play", verb: "play")
        c.discussion += "\n  npctl play 3          # play item 3 of an mpv queue (mpc play N; see Jump.swift)"
        return c
    }()
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @OptionGroup var every: AllOption
    @Argument(help: ArgumentHelp("Play item N of the mpv queue, as npctl queue numbers it.", valueName: "n"))
    var item: Int?

    func run() throws {
        guard let item else { return try sendTransport() }
        try jump(to: item)
    }
}

struct Pause: TransportVerb {
    static let wireCommand = "pause"
    static let configuration = help("Pause", verb: "pause")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @OptionGroup var every: AllOption
}

struct PlayPause: TransportVerb {
    static let wireCommand = "togglePlayPause"
    static let configuration: ArgumentParser.CommandConfiguration = {
        var c = help("Toggle play/pause", verb: "play-pause")
        c.aliases = ["toggle"]
        return c
    }()
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @OptionGroup var every: AllOption
}

struct Stop: TransportVerb {
    static let wireCommand = "stop"
    static let configuration = help("Stop", verb: "stop")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @OptionGroup var every: AllOption
}

struct Next: TransportVerb {
    static let wireCommand = "nextTrack"
    static let configuration = help("Next track", verb: "next")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @OptionGroup var every: AllOption
}

struct Previous: TransportVerb {
    static let wireCommand = "previousTrack"
    static let configuration: ArgumentParser.CommandConfiguration = {
        var c = help("Previous track", verb: "previous")
        c.aliases = ["prev"]
        return c
    }()
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @OptionGroup var every: AllOption
}
