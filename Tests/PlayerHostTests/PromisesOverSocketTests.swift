import Glibc
import Testing
@testable import PlayerHost

/// Issue 13 (items 1–4) and issue 16's parallel targets, through the protocol with the requests
/// the issues give, on an embedded host (command timeouts pass in host time). npctl's positional
/// params, which need the real socket, are in `NpctlEndToEndTests`.
@Suite(.serialized) struct PromisesOverSocketTests {
    func daemon(timeoutMS: Int = 300) throws -> EmbeddedHost {
        try EmbeddedHost(configTOML: "command_timeout_ms = \(timeoutMS)\n")
    }

    /// A playing-eligible session: playback category, active, transport bound to its player.
    func makeSession(_ c: EmbeddedClient, _ id: String, play: Bool = false) throws {
        try c.call("session.create", ["id": .string(id), "kind": "main"])
        try c.call("audio.configure", ["session": .string(id), "category": "playback"])
        try c.call("audio.activate", ["session": .string(id)])
        try c.call("player.load", ["session": .string(id), "items": [["title": .string("\(id) song"), "duration": 100]]])
        try c.call("command.bindDefaults", ["session": .string(id)])
        if play { try c.call("player.play", ["session": .string(id)]) }
    }

    /// The JSON-RPC error a call gets, or nil when it succeeds.
    func error(_ c: EmbeddedClient, _ method: String, _ params: [String: JSON]) -> RPCError? {
        do throws(ClientError) {
            _ = try c.call(method, params)
            return nil
        } catch {
            if case .rpc(let e) = error { return e }
            return RPCError(.internalError, "\(error)")
        }
    }

    func targets(_ c: EmbeddedClient, _ session: String, _ command: String) throws -> [JSON] {
        let commands = try c.call("session.get", ["session": .string(session)])["commands"]?.arrayValue ?? []
        return commands.first { $0["command"]?.stringValue == command }?["targets"]?.arrayValue ?? []
    }

    // MARK: 13.1 Ownership

    @Test func anotherAppCannotConfigureASessionButMayCommandPromoteAndRead() throws {
        let d = try daemon()
        defer { d.close() }
        let a = try d.client()
        let b = try d.client()
        let hello = try a.call("host.hello", ["name": "A"])
        let appA = hello["app"]?["id"]?.stringValue ?? hello["app"]?.stringValue
        try b.call("host.hello", ["name": "B"])
        try makeSession(a, "a")
        let writes: [(String, [String: JSON])] = [
            ("command.addTarget", ["session": "a", "command": "play"]),
            ("command.enable", ["session": "a", "command": "play", "enabled": false]),
            ("command.configure", ["session": "a", "command": "skipForward", "preferredIntervals": [5]]),
            ("command.removeTarget", ["session": "a", "command": "play"]),
            ("command.bindDefaults", ["session": "a"]),
            ("info.update", ["session": "a", "info": ["genre": "Rock"]]),
            ("info.set", ["session": "a", "info": ["genre": "Rock"]]),
            ("audio.configure", ["session": "a", "category": "ambient"]),
            ("audio.activate", ["session": "a"]),
            ("audio.deactivate", ["session": "a"]),
            ("player.load", ["session": "a", "items": [["title": "B's", "duration": 5]]]),
            ("player.play", ["session": "a"]),
            ("player.seek", ["session": "a", "position": 3]),
            ("session.close", ["session": "a"]),
        ]
        for (method, params) in writes {
            let e = error(b, method, params)
            #expect(e?.code == 1060, "\(method) by another app")
            #expect(e?.data?["owner"]?.stringValue == "a" && appA != nil, "\(method): the owner is in data")
        }
        // Nothing changed: A's built-in play target is still there, the player still holds A's item.
        #expect(try targets(a, "a", "play").count == 1)
        #expect(try a.call("player.get", ["session": "a"])["queueCount"]?.intValue == 1)
        // Open to all: commands, promote/demote, reads.
        #expect(try b.call("command.send", ["command": "play", "session": "a"])["status"] == "success")
        #expect(try b.call("session.becomeActiveIfPossible", ["session": "a"])["active"] == true)
        _ = try b.call("session.resignActive", ["session": "a"])
        _ = try b.call("info.get", ["session": "a"])
        // The owner still configures it (its info comes from its items: it publishes automatically).
        try a.call("command.enable", ["session": "a", "command": "play", "enabled": true])
        try a.call("player.load", ["session": "a", "items": [["title": "A's", "duration": 5, "info": ["genre": "Rock"]]]])
        #expect(try b.call("info.get", ["session": "a"])["info"]?["genre"] == "Rock")
    }

    @Test func removeTargetWithoutTokenRemovesOnlyTheCallersTargets() throws {
        let d = try daemon()
        defer { d.close() }
        let a = try d.client()
        let script = try d.client()  // never says hello: acts as the host, like npctl
        try a.call("host.hello", ["name": "A"])
        try makeSession(a, "a")
        try script.call("command.addTarget", ["session": "a", "command": "play"])
        #expect(try targets(a, "a", "play").count == 2)
        try script.call("command.removeTarget", ["session": "a", "command": "play"])
        let left = try targets(a, "a", "play")
        #expect(left.count == 1)
        #expect(left.first?["kind"] == "builtin", "A's built-in target stays")
    }

    // MARK: 13.2 Play means play

    func audio(_ c: EmbeddedClient, _ session: String) throws -> JSON {
        try c.call("session.get", ["session": .string(session)])["audio"] ?? .null
    }

    @Test(arguments: ["play", "togglePlayPause"])
    func playOnAnInterruptedSessionReactivatesItAndInterruptsTheOther(_ command: String) throws {
        let d = try daemon()
        defer { d.close() }
        let a = try d.client()
        let b = try d.client()
        let remote = try d.client()  // npctl: no hello
        try a.call("host.hello", ["name": "A"])
        try b.call("host.hello", ["name": "B"])
        try makeSession(a, "a", play: true)
        try makeSession(b, "b", play: true)  // non-mixable: interrupts a
        #expect(try audio(a, "a")["interrupted"] == true)
        #expect(try remote.call("nowPlaying.get")["session"] == "b")

        let reply = try remote.call("command.send", ["command": .string(command), "session": "a"])
        #expect(reply["status"] == "success")
        #expect(try audio(a, "a")["interrupted"] == false)
        #expect(try audio(a, "a")["active"] == true)
        #expect(try a.call("player.get", ["session": "a"])["playbackState"] == "playing")
        #expect(try audio(b, "b")["interrupted"] == true, "only one non-mixable session plays")
        #expect(try b.call("player.get", ["session": "b"])["playbackState"] != "playing")
        #expect(try remote.call("nowPlaying.get")["session"] == "a")
    }

    @Test func playWhileTheSystemHoldsTheAudioFailsWithTheReason() throws {
        let d = try daemon()
        defer { d.close() }
        let a = try d.client()
        try makeSession(a, "a", play: true)
        try a.call("audio.interrupt", ["type": "began"])
        let reply = try a.call("command.send", ["command": "play", "session": "a"])
        #expect(reply["status"] == "commandFailed")
        #expect(reply["reason"]?.stringValue?.contains("system") == true)
        #expect(try a.call("player.get", ["session": "a"])["playbackState"] != "playing")
    }

    // MARK: 13.3 Automatic keys

    /// The issue's `info.update {title}` on an automatically publishing session: refused with
    /// 1030 naming `player.load`, whether the item has a title (it stays) or not (nothing
    /// sticks to show on later items).
    @Test func itemKeysOfAnAutomaticSessionAreRefusedAndNothingSticks() throws {
        let d = try daemon()
        defer { d.close() }
        let c = try d.client()
        try c.call("session.create", ["id": "main", "kind": "main"])
        try c.call("player.load", ["session": "main", "items": [["title": "Song", "duration": 100], ["duration": 50], ["duration": 60]]])
        try c.send(Array(#"{"jsonrpc":"2.0","method":"info.update","id":1,"params":{"session":"main","info":{"title":"Mine"}}}"#.utf8 + [0x0A]))
        let reply = try c.readMessage()
        #expect(reply["error"]?["code"] == 1030, "\(reply)")
        #expect(reply["error"]?["message"]?.stringValue?.contains("player.load") == true, "\(reply)")
        #expect(reply["error"]?["data"]?["keys"] == ["title"])
        #expect(try c.call("info.get", ["session": "main"])["info"]?["title"] == "Song", "the item's title stays")
        try c.call("player.next", ["session": "main"])
        #expect(error(c, "info.update", ["session": "main", "info": ["title": "Mine"]])?.code == 1030, "an untitled item too")
        #expect(error(c, "info.set", ["session": "main", "info": ["genre": "Jazz"]])?.code == 1030)
        try c.call("player.next", ["session": "main"])
        let later = try c.call("info.get", ["session": "main"])["info"]
        #expect(later?["title"] == nil && later?["genre"] == nil, "nothing written shows on a later item: \(later ?? .null)")
    }

    // MARK: 13.4 Protocol edges

    /// Ids come back as their text was sent, whatever JSON number they are, singly and in batches.
    @Test func requestIdsAreEchoedByteForByte() throws {
        let d = try daemon()
        defer { d.close() }
        let c = try d.client()
        let ids = ["123456789012345678901234567890", "1e2", "-0", "1.50", "-12.5E-3", "7", #""x""#, "null"]
        for id in ids {
            try c.send(Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"host.ping"}"#.utf8 + [0x0A]))
            let line = String(decoding: try c.readLine(), as: UTF8.self)
            #expect(line.hasSuffix(#","id":\#(id)}"#), "\(line)")
        }
        // An error reply echoes it too, and so do batch members (with spaces around the id).
        try c.send(Array(#"{"jsonrpc":"2.0","id":1.50,"method":"no.such"}"#.utf8 + [0x0A]))
        #expect(String(decoding: try c.readLine(), as: UTF8.self).hasSuffix(#","id":1.50}"#))
        try c.send(Array(#"[{"jsonrpc":"2.0","id" : 123456789012345678901234567890 ,"method":"host.ping"},{"jsonrpc":"2.0","method":"host.ping","id":1e2}]"#.utf8 + [0x0A]))
        let batch = String(decoding: try c.readLine(), as: UTF8.self)
        #expect(batch.contains(#","id":123456789012345678901234567890}"#) && batch.contains(#","id":1e2}"#), "\(batch)")
    }


    @Test func adRangesTakeStartAndDurationAndItemsTakeLocalizedTitles() throws {
        let d = try daemon()
        defer { d.close() }
        let c = try d.client()
        try c.call("session.create", ["id": "m", "kind": "main", "automaticallyPublishes": false])
        let info = try c.call("info.set", ["session": "m", "info": ["adTimeRanges": [["start": 10, "duration": 5]]]])
        #expect(info["info"]?["adTimeRanges"] == [["start": 10.0, "end": 15.0]])
        try c.call("session.create", ["id": "a", "kind": "main"])
        try c.call("player.load", ["session": "a", "items": [["title": ["und": "Magnificent", "es": "Magnífico"], "duration": 60]]])
        #expect(try c.call("info.get", ["session": "a", "lang": "es"])["info"]?["title"] == "Magnífico")
        #expect(try c.call("info.get", ["session": "a", "lang": "en"])["info"]?["title"] == "Magnificent")
    }

    // MARK: 16.2 Targets asked together

    @Test func outOfProcessTargetsAreAskedTogetherAndAnswersGoInTargetOrder() throws {
        // Long enough that a target asked only after another's timeout is never reached in the test.
        let d = try daemon(timeoutMS: 20_000)
        defer { d.close() }
        let owner = try d.client()
        try owner.call("session.create", ["id": "main", "kind": "main"])
        try owner.call("command.enable", ["session": "main", "command": "play", "enabled": true])
        let handlers = try (0..<3).map { _ in try d.client(timeout: 5) }
        for h in handlers { try h.call("command.addTarget", ["session": "main", "command": "play"]) }
        let sender = try d.client()
        try sender.send(request("command.send", ["command": "play", "session": "main"]))
        // Every target has its request before any has answered.
        let requests = try handlers.map { h in try h.readMessage() }
        for r in requests { #expect(r["method"] == "command.handle") }
        // Answers out of order; the result is still the first non-success in target order.
        let statuses = ["success", "noSuchContent", "commandFailed"]
        for i in [2, 1, 0] {
            try handlers[i].send(Array((#"{"jsonrpc":"2.0","result":{"status":"\#(statuses[i])"},"id":\#(requests[i]["id"]!.jsonString)}"# + "\n").utf8))
        }
        #expect(try sender.readMessage()["result"]?["status"] == "noSuchContent")
    }

    @Test func silentTargetsFailTheCommandAfterOneTimeout() throws {
        let d = try daemon(timeoutMS: 1_500)
        defer { d.close() }
        let owner = try d.client()
        try owner.call("session.create", ["id": "main", "kind": "main"])
        try owner.call("command.enable", ["session": "main", "command": "play", "enabled": true])
        // Each silent target must be asked within 1 s: one after another, the third would wait 3 s.
        let handlers = try (0..<3).map { _ in try d.client(timeout: 1) }
        for h in handlers { try h.call("command.addTarget", ["session": "main", "command": "play"]) }
        let sender = try d.client()
        try sender.send(request("command.send", ["command": "play", "session": "main"]))
        for h in handlers { #expect(try h.readMessage()["method"] == "command.handle") }
        #expect(try sender.readMessage()["result"]?["status"] == "commandFailed")
    }

    func request(_ method: String, _ params: JSON, id: Int = 77) -> [UInt8] {
        var out: [UInt8] = []
        RPCEncoder.request(method: method, params: params, id: Int64(id), into: &out)
        return out
    }
}

