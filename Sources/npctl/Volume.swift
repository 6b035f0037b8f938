import ArgumentParser
import PlayerHostBase
import PlayerHostClient

/// `npctl volume [LEVEL]`: playerctl's verb. The daemon has no volume yet: its MPRIS export
/// shows `Volume` fixed at 1.0 and ignores writes, and npctl says the same.
struct Volume: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "volume",
        abstract: "Print or set the volume (0.0–1.0), as playerctl; fixed at 1.0 until the daemon has one.",
        discussion: """
            Until the daemon has a volume, this says what playerctl says of the exported \
            player: 1.000000, and setting it changes nothing.

            Examples:
              npctl volume
              npctl volume 0.5
              npctl volume 0.1+
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("LEVEL, LEVEL+ or LEVEL-.", valueName: "level"),
              completion: .list(["0.0", "0.25", "0.5", "0.75", "1.0", "0.1+", "0.1-"])) var level: String?

    func run() throws {
        try reporting {
            if let level {
                if playerctlOptions.format != nil { PlayerctlFailure.command("format strings are not supported on command functions.").report() }
                let number = level.hasSuffix("+") || level.hasSuffix("-") ? String(level.dropLast()) : level
                if Double(number) == nil { PlayerctlFailure.command("could not parse volume as a number: \(level)").report() }
            }
            let template = try playerctlOptions.format.map(parseTemplate)
            if playerctlOptions.follow, level == nil {
                try global.refuseJSONWithFormat()
                return try Follower(global: global, target: target, line: { raw, now in
                    guard let raw else { return nil }
                    guard let template else { return CFormat.format("%f", PlayerctlView.volume) }
                    let view = PlayerctlView(raw: raw, language: global.language)
                    return template.render(view.context(player: target.followed.name, instance: target.followed.instance, withMetadata: false, at: now))
                }).run()
            }
            try PlayerctlRunner.run(global, target, verb: "volume", supportsFormat: true) { player in
                if level != nil { return .handled(nil) }
                if let template { return .handled(try template.expand(player.context(metadata: false)) + "\n") }
                return .handled(CFormat.format("%f", PlayerctlView.volume) + "\n")
            }
        }
    }
}
