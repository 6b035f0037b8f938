import PlayerHostModel
import PlayerHostRPC

/// `artwork.get` and `artwork.status`.
extension HostMethods {
    /// `resolver`: the daemon's artwork resolver (nil when its cache cannot be made).
    static func artwork(core host: HostCore, resolver: @escaping () -> ArtworkResolver?) -> [RPCMethod] {
        [
            RPCMethod("artwork.get",
                      summary: "The best rendition of a session's resolved artwork: the smallest cached one at least width×height, else the original scaled down now (never up); null without artwork.",
                      params: [ModelParams.optionalSession,
                               .optional("width", .integer, "pixels (1…10000)"), .optional("height", .integer, "pixels (1…10000)")],
                      result: .object, resultSummary: "{url, path, width, height, type, from, original} or null") { [weak host] call throws(RPCError) -> RPCOutcome in
                guard let host else { throw RPCError(.shuttingDown, "the host is shutting down") }
                let width = try call.params.optionalInt("width"), height = try call.params.optionalInt("height")
                for (name, v) in [("width", width), ("height", height)] {
                    if let v, !(1...10_000).contains(v) {
                        throw RPCError(.invalidArgument, "\(name) must be 1…10000", data: ["param": .string(name)])
                    }
                }
                let np = host.nowPlaying
                let session: SessionID
                if let s = try call.params.optionalString("session") {
                    guard np.model.sessions[s] != nil else {
                        throw RPCError.from(ModelError.sessionNotFound(s), fallback: RPCError.internalError)
                    }
                    session = s
                } else if let s = np.model.nowPlayingSession {
                    session = s
                } else {
                    return .result(.null)
                }
                guard let resolver = resolver() else { return .result(.null) }
                let promise = RPCPromise()
                resolver.rendition(session: session, width: width, height: height) { promise.complete($0) }
                return .deferred(promise)
            },
            .sync("artwork.status", summary: "The artwork helper (pid, restarts, last exit), the cache (bytes, limit, files, evictions) and resolution counters.",
                  result: .object) { _ in
                resolver()?.statusJSON ?? .null
            },
        ]
    }
}
