import ArgumentParser
import PlayerHostBase
import PlayerHostClient

/// `npctl volume [LEVEL | LEVEL+ | LEVEL-]`: playerctl's verb, on the session's volume.
///
/// Reading prints the export's `Volume` (`%f`: what is heard, 0 while muted). Setting goes
/// through command `changeVolume` like every other verb, as the export's `Volume` write does:
/// the level (relative ones from the current `Volume`) clamped to [0, `maximumVolume`], and
/// unmuted. Like playerctl, a player that then refuses still exits 0 (the reason on stderr).
struct Volume: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "volume",
        abstract: "Print or set the volume (0.0–1.0, as playerctl; up to the session's maximumVolume).",
        discussion: """
            Prints the volume as playerctl does (0.000000 while muted). LEVEL sets it, LEVEL+ \
            and LEVEL- change it from the current one; either way within 0 and the session's \
            maximumVolume (1 unless its player amplifies, as mpv does), and unmuted. Setting \
            goes through command changeVolume. --json prints {session, volume, muted}.

            Examples:
              npctl volume
              npctl volume 0.5
              npctl volume 0.1+
              npctl -p mpv volume 0.05-
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("LEVEL, LEVEL+ or LEVEL-.", valueName: "level"),
              completion: .list(["0.0", "0.25", "0.5", "0.75", "1.0", "0.1+", "0.1-"])) var level: String?

    func run() throws {
        try reporting {
            if let level {
                if playerctlOptions.format != nil { PlayerctlFailure.command("format strings are not supported on command functions.").report() }
                if PlayerctlView(raw: .null).volumeTarget(level) == nil {
                    PlayerctlFailure.command("could not parse volume as a number: \(level)").report()
                }
            }
            let template = try playerctlOptions.format.map(parseTemplate)
            if playerctlOptions.follow, level == nil {
                try global.refuseJSONWithFormat()
                return try Follower(global: global, target: target, verb: "volume", template: template, line: { player, now in
                    let view = player.view
                    guard let template else { return CFormat.format("%f", view.volume) }
                    return template.render(view.context(player: player.target.name, instance: player.target.instance, withMetadata: false, at: now))
                }).run()
            }
            try PlayerctlRunner.run(global, target, verb: "volume", supportsFormat: true) { player in
                let view = try player.view(commands: true)
                if let level {
                    // Nothing Now Playing: the export takes the write and does nothing; so does npctl.
                    guard let id = view.session, let wanted = view.volumeTarget(level) else { return .handled(nil) }
                    try player.remote.sendReporting("changeVolume", session: id, ["volume": .double(wanted), "muted": false],
                                                    asPlayerctl: true)
                    return .handled(nil)
                }
                if global.json {
                    let o: JSON = ["session": view.session.map { .string($0) } ?? .null, "volume": .double(view.level),
                                   "muted": .bool(view.muted)]
                    return .handled(o.jsonString + "\n")
                }
                if let template { return .handled(try template.expand(player.context(metadata: false)) + "\n") }
                return .handled(CFormat.format("%f", view.volume) + "\n")
            }
        }
    }
}
