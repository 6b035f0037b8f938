import PlayerHostBase
import PlayerHostModel
import PlayerHostRPC

extension HostMethods {
    static func commandMethods(_ np: NowPlayingService) -> [RPCMethod] {
        typealias P = ModelParams
        let commandParam = RPCParamSpec.required(
            "command", .string, "one of " + RemoteCommandKind.allCases.map(\.rawValue).joined(separator: ", "))
        /// Every configuration property of any command, each optional.
        let configuration: [RPCParamSpec] = [
            .optional("preferredIntervals", .array, "skipForward/skipBackward intervals, seconds"),
            .optional("supportedPlaybackRates", .array, "changePlaybackRate's allowed rates"),
            .optional("currentRepeatType", .string, "off, one or all"),
            .optional("currentShuffleType", .string, "off, items or collections"),
            .optional("maximumVolume", .number, "changeVolume's loudest level, > 0 and <= 1.5 (default 1)"),
            .optional("minimumRating", .number), .optional("maximumRating", .number),
            .optional("isActive", .boolean, "like/dislike/bookmark state"),
            .optional("localizedTitle", .string, "like/dislike/bookmark title"),
        ]
        /// Every payload field a sender may give.
        let payload: [RPCParamSpec] = [
            .optional("interval", .number, "skip interval, seconds (default preferredIntervals[0])"),
            .optional("position", .number, "changePlaybackPosition target, seconds"),
            .optional("rate", .number, "changePlaybackRate rate (one of supportedPlaybackRates)"),
            .optional("type", .string, "seekForward/seekBackward: begin or end"),
            .optional("repeatType", .string), .optional("shuffleType", .string),
            .optional("volume", .number, "changeVolume level, 0–maximumVolume"),
            .optional("muted", .boolean, "changeVolume mute"),
            .optional("rating", .number), .optional("isNegative", .boolean),
            .optional("languageOption", .any),
        ]
        return [
            .sync("command.enable", summary: "Enable or disable a command (false until set). Published at once.",
                  params: [P.session, commandParam, .required("enabled", .boolean)], result: .object,
                  resultSummary: "the command") { call throws(RPCError) in
                let id = try call.params.string("session")
                try P.requireOwner(np, call, id)
                let kind = try P.command(call.params)
                let on = try call.params.bool("enabled")
                return try np.perform { m, t in try m.enableCommand(session: id, kind, enabled: on, now: t) }.toJSON()
            },
            .sync("command.configure", summary: "Set a command's configuration properties.",
                  params: [P.session, commandParam] + configuration, result: .object) { call throws(RPCError) in
                let id = try call.params.string("session")
                try P.requireOwner(np, call, id)
                let kind = try P.command(call.params)
                var props = call.params.values
                props["session"] = nil
                props["command"] = nil
                return try np.perform { m, t in try m.configureCommand(session: id, kind, properties: props, now: t) }.toJSON()
            },
            .sync("command.addTarget", summary: "Handle a command in this client: the host sends it `command.handle` requests.",
                  params: [P.session, commandParam], result: .object, resultSummary: "{token}") { call throws(RPCError) in
                let id = try call.params.string("session")
                try P.requireOwner(np, call, id)
                let kind = try P.command(call.params)
                let token = try np.perform { m, t in
                    try m.addTarget(session: id, kind, client: ClientID(call.connection.id), now: t)
                }
                return ["token": .int(Int64(token))]
            },
            .sync("command.removeTarget", summary: "Remove one target (token) or all of a command's targets.",
                  params: [P.session, commandParam, .optional("token", .integer)], result: .boolean) { call throws(RPCError) in
                let id = try call.params.string("session")
                try P.requireOwner(np, call, id)
                let kind = try P.command(call.params)
                let token = try call.params.optionalInt("token")
                try np.perform { m, t in try m.removeTarget(session: id, kind, token: token, caller: P.caller(call), now: t) }
                return true
            },
            .sync("command.bindDefaults", summary: "Target and enable the transport commands on the session's own players.",
                  params: [P.session], result: .object, resultSummary: "the command center") { call throws(RPCError) in
                let id = try call.params.string("session")
                try P.requireOwner(np, call, id)
                return try np.perform { m, t in try m.bindDefaultCommands(session: id, now: t) }.toJSON()
            },
            RPCMethod("command.send", summary: "Send a command to a session (default: the Now Playing one); its targets run in order.",
                      params: [commandParam, P.optionalSession] + payload, result: .object,
                      resultSummary: "{session, command, status}") { call throws(RPCError) -> RPCOutcome in
                let kind = try P.command(call.params)
                let id = try call.params.optionalString("session")
                var body = call.params.values
                body["command"] = nil
                body["session"] = nil
                let progress = try np.perform { m, t in try m.sendCommand(kind, session: id, payload: body, now: t) }
                if case .finished(let outcome) = progress { return .result(outcome.toJSON()) }
                let promise = RPCPromise()
                np.drive(progress, promise: promise)
                return .deferred(promise)
            },
        ]
    }
}
