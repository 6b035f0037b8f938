import ArgumentParser
import Glibc
import PlayerHostClient
import PlayerHostModel
import PlayerHostRPC

/// `npctl status`: what the Now Playing (or `-s`) session shows, its position computed now.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the Now Playing session: state, artist — title, position/duration, [session].",
        discussion: """
            Example output:
              Playing: U2 — Magnificent  1:23/5:24  [main]

            --format takes playerctl's templates. Keys: status, position and duration \
            (seconds), session, any info key (artist, title, albumTitle, …), and playerctl's \
            names: xesam:title, xesam:artist, xesam:album, album, mpris:length (microseconds), \
            playerName. Helpers: duration(x) (m:ss or h:mm:ss), lc(x), uc(x), \
            markup_escape(x), default(x, "fallback"), emoji(status).

            Localized titles are shown in --lang, else the language of LC_ALL, LC_MESSAGES or \
            LANG, else their und value.

            --follow prints a line now and on every change until Ctrl-C (exit 0); it waits \
            for the daemon when it restarts and goes on.

            Examples:
              npctl status
              npctl -s pip --json status
              npctl status --lang es
              npctl status --format '{{xesam:artist}} - {{xesam:title}} {{duration(position)}}'
              npctl -a status
              npctl status --follow
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @OptionGroup var every: AllOption

    @Option(name: [.short, .long], help: ArgumentHelp("Template, e.g. '{{artist}} - {{title}}'.", valueName: "template"))
    var format: String?

    @Flag(name: [.customShort("F"), .long], help: "Keep printing a line on every change until interrupted.")
    var follow = false

    func run() throws {
        try reporting {
            let template = try format.map(parseTemplate)
            if follow { return try Follower(global: global, target: target, line: { line($0, template) }).run() }
            let remote = try Remote(global)
            if every.all {
                for id in try remote.sessionIDs() {
                    let raw = try remote.call("info.get", ["session": .string(id)])
                    print(global.json ? raw.jsonString : line(InfoSnapshot(raw, language: global.language), template))
                }
                return
            }
            let raw = try remote.rawSnapshot(target)
            if global.json { return print(JSONPretty.format(raw)) }
            guard !raw.isNull else { throw Failure(Remote.nothingPlaying) }
            print(line(InfoSnapshot(raw, language: global.language), template))
        }
    }

    /// The text for one value (nil: nothing is Now Playing).
    private func line(_ snapshot: InfoSnapshot?, _ template: FormatTemplate?) -> String {
        guard let snapshot else { return template == nil ? "Nothing is Now Playing" : "" }
        return template?.render(snapshot) ?? snapshot.statusLine
    }
}

/// `--format` parsed up front; a bad template is a usage error (exit 2).
func parseTemplate(_ source: String) throws -> FormatTemplate {
    do throws(TemplateError) { return try FormatTemplate(source) } catch {
        throw Failure("--format: \(error.message)", code: 2)
    }
}
