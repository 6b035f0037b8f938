import Testing
@testable import PlayerHost

/// Issue 21 items 2 and 3 through the protocol, on an embedded host: a duration, position or
/// interval beyond 10⁹ s is −32602 and changes nothing. (The bus side, Seek by INT64_MAX and
/// the impostor, stays on a real daemon and bus: `MPRISHostileEndToEndTests`.)
@Suite(.serialized) struct TimeBoundsOverSocketTests {
    /// The RPC error a call threw, if it threw one.
    func rpcError(_ body: () throws -> Void) -> RPCError? {
        do { try body() } catch { if case .rpc(let r) = error as? ClientError { return r } }
        return nil
    }

    @Test func timesBeyondTheBoundAreInvalidParams() throws {
        let d = EmbeddedHost()
        defer { d.close() }
        let app = try d.client()
        defer { app.close() }
        try app.call("host.hello", ["name": "bounds"])
        try app.call("session.create", ["id": "b", "kind": "main"])
        try app.call("audio.configure", ["session": "b", "category": "playback"])
        try app.call("audio.activate", ["session": "b"])
        try app.call("player.load", ["session": "b", "items": [["title": "Song", "duration": 100]]])
        try app.call("command.bindDefaults", ["session": "b"])
        try app.call("player.seek", ["session": "b", "position": 7])
        let invalidParams = RPCErrorCode.invalidParams.rawValue
        #expect(rpcError { try app.call("player.load", ["session": "b", "items": [["title": "Far", "duration": .double(1e13)]]]) }?.code == invalidParams)
        let position = rpcError { try app.call("command.send", ["session": "b", "command": "changePlaybackPosition", "position": .double(1e300)]) }
        #expect(position?.code == invalidParams, "\(String(describing: position))")
        #expect(position?.data?["field"] == "position")
        #expect(rpcError { try app.call("command.send", ["session": "b", "command": "skipForward", "interval": .double(1e300)]) }?.code == invalidParams)
        #expect(rpcError { try app.call("player.seek", ["session": "b", "position": .double(1e300)]) }?.code == invalidParams)
        #expect(rpcError { try app.call("info.set", ["session": "b", "info": ["elapsed": .double(1e300)]]) }?.code == invalidParams)
        let player = try app.call("player.get", ["session": "b"])
        #expect(player["queueCount"] == .int(1), "the queue is unchanged: \(player)")
        #expect(player["elapsed"] == .double(7) || player["elapsed"] == .int(7), "the position is unchanged: \(player)")
    }
}
