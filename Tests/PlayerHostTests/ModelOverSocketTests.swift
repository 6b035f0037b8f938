import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostHost
@testable import PlayerHostLoop
@testable import PlayerHostModel
@testable import PlayerHostRPC

/// Issue 3's behaviours through the protocol, with several clients, on an embedded host (its
/// time is manual: a command timeout is waited for in host time, not on the wall clock).
@Suite(.serialized) struct ModelOverSocketTests {
    /// A host with a short command timeout and no configured sessions.
    func daemon(timeoutMS: Int = 300) throws -> EmbeddedHost {
        try EmbeddedHost(configTOML: "command_timeout_ms = \(timeoutMS)\n")
    }

    /// A playing-eligible session: playback category, active, transport bound to its player.
    func makeSession(_ c: EmbeddedClient, _ id: String, kind: String = "main", play: Bool = false) throws {
        try c.call("session.create", ["id": .string(id), "kind": .string(kind)])
        try c.call("audio.configure", ["session": .string(id), "category": "playback"])
        try c.call("audio.activate", ["session": .string(id)])
        try c.call("player.load", ["session": .string(id), "items": [["title": .string("\(id) song"), "duration": 100]]])
        try c.call("command.bindDefaults", ["session": .string(id)])
        if play { try c.call("player.play", ["session": .string(id)]) }
    }

    func request(_ method: String, _ params: JSON, id: Int = 77) -> [UInt8] {
        var out: [UInt8] = []
        RPCEncoder.request(method: method, params: params, id: Int64(id), into: &out)
        return out
    }

    @Test func outOfProcessTargetReceivesThePayloadAndAnswers() throws {
        let d = try daemon()
        defer { d.close() }
        let handler = try d.client()
        let sender = try d.client()
        try makeSession(handler, "main")
        let token = try handler.call("command.addTarget", ["session": "main", "command": "skipForward"])["token"]
        try handler.call("command.configure", ["session": "main", "command": "skipForward", "preferredIntervals": [30, 10]])
        // The sender gives no interval: the host fills in preferredIntervals[0].
        try sender.send(request("command.send", ["command": "skipForward", "session": "main"]))
        let req = try handler.readMessage()
        #expect(req["method"] == "command.handle")
        #expect(req["params"]?["interval"]?.doubleValue == 30)
        #expect(req["params"]?["token"] == token)
        try handler.send(Array((#"{"jsonrpc":"2.0","result":{"status":"noSuchContent"},"id":\#(req["id"]!.jsonString)}"# + "\n").utf8))
        let reply = try sender.readMessage()
        // bindDefaults' built-in target ran first (success), then ours: the first non-success wins.
        #expect(reply["result"]?["status"] == "noSuchContent")
        // With an explicit interval the handler gets exactly that.
        try sender.send(request("command.send", ["command": "skipForward", "session": "main", "interval": 7]))
        let req2 = try handler.readMessage()
        #expect(req2["params"]?["interval"]?.doubleValue == 7)
        try handler.send(Array((#"{"jsonrpc":"2.0","result":"success","id":\#(req2["id"]!.jsonString)}"# + "\n").utf8))
        #expect(try sender.readMessage()["result"]?["status"] == "success")
    }

    @Test func silentTargetTimesOutAsCommandFailedAndOthersAreServed() throws {
        let d = try daemon(timeoutMS: 200)
        defer { d.close() }
        let handler = try d.client()
        let sender = try d.client()
        let bystander = try d.client()
        try makeSession(handler, "main")
        try handler.call("command.addTarget", ["session": "main", "command": "play"])
        try sender.send(request("command.send", ["command": "play"]))
        #expect(try bystander.call("host.ping") == "pong", "a hanging handler blocks no one else")
        let reply = try sender.readMessage()  // arrives after the 200 ms timeout
        #expect(reply["result"]?["status"] == "commandFailed")
        // The late answer is ignored, not misrouted.
        let req = try handler.readMessage()
        try handler.send(Array((#"{"jsonrpc":"2.0","result":"success","id":\#(req["id"]!.jsonString)}"# + "\n").utf8))
        #expect(try handler.call("host.ping") == "pong")
    }

    @Test func disabledCommandIsRefusedBeforeAnyHandler() throws {
        let d = try daemon()
        defer { d.close() }
        let handler = try d.client()
        let sender = try d.client()
        try makeSession(handler, "main")
        try handler.call("command.addTarget", ["session": "main", "command": "like"])
        #expect {
            try sender.call("command.send", ["command": "like", "session": "main"])
        } throws: { e in
            guard case .rpc(let r) = e as? ClientError else { return false }
            return r.code == RPCErrorCode.commandDisabled.rawValue && r.message.contains("disabled")
        }
        try handler.call("command.enable", ["session": "main", "command": "dislike", "enabled": true])
        #expect {
            try sender.call("command.send", ["command": "dislike", "session": "main"])
        } throws: { e in
            guard case .rpc(let r) = e as? ClientError else { return false }
            return r.code == RPCErrorCode.commandHasNoTarget.rawValue
        }
        // The handler was never asked.
        handler.timeout = 0.2
        #expect(throws: ClientError.self) { try handler.readMessage() }
    }

    @Test func pipPromotionRoutesCommandsToPip() throws {
        let d = try daemon()
        defer { d.close() }
        let app = try d.client()
        try app.call("host.hello", ["name": "video"])
        try makeSession(app, "main", play: true)
        try makeSession(app, "pip", kind: "pip")
        #expect(try app.call("nowPlaying.get")["session"] == "main")
        #expect(try app.call("session.becomeActiveIfPossible", ["session": "pip"])["active"] == true)
        #expect(try app.call("nowPlaying.get")["session"] == "pip")
        #expect(try app.call("command.send", ["command": "play"])["session"] == "pip")
        #expect(try app.call("player.get", ["session": "pip"])["rate"]?.doubleValue == 1)
        #expect(try app.call("session.becomeActiveIfPossible", ["session": "main"])["active"] == true)
        #expect(try app.call("nowPlaying.get")["session"] == "main")
    }

    @Test func multiviewFansOutToFourPlayers() throws {
        let d = try daemon()
        defer { d.close() }
        let c = try d.client()
        try c.call("session.create", ["id": "race", "kind": "multiview"])
        try c.call("audio.configure", ["session": "race", "category": "playback"])
        try c.call("audio.activate", ["session": "race"])
        for p in 0..<4 {
            try c.call("player.load", ["session": "race", "player": .int(Int64(p)), "items": [["title": "cam", "duration": 60]]])
        }
        try c.call("command.bindDefaults", ["session": "race"])
        #expect(try c.call("command.send", ["command": "play", "session": "race"])["status"] == "success")
        for p in 0..<4 { #expect(try c.call("player.get", ["session": "race", "player": .int(Int64(p))])["rate"]?.doubleValue == 1) }
        try c.call("command.send", ["command": "pause", "session": "race"])
        for p in 0..<4 { #expect(try c.call("player.get", ["session": "race", "player": .int(Int64(p))])["rate"]?.doubleValue == 0) }
    }

    @Test func repeatAndShuffleGoThroughTheCommandCenter() throws {
        let d = try daemon()
        defer { d.close() }
        let c = try d.client()
        try makeSession(c, "main")
        let sent = try c.call("command.send", ["command": "changeRepeatMode", "session": "main", "repeatType": "all"])
        #expect(sent["status"] == "success")
        #expect(try c.call("player.get", ["session": "main"])["repeatMode"] == "all")
        let watcher = try d.client()
        try watcher.call("events.subscribe", ["topics": ["commands"]])
        try c.call("player.setShuffle", ["session": "main", "mode": "items"])
        let n = try watcher.nextNotification(timeout: 5)
        #expect(n["params"]?["type"] == "commandChanged")
        #expect(n["params"]?["command"]?["command"] == "changeShuffleMode")
        #expect(n["params"]?["command"]?["currentShuffleType"] == "items")
    }

    @Test func anotherAppsPlaybackInterruptsAndNotifyOthersResumes() throws {
        let d = try daemon()
        defer { d.close() }
        let a = try d.client()
        let b = try d.client()
        try a.call("host.hello", ["name": "A"])
        try b.call("host.hello", ["name": "B"])
        try makeSession(a, "a", play: true)
        try b.call("session.create", ["id": "b", "kind": "main"])
        try b.call("audio.configure", ["session": "b", "category": "playback"])
        try b.call("player.load", ["session": "b", "items": [["title": "b song", "duration": 100]]])
        try b.call("command.bindDefaults", ["session": "b"])
        try b.call("audio.activate", ["session": "b"])
        try b.call("player.play", ["session": "b"])
        // A's player paused, and A was told (without subscribing: it owns the session).
        #expect(try a.call("player.get", ["session": "a"])["rate"]?.doubleValue == 0)
        var sawBegan = false
        for n in a.notifications where n["params"]?["type"] == "interruption" && n["params"]?["interruption"] == "began" {
            sawBegan = true
        }
        #expect(sawBegan)
        #expect(try b.call("nowPlaying.get")["session"] == "b")
        try b.call("audio.deactivate", ["session": "b", "notifyOthers": true])
        _ = try a.call("host.ping")
        let ended = a.notifications.first { $0["params"]?["interruption"] == "ended" }
        #expect(ended?["params"]?["shouldResume"] == true)
        // An external interruption affects every active session.
        try a.call("player.play", ["session": "a"])
        try a.call("audio.interrupt", ["type": "began"])
        #expect(try a.call("player.get", ["session": "a"])["rate"]?.doubleValue == 0)
        #expect(try a.call("session.get", ["session": "a"])["playbackState"] == "interrupted")
    }

    @Test func disconnectRemovesSessionsWithoutBackgroundAudio() throws {
        let d = try daemon()
        defer { d.close() }
        let watcher = try d.client()
        var app: EmbeddedClient? = try d.client()
        try app!.call("host.hello", ["name": "fleeting"])
        try makeSession(app!, "gone", play: true)
        try app!.call("session.create", ["id": "stays", "kind": "pip", "backgroundAudio": true])
        // A connection without host.hello is not an app: what it creates belongs to the host.
        let script = try d.client()
        try script.call("session.create", ["id": "scripted", "kind": "main"])
        script.close()
        try watcher.call("events.subscribe", ["topics": ["sessions"]])
        app!.close()
        app = nil
        // Wait for the close to be processed: the sessionClosed event arrives.
        var closed = false
        while !closed {
            let n = try watcher.nextNotification(timeout: 5)
            if n["params"]?["type"] == "sessionClosed" { closed = true }
        }
        let ids = try watcher.call("session.list").arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        #expect(ids.sorted() == ["scripted", "stays"])
        #expect(try watcher.call("nowPlaying.get") == .null)
    }

    @Test func subscribeSendsTheCurrentValueAtOnceThenChanges() throws {
        let d = try daemon()
        defer { d.close() }
        let c = try d.client()
        try makeSession(c, "main", play: true)
        let sub = try d.client()
        try sub.call("events.subscribe", ["topics": ["nowPlaying"]])
        let first = try sub.nextNotification(timeout: 5)
        #expect(first["params"]?["nowPlaying"]?["session"] == "main")
        #expect(first["params"]?["nowPlaying"]?["info"]?["title"] == "main song")
        // A change a reader can see (a pause right after play may show exactly what was last
        // published, which the gate then does not send again).
        try c.call("player.seek", ["session": "main", "position": 50])
        let next = try sub.nextNotification(timeout: 5)
        #expect(next["params"]?["nowPlaying"]?["info"]?["elapsed"]?.doubleValue == 50)
        #expect(next["params"]?["nowPlaying"]?["playbackState"] == "playing")
        #expect(throws: ClientError.self) { try sub.call("events.subscribe", ["topics": ["nope"]]) }
    }

    @Test func automaticKeysRefusedManualUpdateMerges() throws {
        let d = try daemon()
        defer { d.close() }
        let c = try d.client()
        try makeSession(c, "main")
        #expect {
            try c.call("info.update", ["session": "main", "info": ["elapsed": 5]])
        } throws: { e in
            guard case .rpc(let r) = e as? ClientError else { return false }
            return r.code == RPCErrorCode.automaticKey.rawValue
        }
        try c.call("info.setAutomatic", ["session": "main", "enabled": false])
        try c.call("info.set", ["session": "main", "info": ["title": "T", "duration": 200,
                                                           "artwork": ["id": "a1", "bounds": ["width": 600, "height": 600], "sources": []]]])
        let after = try c.call("info.update", ["session": "main", "info": ["title": "T2"]])["info"] ?? .null
        #expect(after["title"] == "T2")
        #expect(after["duration"]?.doubleValue == 200)
        #expect(after["artwork"]?["id"] == "a1")
        let removed = try c.call("info.update", ["session": "main", "info": ["artwork": nil]])["info"] ?? .null
        #expect(removed["artwork"] == nil)
        #expect(removed["title"] == "T2")
        let replaced = try c.call("info.set", ["session": "main", "info": ["title": "Only"]])["info"] ?? .null
        #expect(replaced["duration"] == nil)
        #expect(replaced["title"] == "Only")
        // The reply is the session's info as published, elapsed as of the reply (from what the
        // operation returned, as `info.get` would show it).
        let timed = try c.call("info.set", ["session": "main", "info": ["title": "Live", "elapsed": 30, "rate": 1, "duration": 200]])
        #expect(timed["session"] == "main")
        let elapsed = timed["info"]?["elapsed"]?.doubleValue ?? -1
        #expect(elapsed >= 30 && elapsed < 31, "elapsed \(elapsed)")
        let got = try c.call("info.get", ["session": "main"])
        #expect(got["info"]?["title"] == timed["info"]?["title"] && got["playbackState"] == timed["playbackState"])
    }
}

/// The clock player's deadline timer, in-process: armed only while something plays.
@Suite struct DeadlineTimerTests {
    @Test func armedWhilePlayingOnlyAndAdvancesAtTheEnd() throws {
        let loop = try EventLoop()
        let np = NowPlayingService(scheduler: loop, logger: .init(label: "t"))
        let fake = MonotonicInstant(nanoseconds: 1_000_000_000)
        np.clock = { fake }
        try np.perform { m, t in try m.createSession(id: "s", kind: .main, now: t) }
        try np.perform { m, t in
            try m.load(session: "s", player: 0, items: [MediaItem(title: "a", duration: 0.05), MediaItem(title: "b", duration: 10)], now: t)
        }
        #expect(!np.isTimerArmed, "nothing plays: no timer")
        try np.perform { m, t in try m.play(session: "s", player: 0, now: t) }
        #expect(np.isTimerArmed)
        try np.perform { m, t in try m.pause(session: "s", player: 0, now: t) }
        #expect(!np.isTimerArmed, "paused: no timer")
        try np.perform { m, t in try m.play(session: "s", player: 0, now: t) }
        // Let the real timer fire (~50 ms); the fake clock stands still, so only the timer's own
        // "deadline reached" moves the model to the end of item a.
        var advanced = false
        let watchdog = try Timer(loop: loop)
        watchdog.start(after: 5000) { advanced = true }
        while !advanced {
            loop.run(.once)
            if (try? np.read({ m, t in try m.playerJSON(session: "s", player: 0, now: t) }))?["itemIndex"] == 1 { advanced = true }
        }
        watchdog.close()
        #expect(try np.read { m, t in try m.playerJSON(session: "s", player: 0, now: t) }["itemIndex"] == 1)
        np.close()
        closeLoopExpectingNoLeaks(loop)
    }
}
