import ArgumentParser
import PlayerHostModel

extension Daemon {
    /// `npctl daemon reload`: what SIGHUP does, with an answer. A config with an error is not
    /// applied; the error and its line go to stderr and the exit status is 1.
    struct Reload: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reload",
            abstract: "Re-read the daemon's configuration file (as SIGHUP does); exit 1 with the error and its line if it has one.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            try reporting {
                let r = try global.call("host.reload")
                if global.json {
                    print(r.jsonString)
                    return
                }
                func list(_ key: String) -> String {
                    let names = (r[key]?.arrayValue ?? []).compactMap(\.stringValue)
                    return names.isEmpty ? "-" : names.joined(separator: ", ")
                }
                print("configuration reloaded")
                print("sessions added: \(list("sessionsAdded")); removed: \(list("sessionsRemoved"))")
                print("settings changed: \(list("settingsChanged"))")
                print("plugins started: \(list("pluginsStarted")); stopped: \(list("pluginsStopped"))")
            }
        }
    }
}
