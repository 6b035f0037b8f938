import ArgumentParser
import PlayerHost

/// A transport verb: one remote command sent through `command.send`, so it goes through the
/// session's command center exactly like a media key would (enabled + targeted, handlers in
/// order, first non-success status wins) rather than poking the player directly.
/// Success prints nothing, like playerctl; any other status is printed and exits 1.
protocol TransportVerb: ParsableCommand {
    static var wireCommand: String { get }
    var global: GlobalOptions { get }
    var target: SessionOption { get }
}

extension TransportVerb {
    func run() throws {
        try reporting { try Remote(global).sendReporting(Self.wireCommand, session: target.session) }
    }
}

struct Play: TransportVerb {
    static let configuration = CommandConfiguration(abstract: "Play (command play).")
    static let wireCommand = "play"
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
}

struct Pause: TransportVerb {
    static let configuration = CommandConfiguration(abstract: "Pause (command pause).")
    static let wireCommand = "pause"
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
}

struct PlayPause: TransportVerb {
    static let configuration = CommandConfiguration(commandName: "play-pause", abstract: "Toggle play/pause (command togglePlayPause).")
    static let wireCommand = "togglePlayPause"
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
}

struct Stop: TransportVerb {
    static let configuration = CommandConfiguration(abstract: "Stop (command stop).")
    static let wireCommand = "stop"
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
}

struct Next: TransportVerb {
    static let configuration = CommandConfiguration(abstract: "Next track (command nextTrack).")
    static let wireCommand = "nextTrack"
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
}

struct Previous: TransportVerb {
    static let configuration = CommandConfiguration(abstract: "Previous track (command previousTrack).")
    static let wireCommand = "previousTrack"
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
}
