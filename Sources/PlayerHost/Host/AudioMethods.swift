import PlayerHostModel
import PlayerHostRPC

extension HostMethods {
    static func audioMethods(_ np: NowPlayingService) -> [RPCMethod] {
        typealias P = ModelParams
        return [
            .sync("audio.configure", summary: "Set a session's audio category and options (and background audio).",
                  params: [P.session, .required("category", .string, "playback, playAndRecord, soloAmbient or ambient"),
                           .optional("options", .array, "mixWithOthers, duckOthers"),
                           .optional("backgroundAudio", .boolean, "outlive the owning app")],
                  result: .object, resultSummary: "the audio session") { call throws(RPCError) in
                let p = call.params
                let id = try p.string("session")
                try P.requireOwner(np, call, id)
                let category = try P.wireEnum(AudioCategory.self, p, "category")!
                var options = Set<AudioOption>()
                for o in try p.stringArray("options") ?? [] {
                    options.insert(try P.wrap { try AudioOption.parse(o, field: "options") })
                }
                var audio = try np.perform { m, t in try m.configureAudio(session: id, category: category, options: options, now: t) }
                if let bg = try p.optionalBool("backgroundAudio") {
                    audio = try np.perform { m, t in try m.setBackgroundAudio(session: id, bg, now: t) }
                }
                return audio.toJSON()
            },
            .sync("audio.activate", summary: "Activate a session's audio; a non-mixable one interrupts other apps.",
                  params: [P.session], result: .object) { call throws(RPCError) in
                let id = try call.params.string("session")
                try P.requireOwner(np, call, id)
                return try np.perform { m, t in try m.activateAudio(session: id, now: t) }.toJSON()
            },
            .sync("audio.deactivate", summary: "Deactivate a session's audio (its players pause); notifyOthers lets interrupted sessions resume.",
                  params: [P.session, .optional("notifyOthers", .boolean)], result: .object) { call throws(RPCError) in
                let id = try call.params.string("session")
                try P.requireOwner(np, call, id)
                let notify = try call.params.optionalBool("notifyOthers") ?? false
                return try np.perform { m, t in try m.deactivateAudio(session: id, notifyOthers: notify, now: t) }.toJSON()
            },
            .sync("audio.interrupt", summary: "An external interruption (a call, an alarm) of every active session.",
                  params: [.required("type", .string, "began or ended"), .optional("shouldResume", .boolean)],
                  result: .boolean) { call throws(RPCError) in
                let type = try P.wireEnum(InterruptionType.self, call.params, "type")!
                let resume = try call.params.optionalBool("shouldResume")
                try np.perform { m, t in m.interruptAudio(type, shouldResume: resume, now: t) }
                return true
            },
        ]
    }
}
