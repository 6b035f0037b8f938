import PlayerHostModel
import PlayerHostRPC

extension HostMethods {
    static func playerMethods(_ np: NowPlayingService) -> [RPCMethod] {
        typealias P = ModelParams
        typealias Op = (inout NowPlayingModel, SessionID, Int, RPCParams, MonotonicInstant) throws -> ModelResult<Player>
        /// A player method: run `op`, answer with the player it returned, as of the operation's
        /// instant (no second read of the model).
        func method(_ name: String, _ summary: String, _ extra: [RPCParamSpec] = [], _ op: @escaping Op) -> RPCMethod {
            .sync(name, summary: summary, params: [P.session, P.player] + extra, result: .object,
                  resultSummary: "the player") { call throws(RPCError) in
                let id = try call.params.string("session")
                let index = try call.params.optionalInt("player") ?? 0
                try P.requireOwner(np, call, id)
                let params = call.params
                var at = MonotonicInstant.zero
                let player = try np.perform { m, t in
                    at = t
                    return try op(&m, id, index, params, t)
                }
                return player.toJSON(now: at)
            }
        }
        return [
            method("player.load", "Replace a player's queue with items ({title, artist, duration, url?, info?}).",
                   [.required("items", .array, "item objects")]) { m, id, i, p, t in
                let items = try (try p.array("items")).map { try MediaItem(json: $0) }
                return try m.load(session: id, player: i, items: items, now: t)
            },
            method("player.play", "Play (rate = defaultRate).") { m, id, i, _, t in try m.play(session: id, player: i, now: t) },
            method("player.pause", "Pause (rate 0).") { m, id, i, _, t in try m.pause(session: id, player: i, now: t) },
            method("player.stop", "Stop and go back to the start of the item.") { m, id, i, _, t in try m.stop(session: id, player: i, now: t) },
            method("player.seek", "Seek to a position in seconds.", [.required("position", .number)]) { m, id, i, p, t in
                try m.seek(session: id, player: i, to: try p.double("position"), now: t)
            },
            method("player.setRate", "Set the rate (0 pauses).", [.required("rate", .number)]) { m, id, i, p, t in
                try m.setRate(session: id, player: i, rate: try p.double("rate"), now: t)
            },
            method("player.setVolume", "Set the volume (0 to 1.5, 1 = as recorded) and/or mute; absent fields keep their value.",
                   [.optional("volume", .number, "level, 0–1.5"), .optional("muted", .boolean)]) { m, id, i, p, t in
                try m.setVolume(session: id, player: i, volume: try p.optionalDouble("volume"), muted: try p.optionalBool("muted"), now: t)
            },
            method("player.next", "Next item.") { m, id, i, _, t in try m.next(session: id, player: i, now: t) },
            method("player.previous", "Previous item (or the start of this one).") { m, id, i, _, t in
                try m.previous(session: id, player: i, now: t)
            },
            method("player.setRepeat", "Repeat mode off, one or all.", [.required("mode", .string)]) { m, id, i, p, t in
                let mode = try RepeatMode.parse(try p.string("mode"), field: "mode")
                return try m.setRepeat(session: id, player: i, mode, now: t)
            },
            method("player.setShuffle", "Shuffle mode off, items or collections.", [.required("mode", .string)]) { m, id, i, p, t in
                let mode = try ShuffleMode.parse(try p.string("mode"), field: "mode")
                return try m.setShuffle(session: id, player: i, mode, now: t)
            },
            method("player.sync", "An external backend reports its player's true state; absent fields keep their value.",
                   [.optional("items", .array, "the engine's queue (item objects)"),
                    .optional("index", .integer, "current item, an index into items"),
                    .optional("elapsed", .number, "media time of the current item now, seconds"),
                    .optional("rate", .number, "0 = paused"),
                    .optional("duration", .number, "the current item's duration, seconds"),
                    .optional("status", .string, "idle, loading, ready or failed"),
                    .optional("repeatMode", .string, "off, one or all"),
                    .optional("shuffleMode", .string, "off, items or collections"),
                    .optional("volume", .number, "the engine's level, 0–1.5 (1 = as recorded)"),
                    .optional("muted", .boolean, "the engine's mute")]) { m, id, i, p, t in
                let state = PlayerSync(
                    items: try p.optionalArray("items")?.map { try MediaItem(json: $0) },
                    index: try p.optionalInt("index"), elapsed: try p.optionalDouble("elapsed"),
                    rate: try p.optionalDouble("rate"), duration: try p.optionalDouble("duration"),
                    status: try P.wireEnum(PlayerStatus.self, p, "status"),
                    repeatMode: try P.wireEnum(RepeatMode.self, p, "repeatMode"),
                    shuffleMode: try P.wireEnum(ShuffleMode.self, p, "shuffleMode"),
                    volume: try p.optionalDouble("volume"), muted: try p.optionalBool("muted"))
                return try m.syncPlayer(session: id, player: i, state: state, now: t)
            },
            .sync("player.get", summary: "A player: queue, index, rate, status, modes, elapsed now.",
                  params: [P.session, P.player], result: .object) { call throws(RPCError) in
                let id = try call.params.string("session")
                let index = try call.params.optionalInt("player") ?? 0
                return try np.read { m, t in try m.playerJSON(session: id, player: index, now: t) }
            },
            .sync("player.queue", summary: "A page of a player's queue, in play order (replies and events carry only the current item).",
                  params: [P.session, P.player, .optional("offset", .integer, "first position (default 0)"),
                           .optional("limit", .integer, "items per page, 1–\(NowPlayingModel.queuePageLimit) (default 100)")],
                  result: .object, resultSummary: "{session, player, offset, count, items}") { call throws(RPCError) in
                let id = try call.params.string("session")
                let index = try call.params.optionalInt("player") ?? 0
                let offset = try call.params.optionalInt("offset") ?? 0
                let limit = try call.params.optionalInt("limit") ?? 100
                return try np.read { m, _ in try m.queueJSON(session: id, player: index, offset: offset, limit: limit) }
            },
        ]
    }
}
