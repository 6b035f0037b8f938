// The public API a session plugin builds on, in process or out (`SessionPlugin`, `PluginContext`,
// `PluginRunner`, the client and RPC side, the model's value types, the loop and D-Bus glue, the
// pure MPRIS mapping (the import plugin's), and the config it is reloaded with): re-exported, and
// nothing of the daemon itself (no Host: service, publisher, bridge, methods; no Server). The built-in plugins and examples/swift-plugin depend on this
// product instead of the umbrella `PlayerHost`, so "plugins use the public API only" is held by
// the compiler.
@_exported import PlayerHostBase
@_exported import PlayerHostModel
@_exported import PlayerHostRPC
@_exported import PlayerHostLoop
@_exported import PlayerHostClient
@_exported import PlayerHostMPRIS
@_exported import PlayerHostConfig
@_exported import PlayerHostPlugin
