import ArgumentParser
import PlayerHost

/// `npctl metadata [KEY…]`: the published info, like `playerctl metadata`.
struct Metadata: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every info key and value, or the values of the given keys (one per line).",
        discussion: "elapsed is computed now. --format takes the same templates as status.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    @Option(name: [.short, .long], help: ArgumentHelp("Template, e.g. '{{artist}} - {{title}}'.", valueName: "template"))
    var format: String?

    @Argument(help: ArgumentHelp("Info keys (title, artist, duration, …).", valueName: "key"))
    var keys: [String] = []

    func run() throws {
        try reporting {
            let template = try format.map(Template.init)
            let s = try Remote(global).requireSnapshot(target)
            if let template { return print(template.render(s)) }
            var info = s.info
            if info["elapsed"] != nil { info["elapsed"] = .double(s.position) }
            if !keys.isEmpty {
                // playerctl fails on a key the player does not have: scripts can tell "empty" from "absent".
                if let missing = keys.first(where: { s.value($0) == nil }) {
                    throw Failure("session \(s.session) has no '\(missing)' (it has: \(s.info.keys.sorted().joined(separator: ", ")))")
                }
                if global.json {
                    return print(JSON.object(Dictionary(uniqueKeysWithValues: keys.map { ($0, s.value($0)!) })).jsonString)
                }
                for k in keys { print(TimeText.text(s.value(k)!)) }
                return
            }
            if global.json { return print(JSONPretty.format(.object(info))) }
            for line in Table.render(info.keys.sorted().map { [$0, TimeText.text(info[$0]!)] }) { print(line) }
        }
    }
}
