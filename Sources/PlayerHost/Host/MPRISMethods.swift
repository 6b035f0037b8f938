import PlayerHostBase
import PlayerHostRPC

/// `mpris.get`: the value the MPRIS export shows (the session `playerctl -p playerhost` reads),
/// so npctl's `playerhost` is the same player as the desktop's, whatever `[mpris] export` says.
enum MPRISMethods {
    /// `bridge`: the daemon's MPRIS export, once made.
    static func all(core host: HostCore, bridge: @escaping () -> MPRISBridge?) -> [RPCMethod] {
        [
            .sync("mpris.get", summary: "What the MPRIS export `playerhost` shows ([mpris] export: the host's own session that is Now Playing or was most recently, or whatever is Now Playing), elapsed computed for now; null when it shows nothing. Answered without a session bus too.",
                  params: [ModelParams.language], result: .object,
                  resultSummary: "{session, info, playbackState, timestamp, volume, muted} or null") { [weak host] call throws(RPCError) in
                guard let host else { throw RPCError(.shuttingDown, "the host is shutting down") }
                let lang = try call.params.optionalString("lang")
                // Before the bridge exists (start-up): the Now Playing value, as the bridge would.
                return bridge()?.shownJSON(language: lang) ?? host.nowPlaying.publisher.nowPlayingJSON(language: lang)
            },
        ]
    }
}
