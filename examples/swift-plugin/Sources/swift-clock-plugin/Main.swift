import PlayerHostPluginAPI

/// Connects to the daemon (`--socket PATH`, `$PLAYERHOST_SOCKET` or the default socket), says
/// hello as `swift-clock`, attaches the plugin, and reconnects with backoff if the daemon goes
/// away. SIGTERM ends it cleanly.
@main
struct Main {
    static func main() {
        PluginRunner(plugin: ClockPlugin()).run()
    }
}
