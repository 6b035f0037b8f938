import ArgumentParser
import Glibc
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel
import PlayerHostRPC

/// `npctl now` (and `npctl` alone): the one-line summary of what the Now Playing (or
/// `--session`) session shows, its position computed now. (`status` is playerctl's word.)
struct Now: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "now",
        abstract: "Show the Now Playing session: state, artist — title, position/duration, [session].",
        discussion: """
            Example output:
              Playing: U2 — Magnificent  1:23/5:24  [main]

            --format takes playerctl's templates (see npctl metadata --help), with the \
            metadata in the context.

            Localized titles are shown in --lang, else the language of LC_ALL, LC_MESSAGES or \
            LANG, else their und value.

            --follow prints a line now and on every change until Ctrl-C (exit 0); it waits \
            for the daemon when it restarts and goes on.

            Examples:
              npctl now
              npctl
              npctl --session pip --json now
              npctl now --lang es
              npctl now --format '{{artist}} - {{title}} {{duration(position)}}'
              npctl -a now
              npctl now --follow
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    func run() throws {
        try reporting {
            try global.refuseJSONWithFormat()
            let template = try playerctlOptions.format.map(parseTemplate)
            if playerctlOptions.follow {
                return try Follower(global: global, target: target, verb: "now", template: template, line: { player, _ in
                    line(player.raw.isNull ? nil : InfoSnapshot(player.raw, language: global.language), player.raw, template, player.target)
                }).run()
            }
            let remote = try HostLink(global)
            if playerctlOptions.allPlayers || playerctlOptions.allSessions {
                for id in try remote.sessionIDs() {
                    let raw = try remote.call("info.get", ["session": .string(id)])
                    print(global.json ? raw.jsonString : line(InfoSnapshot(raw, language: global.language), raw, template))
                }
                return
            }
            let raw = try remote.rawSnapshot(target)
            if global.json { return print(JSONPretty.format(raw)) }
            guard !raw.isNull else { throw Failure(HostLink.nothingPlaying) }
            print(line(InfoSnapshot(raw, language: global.language), raw, template))
        }
    }

    /// The text for one value (nil: nothing is Now Playing).
    private func line(_ snapshot: InfoSnapshot?, _ raw: JSON?, _ template: FormatTemplate?, _ player: PlayerTarget? = nil) -> String {
        guard let snapshot, let raw else { return template == nil ? "Nothing is Now Playing" : "" }
        guard let template else { return snapshot.statusLine }
        let view = PlayerctlView(raw: raw, language: global.language)
        let player = player ?? target.followed
        return template.render(view.context(player: player.name, instance: player.instance, withMetadata: true, at: InfoSnapshot.hostNow()))
    }
}

/// `--format` parsed up front; a bad template fails as playerctl's does (its line, exit 1).
func parseTemplate(_ source: String) throws -> FormatTemplate {
    do throws(TemplateError) { return try FormatTemplate(source) } catch {
        PlayerctlFailure.command(error.message).report()
    }
}
