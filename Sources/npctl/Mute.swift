import ArgumentParser
import PlayerHostBase
import PlayerHostClient

/// `npctl mute [on|off|toggle]`: the session's mute, through command `changeVolume` (`muted`).
/// Muting keeps the level: unmuting brings it back. MPRIS has no mute; the export shows a
/// muted session's `Volume` as 0.
struct Mute: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mute",
        abstract: "Mute, unmute or toggle (the default) the session's volume (command changeVolume).",
        discussion: """
            The level is kept while muted (npctl volume prints 0.000000, as MPRIS shows it); \
            unmuting brings it back, and so does setting a volume. A session that has \
            changeVolume disabled refuses (exit 1). Success prints nothing.

            Examples:
              npctl mute
              npctl mute on
              npctl mute off -p mpv
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("on, off or toggle (default).", valueName: "state"),
              completion: .list(["on", "off", "toggle"])) var state: String?

    func run() throws {
        try reporting {
            if PlayerctlView(raw: .null).muteTarget(state) == nil {
                throw Failure("mute takes on, off or toggle, not '\(state ?? "")'")
            }
            try PlayerctlRunner.run(global, target, verb: "mute", supportsFormat: false) { player in
                let view = try player.view()
                guard let id = view.session, let muted = view.muteTarget(state) else { return .skipped }
                try player.remote.sendReporting("changeVolume", session: id, ["muted": .bool(muted)])
                return .handled(nil)
            }
        }
    }
}
