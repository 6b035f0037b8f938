import PlayerHostBase
import PlayerHostRPC

/// `plugin.saveState` and `plugin.savedState`: a plugin's own part of the state file.
///
/// The host keeps its own sessions across a restart (`StateStore`); a plugin's sessions go with
/// the plugin, and only the plugin knows what it needs to bring them back (the mpv plugin: each
/// session's files, item, position and options). So a plugin hands the host one JSON value,
/// replaced at each call, which the host writes in the state file's `plugins` section under the
/// plugin's app name (`host.hello`) and gives back after a restart, with the instant the file
/// was written (a plugin extrapolates what was playing up to it). The host never reads inside.
extension HostMethods {
    /// Bytes of one plugin's state, serialized.
    static let maxPluginStateBytes = 1 << 19
    /// Apps with a kept state (the file holds them until their plugin clears them).
    static let maxPluginStates = 64

    /// `store`: the daemon's state store (nil: none, the host is shutting down).
    static func pluginState(store: @escaping () -> StateStore?) -> [RPCMethod] {
        [
            .sync("plugin.saveState",
                  summary: "Keep this plugin's state across restarts (by its app name; replaces what it kept; null clears). Written with the state file; given back by plugin.savedState.",
                  params: [.optional("state", .any, "any JSON value, at most 512 KiB serialized; null (or absent) clears")],
                  result: .boolean, resultSummary: "true") { call throws(RPCError) in
                guard let store = store() else { throw RPCError(.shuttingDown, "the host is shutting down") }
                let name = try appName(call)
                let state = call.params.values["state"] ?? .null
                if state.isNull {
                    store.setPluginState(name, nil)
                    return true
                }
                let size = state.serialized().count
                guard size <= maxPluginStateBytes else {
                    throw .limitExceeded("a plugin state of \(size) bytes", limit: maxPluginStateBytes, actual: size)
                }
                guard store.pluginStates[name] != nil || store.pluginStates.count < maxPluginStates else {
                    throw .limitExceeded("plugin states kept for \(store.pluginStates.count) apps", limit: maxPluginStates)
                }
                store.setPluginState(name, state)
                return true
            },
            .sync("plugin.savedState",
                  summary: "What this plugin (by its app name) kept with plugin.saveState, as loaded at the host's start or saved since.",
                  result: .object, resultSummary: "{state (null if none), savedAt (wall-clock seconds the file was written, or null)}") {
                call throws(RPCError) in
                guard let store = store() else { throw RPCError(.shuttingDown, "the host is shutting down") }
                let name = try appName(call)
                return ["state": store.pluginStates[name] ?? .null, "savedAt": store.loadedSavedAt.map(JSON.double) ?? .null]
            },
        ]
    }

    /// A plugin's state is kept under its app name: a connection that has not said `host.hello`
    /// has none.
    private static func appName(_ call: RPCCall) throws(RPCError) -> String {
        guard let name = call.connection.client.appName else {
            throw RPCError(.invalidState, "say host.hello first: a plugin's state is kept under its app name")
        }
        return name
    }
}
