import ArgumentParser
import PlayerHostClient

/// `npctl volume [LEVEL]`: playerctl's verb. The daemon has no volume yet (its MPRIS export
/// has no `Volume`), so, like `playerctl volume` on that player, no player can handle it.
struct Volume: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "volume",
        abstract: "Print or set the volume (0.0–1.0), as playerctl; not supported by the daemon yet.",
        discussion: """
            Until the daemon has a volume, this says what playerctl says of the exported \
            player: No player could handle this command (exit 1).

            Examples:
              npctl volume
              npctl volume 0.5
              npctl volume 0.1+
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("LEVEL, LEVEL+ or LEVEL-.", valueName: "level")) var level: String?

    func run() throws {
        try reporting {
            if let level {
                if playerctlOptions.format != nil { PlayerctlFailure.command("format strings are not supported on command functions.").report() }
                let number = level.hasSuffix("+") || level.hasSuffix("-") ? String(level.dropLast()) : level
                if Double(number) == nil { PlayerctlFailure.command("could not parse volume as a number: \(level)").report() }
            }
            try PlayerctlRunner.run(global, target, verb: "volume", supportsFormat: true) { _ in .skipped }
        }
    }
}
