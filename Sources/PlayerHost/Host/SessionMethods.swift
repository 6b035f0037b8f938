import PlayerHostModel
import PlayerHostRPC

extension HostMethods {
    static func sessionMethods(_ np: NowPlayingService) -> [RPCMethod] {
        typealias P = ModelParams
        return [
            .sync("session.create", summary: "Create a session (kind main, pip, multiview or a plugin kind) with its players.",
                  params: [.optional("id", .string, "unique id (default: from the kind)"),
                           .required("kind", .string, "main, pip, multiview or a plugin kind"),
                           .optional("players", .integer, "player count (default 1; 4 for multiview)"),
                           .optional("automaticallyPublishes", .boolean, "publish info from the players (default true)"),
                           .optional("backgroundAudio", .boolean, "outlive the owning app (default false)"),
                           .optional("driver", .string, "clock (default: the host plays the queue) or external (a backend reports with player.sync)")],
                  result: .object, resultSummary: "the session") { call throws(RPCError) in
                let p = call.params
                let kindName = try p.string("kind")
                let kind = try P.wrap { try SessionKind(kindName) }
                let players = try p.optionalInt("players")
                let driver = try P.wireEnum(PlayerDriver.self, p, "driver") ?? .clock
                let session = try np.perform { m, t in
                    try m.createSession(
                        id: try p.optionalString("id"), kind: kind, playerCount: players,
                        automaticallyPublishes: try p.optionalBool("automaticallyPublishes") ?? true,
                        backgroundAudio: try p.optionalBool("backgroundAudio") ?? false, driver: driver,
                        caller: P.caller(call), now: t)
                }
                return try np.read { m, t in try m.sessionJSON(session.id, now: t) }
            },
            .sync("session.list", summary: "Every session: id, kind, app, isActive, canBecomeActive, playbackState.",
                  result: .array) { _ throws(RPCError) in
                try np.read { m, _ in m.sessionListJSON() }
            },
            .sync("session.get", summary: "One session in full: players, commands, audio, info, eligibility.",
                  params: [P.session], result: .object) { call throws(RPCError) in
                let id = try call.params.string("session")
                return try np.read { m, t in try m.sessionJSON(id, now: t) }
            },
            .sync("session.close", summary: "Close a session; the Now Playing slot passes on if it held it.",
                  params: [P.session], result: .boolean) { call throws(RPCError) in
                let id = try call.params.string("session")
                try np.perform { m, t in try m.closeSession(id, caller: P.caller(call), now: t) }
                return true
            },
            .sync("session.becomeActiveIfPossible", summary: "Make the session its app's active one (PiP expand), if eligible.",
                  params: [P.session], result: .object, resultSummary: "{active, reason?}") { call throws(RPCError) in
                let id = try call.params.string("session")
                return try np.perform { m, t in try m.becomeActiveIfPossible(id, now: t) }.toJSON()
            },
            .sync("session.resignActive", summary: "Stop being the app's active session (PiP minimize); another takes over.",
                  params: [P.session], result: .object, resultSummary: "{active, reason?}") { call throws(RPCError) in
                let id = try call.params.string("session")
                return try np.perform { m, t in try m.resignActive(id, now: t) }.toJSON()
            },
        ]
    }
}
