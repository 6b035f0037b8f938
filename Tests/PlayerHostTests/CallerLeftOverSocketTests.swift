import Testing
@testable import PlayerHost

/// Late answers for callers that left (a review's crashes), on an embedded host: a provided
/// method answered after its caller disconnected, and a command that times out after its
/// sender disconnected. The host sees a client go on its next turn, as it sees a socket close;
/// the 200 ms command timeout is host time. (The socket-level cases, signals and output limits,
/// stay on the real daemon: `DaemonEndToEndTests`, `SocketTransportEndToEndTests`.)
@Suite(.serialized) struct CallerLeftOverSocketTests {
    func request(_ method: String, _ params: JSON, id: Int64 = 7) -> [UInt8] {
        var out: [UInt8] = []
        RPCEncoder.request(method: method, params: params, id: id, into: &out)
        return out
    }

    func daemon() throws -> EmbeddedHost { try EmbeddedHost(configTOML: "command_timeout_ms = 200\n") }

    @Test func aProvidedMethodAnsweredAfterItsCallerLeft() throws {
        let d = try daemon()
        defer { d.close() }
        let provider = try d.client()
        try provider.call("plugin.provide", ["methods": ["x.slow"]])
        var caller: EmbeddedClient? = try d.client()
        try caller!.send(request("x.slow", [:]))
        let forwarded = try provider.readMessage()
        #expect(forwarded["method"] == "x.slow")
        caller!.close()
        caller = nil
        #expect(try d.client().call("host.ping") == "pong")  // the close has been processed
        #expect(d.connectionCount == 2, "the caller is gone from the host")
        try provider.send(Array((#"{"jsonrpc":"2.0","result":"late","id":\#(forwarded["id"]!.jsonString)}"# + "\n").utf8))
        #expect(try provider.call("host.ping") == "pong", "the host survived the late answer")
    }

    @Test func aCommandThatTimesOutAfterItsSenderLeft() throws {
        let d = try daemon()
        defer { d.close() }
        let handler = try d.client()
        try handler.call("session.create", ["id": "s", "kind": "main"])
        try handler.call("command.addTarget", ["session": "s", "command": "play"])
        try handler.call("command.enable", ["session": "s", "command": "play", "enabled": true])
        let watcher = try d.client()
        try watcher.call("events.subscribe", ["topics": ["commands"]])
        var sender: EmbeddedClient? = try d.client()
        try sender!.send(request("command.send", ["command": "play", "session": "s"]))
        _ = try handler.readMessage()  // the command.handle request; never answered
        sender!.close()
        sender = nil
        // The 200 ms timeout ends the command: commandHandled, then the host is still here.
        var handled = false
        while !handled {
            let n = try watcher.nextNotification(timeout: 10)
            handled = n["params"]?["type"] == "commandHandled"
        }
        #expect(try watcher.call("host.ping") == "pong")
    }
}
