import PlayerHostConfig

/// A session plugin: code that creates sessions, loads their players, handles their commands and
/// publishes their info — through the same protocol every client uses, so the same plugin runs
/// compiled into the daemon (`Sources/Plugins`) or as its own process (`PluginRunner`).
///
/// `attach` is called on the loop once the plugin's connection is up (after `host.hello`, unless
/// `actsForHost`); `detach` when it goes away (the daemon stops, or restarts and the runner
/// reconnects — `attach` then runs again on a fresh context, as the plugin's sessions went with
/// the old connection).
public protocol SessionPlugin: AnyObject {
    /// The plugin's name; its app name unless it acts for the host.
    var name: String { get }
    /// True for built-ins that set up the host's own sessions (they never say `host.hello`, so
    /// what they create belongs to the host and outlives them).
    var actsForHost: Bool { get }
    func attach(_ context: PluginContext)
    func detach()
    /// The host re-read its configuration (SIGHUP, `host.reload`); built-ins apply their part.
    func reload(_ config: HostConfig)
}

extension SessionPlugin {
    public var actsForHost: Bool { false }
    public func detach() {}
    public func reload(_ config: HostConfig) {}
}
