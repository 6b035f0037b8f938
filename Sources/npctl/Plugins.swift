import ArgumentParser
import PlayerHostBase
import PlayerHostModel
import PlayerHostRPC

/// `npctl plugins`: every plugin the daemon runs (`plugin.list`): built-ins and supervised
/// executables, with their state, pid, restart count and how the last run ended.
struct PluginList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List plugins: name, kind (builtin or process), state, pid, restarts, last exit or error.",
        discussion: """
            States: running, starting, backoff (waiting to restart), failed (stopped after \
            the start limit), stopped. Plugins are executables in the plugin directory \
            ($XDG_CONFIG_HOME/playerhost/plugins or the config's plugin_dir) or named in the \
            config with [[plugin]] path = "…".

            Examples:
              npctl plugins
              npctl --json plugins
            """)
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reporting {
            let list = try HostLink(global).call("plugin.list")
            if global.json { return print(JSONPretty.format(list)) }
            var rows = [["NAME", "KIND", "STATE", "PID", "RESTARTS", "LAST"]]
            for p in list.arrayValue ?? [] {
                rows.append([p["name"]?.stringValue ?? "?", p["kind"]?.stringValue ?? "?", p["state"]?.stringValue ?? "?",
                             p["pid"]?.intValue.map { "\($0)" } ?? "-", p["restarts"]?.intValue.map { "\($0)" } ?? "-",
                             Self.last(p)])
            }
            if rows.count == 1 { return print("no plugins") }
            for line in Table.render(rows) { print(line) }
        }
    }

    /// The error if there is one, else how the last run ended, else `-`.
    static func last(_ p: JSON) -> String {
        if let error = p["error"]?.stringValue { return "error: " + error }
        guard let exit = p["lastExit"] else { return "-" }
        if let signal = exit["signal"]?.intValue, signal != 0 { return "killed by signal \(signal)" }
        return "exited \(exit["status"]?.intValue ?? 0)"
    }
}
