// The `PlayerHost` library: every layer, re-exported, so plugins, the daemon, examples and tests
// keep writing `import PlayerHost`. The layers themselves are separate targets (Package.swift) so
// the compiler holds their dependency rules; see README's "Layout".
@_exported import PlayerHostBase
@_exported import PlayerHostModel
@_exported import PlayerHostRPC
@_exported import PlayerHostLoop
@_exported import PlayerHostClient
@_exported import PlayerHostServer
@_exported import PlayerHostMPRIS
@_exported import PlayerHostConfig
@_exported import PlayerHostPlugin
@_exported import PlayerHostHost
@_exported import PlayerHostRemote
