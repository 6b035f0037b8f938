import Glibc
import PlayerHostPluginAPI

/// Every plugin compiled into playerhostd, in one place. Each speaks the same protocol an
/// out-of-process plugin does (its bytes, on an in-memory connection into the core), so any of
/// them could run as its own process.
public enum BuiltinPlugins {
    public static func all(config: HostConfig) -> [SessionPlugin] {
        // Always there, even with no [[session]]: a reload may add some.
        var list: [SessionPlugin] = [ClockSessionsPlugin(sessions: config.sessions)]
        // Real playback needs the mpv binary; without it the host runs, minus `mpv.open`.
        if let mpv = MPVPlugin.fromEnvironment(config: config.mpv) {
            list.append(mpv)
        } else {
            let line = "playerhostd: mpv not found in PATH (or PLAYERHOST_MPV=off): mpv sessions (npctl open) are unavailable\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
        }
        // Every desktop MPRIS player as a session, when there is a session bus to watch.
        if config.mpris?.importPlayers ?? true,
           let address = DBusConnection.sessionBusAddress(environment: SocketLocation.currentEnvironment()) {
            list.append(MPRISImportPlugin(options: MPRISImportOptions(
                address: address, interruptImported: config.mpris?.interruptImported ?? true,
                ignore: config.mpris?.ignore ?? [])))
        }
        return list
    }
}
