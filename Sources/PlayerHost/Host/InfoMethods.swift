import PlayerHostBase
import PlayerHostModel
import PlayerHostRPC

extension HostMethods {
    static func infoMethods(_ np: NowPlayingService) -> [RPCMethod] {
        typealias P = ModelParams
        typealias Write = (inout NowPlayingModel, SessionID, JSON, MonotonicInstant) throws -> ModelResult<PublishedInfo>
        /// A manual-publishing write: run it, answer with the info as published now.
        func write(_ name: String, _ summary: String, _ op: @escaping Write) -> RPCMethod {
            .sync(name, summary: summary, params: [P.session, .required("info", .object)], result: .object) { call throws(RPCError) in
                let id = try call.params.string("session")
                try P.requireOwner(np, call, id)
                let info = JSON.object(try call.params.object("info"))
                // The reply is what the operation returned (manual info: no timeline to read),
                // not a second read of the model.
                let published = try np.perform { m, t in try op(&m, id, info, t) }
                return published.snapshot(session: id, at: np.now).toJSON()
            }
        }
        return [
            .sync("info.get", summary: "A session's published info (elapsed computed for now).",
                  params: [P.session, P.language], result: .object) { call throws(RPCError) in
                let id = try call.params.string("session")
                let lang = try call.params.optionalString("lang")
                return try np.read { m, t in try m.infoJSON(session: id, language: lang, now: t) }
            },
            write("info.set", "Replace a session's whole info dictionary (manual publishing).") { m, id, info, t in
                try m.setInfo(session: id, info: info, now: t)
            },
            write("info.update", "Merge keys into a session's info; null removes a key; the rest stays.") { m, id, info, t in
                try m.updateInfo(session: id, info: info, now: t)
            },
            .sync("info.setAutomatic", summary: "Switch automatic publishing (from the players) on or off.",
                  params: [P.session, .required("enabled", .boolean)], result: .object) { call throws(RPCError) in
                let id = try call.params.string("session")
                try P.requireOwner(np, call, id)
                let on = try call.params.bool("enabled")
                try np.perform { m, t in try m.setAutomaticallyPublishes(session: id, on, now: t) }
                return try np.read { m, t in try m.infoJSON(session: id, now: t) }
            },
        ]
    }
}
