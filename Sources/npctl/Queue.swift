import ArgumentParser
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel

/// `npctl queue`: the player's items, the current one marked — like `mpc playlist`.
struct Queue: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "List the queue of the session's players: position, artist — title, duration; > marks the current item.",
        discussion: """
            A multi-view session lists each of its players under its own heading.

            Examples:
              npctl queue
              npctl queue --session race
              npctl --json queue
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    func run() throws {
        try reporting {
            let remote = try HostLink(global)
            let id = try remote.resolve(target)
            let count = try remote.call("session.get", ["session": .string(id)])["players"]?.arrayValue?.count ?? 0
            // Replies carry only the current item: the queue is read page by page, in play order.
            let players = try (0..<count).map { n -> JSON in
                var p = try remote.call("player.get", ["session": .string(id), "player": .int(Int64(n))])
                var items: [JSON] = []
                while true {
                    let page = try remote.call("player.queue", ["session": .string(id), "player": .int(Int64(n)),
                                                                "offset": .int(Int64(items.count)), "limit": 500])
                    let got = page["items"]?.arrayValue ?? []
                    items += got
                    if got.isEmpty || items.count >= page["count"]?.intValue ?? 0 { break }
                }
                if case .object(var o) = p { o["items"] = .array(items); p = .object(o) }
                return p
            }
            if global.json {
                return print(JSON.array(players.map { ["player": $0["id"] ?? .null, "index": $0["queueIndex"] ?? .null,
                                                       "items": $0["items"] ?? []] }).jsonString)
            }
            if players.isEmpty { return print("\(id) has no players") }
            for (n, p) in players.enumerated() {
                if count > 1 { print((n == 0 ? "" : "\n") + "player \(p["id"]?.stringValue ?? "\(n)"):") }
                for line in Self.lines(p, language: global.language) { print(line) }
            }
        }
    }

    /// `> 1. U2 — Magnificent  5:24`, one per item.
    static func lines(_ player: JSON, language: String?) -> [String] {
        let items = player["items"]?.arrayValue ?? []
        if items.isEmpty { return ["  (empty)"] }
        let current = player["queueIndex"]?.intValue  // items are in play order
        return items.enumerated().map { i, item in
            func text(_ key: String) -> String? { item[key].flatMap(LocalizedString.init(json:))?.resolved(for: language) }
            var what = text("title") ?? "(no title)"
            if let artist = text("artist"), !artist.isEmpty { what = artist + " — " + what }
            let time = item["duration"]?.doubleValue.map { "  " + TimeText.format($0) } ?? ""
            return "\(i == current ? ">" : " ") \(i + 1). \(what)\(time)"
        }
    }
}
