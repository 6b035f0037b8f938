import ArgumentParser
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel
import PlayerHostRPC

/// `npctl metadata [KEY…]`: the published info, like `playerctl metadata`.
struct Metadata: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metadata",
        abstract: "Print every info key and value, or the values of the given keys (one per line).",
        discussion: """
            Keys are PlayerHost's (title, artist, albumTitle, duration, …) or playerctl's \
            (xesam:title, xesam:artist, xesam:album, mpris:length in microseconds, …). \
            elapsed is computed now. Localized values are read in --lang (default: from the \
            locale, then und). --format takes the same templates as status.

            Examples:
              npctl metadata
              npctl metadata title artist
              npctl metadata xesam:title
              npctl metadata --format '{{xesam:artist}} - {{xesam:title}} {{duration(mpris:length)}}'
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    @Option(name: [.short, .long], help: ArgumentHelp("Template, e.g. '{{artist}} - {{title}}'.", valueName: "template"))
    var format: String?

    @Argument(help: ArgumentHelp("Info keys (title, artist, duration, xesam:title, …).", valueName: "key"))
    var keys: [String] = []

    func run() throws {
        try reporting {
            let template = try format.map(parseTemplate)
            let s = try Remote(global).requireSnapshot(target)
            if let template { return print(template.render(s)) }
            var info = s.info
            if info["elapsed"] != nil { info["elapsed"] = .double(s.position) }
            if !keys.isEmpty {
                // playerctl fails on a key the player does not have: scripts can tell "empty" from "absent".
                let values = keys.map { s.value($0) }
                if let missing = zip(keys, values).first(where: { $0.1 == nil })?.0 {
                    throw Failure("session \(s.session) has no '\(missing)' (it has: \(s.info.keys.sorted().joined(separator: ", ")))")
                }
                let found = values.compactMap { $0 }
                if global.json {
                    return print(JSON.object(Dictionary(zip(keys, found), uniquingKeysWith: { a, _ in a })).jsonString)
                }
                for v in found { print(TimeText.text(v)) }
                return
            }
            if global.json { return print(JSONPretty.format(.object(info))) }
            for line in Table.render(info.keys.sorted().map { [$0, TimeText.text(info[$0] ?? .null)] }) { print(line) }
        }
    }
}
