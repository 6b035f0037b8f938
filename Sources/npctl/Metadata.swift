import ArgumentParser
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel
import PlayerHostRPC

/// `npctl metadata [KEY…]`: playerctl's — the table, one key's value, or a `--format` line.
struct Metadata: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metadata",
        abstract: "Print the track's metadata as playerctl does: a table, a key's value, or --format.",
        discussion: """
            Without a key: `PLAYER KEY VALUE` rows (mpris:trackid, mpris:length in µs, \
            xesam:title, xesam:artist, …). KEY may be artist, title, album or any metadata \
            key, and npctl's info keys (albumTitle, elapsed, …). With several keys, playerctl \
            prints only the last; so does npctl. --json prints every info key.

            Templates (--format) are playerctl's: {{variable}}, "strings", numbers, \
            + - * /, and lc(x) uc(x) duration(x) markup_escape(x) default(x, y) \
            emoji(status|volume) trunc(x, n). Variables: the metadata keys, artist, album, \
            title, playerName, playerInstance, status, loop, shuffle, volume, position (µs), \
            and npctl's (session, albumTitle, …).

            Examples:
              npctl metadata
              npctl metadata title
              npctl metadata xesam:album
              npctl metadata --format '{{artist}} - {{title}} {{duration(position)}}/{{duration(mpris:length)}}'
              npctl metadata --follow --format '{{markup_escape(title)}}'
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    @Argument(help: ArgumentHelp("Metadata keys (artist, title, album, xesam:…, mpris:…).", valueName: "key"))
    var keys: [String] = []

    func run() throws {
        try reporting {
            let o = playerctlOptions
            try global.refuseJSONWithFormat()
            let template = try o.format.map(parseTemplate)
            if o.follow {
                // playerctl skips a player that cannot play (its commands say), as without --follow.
                return try Follower(global: global, target: target, verb: "metadata", template: template, withCommands: true, line: { player, now in
                    let view = player.view
                    guard view.canPlay || target.named != nil else { return nil }
                    if let template {
                        if view.metadata.isEmpty { return nil }
                        return template.render(view.context(player: player.target.name, instance: player.target.instance, withMetadata: true, at: now))
                    }
                    guard !keys.isEmpty else { return view.metadataTable(player: player.target.name) }
                    // The last key's value, and nothing when any key is missing (as without --follow).
                    var last: String?
                    for key in keys {
                        guard let v = view.metadataValue(key, at: now) else { return nil }
                        last = v
                    }
                    return last
                }).run()
            }
            if global.json { return try printJSON() }
            try PlayerctlRunner.run(global, target, verb: "metadata", supportsFormat: true) { player in
                let view = try player.view(commands: true)
                // playerctl skips a player that cannot play; a session named with --session is
                // asked for on purpose, so it answers anyway.
                guard view.canPlay || target.named != nil else { return .skipped }
                let now = InfoSnapshot.hostNow()
                if let template {
                    if view.metadata.isEmpty { return .skipped }
                    return .handled(try template.expand(player.context(metadata: true)) + "\n")
                }
                guard !keys.isEmpty else { return view.metadataTable(player: player.target.name).map { .handled($0 + "\n") } ?? .skipped }
                // playerctl prints only the last key's value, and nothing if any key is missing.
                var last: String?
                for key in keys {
                    guard let v = view.metadataValue(key, at: now) else { return .skipped }
                    last = v
                }
                return .handled(last.map { $0 + "\n" })
            }
        }
    }

    /// `--json`: npctl's info (every key, or the keys asked), `elapsed` computed now.
    private func printJSON() throws {
        let s = try HostLink(global).requireSnapshot(target)
        var info = s.info
        if info["elapsed"] != nil { info["elapsed"] = .double(s.position) }
        guard !keys.isEmpty else { return print(JSONPretty.format(.object(info))) }
        var found: [String: JSON] = [:]
        for k in keys {
            guard let v = s.value(k) else { throw Failure("session \(s.session) has no '\(k)' (it has: \(s.info.keys.sorted().joined(separator: ", ")))") }
            found[k] = v
        }
        print(JSON.object(found).jsonString)
    }
}
