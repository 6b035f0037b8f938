import ArgumentParser
import PlayerHostBase
import PlayerHostModel
import PlayerHostRPC

/// `npctl sessions`: every session as a table; `*` marks the Now Playing one.
struct Sessions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List sessions: id, kind, app, active, state, can-become-active (* = Now Playing).",
        discussion: """
            Examples:
              npctl sessions
              npctl --json sessions
            """)
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reporting {
            let list = try HostLink(global).call("session.list")
            if global.json { return print(JSONPretty.format(list)) }
            func yesNo(_ v: JSON?) -> String { v == true ? "yes" : "no" }
            var rows = [["", "ID", "KIND", "APP", "ACTIVE", "STATE", "CAN-BECOME-ACTIVE"]]
            for s in list.arrayValue ?? [] {
                rows.append([s["isNowPlaying"] == true ? "*" : "", s["id"]?.stringValue ?? "?", s["kind"]?.stringValue ?? "?",
                             appLabel(s), yesNo(s["isActive"]), s["playbackState"]?.stringValue ?? "?",
                             yesNo(s["canBecomeActive"])])
            }
            if rows.count == 1 { return print("no sessions") }
            for line in Table.render(rows) { print(line) }
        }
    }
}

/// The app of a session or report as a person knows it: its id, and the name it gave when that
/// says more (an imported player's Identity: `fake-player (Fake Player)`).
func appLabel(_ s: JSON) -> String {
    let id = s["app"]?.stringValue ?? "?"
    guard let name = s["appName"]?.stringValue, name != id else { return id }
    return "\(id) (\(name))"
}
