import ArgumentParser
import Glibc
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel
import PlayerHostRPC

/// `npctl status`: playerctl's — `Playing`, `Paused` or `Stopped` (or a `--format` line).
/// The one-line summary is `npctl now`.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print the playback status: Playing, Paused or Stopped (as playerctl).",
        discussion: """
            With --format, the template is filled from the player (status, loop, shuffle, \
            position in µs, playerName, …). --follow prints a line now and on each status \
            change (and each change of what the template names) until Ctrl-C, waiting for \
            the daemon when it is not running; with -a or several players, the line of the \
            one that changed last (as playerctl). The one-line summary of the old `status` \
            is `npctl now`.

            Examples:
              npctl status
              npctl -p mpv status
              npctl status --format '{{emoji(status)}} {{playerName}}'
              npctl -a status
              npctl status --follow
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    func run() throws {
        try reporting {
            try global.refuseJSONWithFormat()
            let template = try playerctlOptions.format.map(parseTemplate)
            if playerctlOptions.follow {
                return try Follower(global: global, target: target, verb: "status", template: template, line: { player, now in
                    let view = player.view
                    guard let template else { return view.status }
                    return template.render(view.context(player: player.target.name, instance: player.target.instance, withMetadata: false, at: now))
                }).run()
            }
            if global.json {
                let raw = try HostLink(global).rawSnapshot(target)
                return print(JSONPretty.format(raw))
            }
            try PlayerctlRunner.run(global, target, verb: "status", supportsFormat: true) { player in
                guard let template else { return .handled(try player.view().status + "\n") }
                return .handled(try template.expand(player.context(metadata: false)) + "\n")
            }
        }
    }
}
