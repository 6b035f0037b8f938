import PlayerHostBase
import PlayerHostConfig
import PlayerHostModel
import PlayerHostRPC

/// The arbiter's methods: `nowPlaying.get`, `arbiter.explain` and `arbiter.doctor` read its choice;
/// `arbiter.pin` and `arbiter.unpin` set the user's pinned player (issue 23, player selection).
///
/// A pinned player is Now Playing whenever it is eligible, paused or playing: npctl's default
/// target, the web remote's, and what the export shows. The pin is a name, as `npctl -p` names
/// players (a session id, or an imported player's MPRIS name), so it follows the player across
/// its restarts; it is kept in the state file until `arbiter.unpin`.
extension HostMethods {
    static func arbiterMethods(_ np: NowPlayingService) -> [RPCMethod] {
        [
            .sync("nowPlaying.get", summary: "The Now Playing session's info with elapsed computed for now (placeholders guarded); null when empty.",
                  params: [ModelParams.language], result: .object,
                  resultSummary: "{session, info, playbackState, timestamp} or null") { call throws(RPCError) in
                let lang = try call.params.optionalString("lang")
                return np.publisher.nowPlayingJSON(language: lang)
            },
            .sync("arbiter.explain", summary: "For each session (or one): eligible or not and why, active or not and why.",
                  params: [.optional("session", .string, "only this session (default: every session)")],
                  result: .object) { call throws(RPCError) in
                let id = try call.params.optionalString("session")
                return try np.read { m, t in try m.explainJSON(session: id, now: t) }
            },
            .sync("arbiter.doctor", summary: "Diagnostics per session (kind, driver, commands, info keys): faults found and how to fix them.",
                  params: [ModelParams.optionalSession], result: .object) { call throws(RPCError) in
                let id = try call.params.optionalString("session")
                return try np.read { m, t in try m.doctorJSON(session: id, now: t) }
            },
        ]
    }

    static func arbiter(core host: HostCore) -> [RPCMethod] {
        [
            .sync("arbiter.pin",
                  summary: "Pin a player: it stays Now Playing while eligible, paused too, across its restarts, until arbiter.unpin (kept in the state file). The name is a session id or an imported player's MPRIS name (spotify, mpv.instance42), as npctl -p takes.",
                  params: [.required("player", .string, "a session id or an imported player's MPRIS name; it must name a session now")],
                  result: .object, resultSummary: "{pinned, session, nowPlaying}") { [weak host] call throws(RPCError) in
                guard let host else { throw RPCError(.shuttingDown, "the host is shutting down") }
                let name = try call.params.string("player")
                guard !name.isEmpty, name.utf8.count <= ArbiterConfig.maxNameBytes else {
                    throw RPCError(.invalidArgument, "player must be 1 to \(ArbiterConfig.maxNameBytes) bytes", data: ["param": "player"])
                }
                let model = host.nowPlaying.model
                // The oldest session it names, as the model will pick (a typo is refused, not kept).
                guard let session = model.orderedSessions.first(where: { ArbiterPolicy.names(name, $0.id) })?.id else {
                    let known = model.orderedSessions.prefix(20).map(\.id).joined(separator: ", ")
                    throw RPCError(.sessionNotFound, "no player '\(name)' (players: \(known.isEmpty ? "none" : known))",
                                   data: ["param": "player"])
                }
                host.applyArbiter(pinned: name, config: host.config)
                return ["pinned": .string(name), "session": .string(session),
                        "nowPlaying": host.nowPlaying.model.nowPlayingSession.map { .string($0) } ?? .null]
            },
            .sync("arbiter.unpin", summary: "Drop the pin: the arbiter's rules decide again (a paused pinned player keeps the slot until another starts playing after it).",
                  result: .object, resultSummary: "{unpinned: the name that was pinned, or null}") { [weak host] _ throws(RPCError) in
                guard let host else { throw RPCError(.shuttingDown, "the host is shutting down") }
                let was = host.nowPlaying.model.policy.pinned
                host.applyArbiter(pinned: nil, config: host.config)
                return ["unpinned": was.map { .string($0) } ?? .null]
            },
        ]
    }
}
