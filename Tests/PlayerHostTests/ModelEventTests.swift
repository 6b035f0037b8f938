import Testing
@testable import PlayerHost

@Suite struct ModelEventTests {
    @Test func eventsCarryTopicsAndWireJSON() throws {
        var m = NowPlayingModel()
        let created = try m.createSession(id: "s", kind: try SessionKind("radio"), now: .zero)
        #expect(created.events == [.sessionCreated("s")])
        #expect(created.value.kind == .plugin("radio"))
        let events = try m.makeEligibleAfterCreate("s")
        let np = try #require(events.first { $0.topic == "nowPlaying" })
        #expect(np.toJSON() == ["topic": "nowPlaying", "type": "nowPlayingChanged", "from": nil, "to": "s", "reason": "eligible"])
        #expect(events.contains { $0.topic == "audio" } && events.contains { $0.topic == "commands" })
        let closed = try m.closeSession("s", now: at(1))
        #expect(closed.events.first?.toJSON() == ["topic": "sessions", "type": "sessionClosed", "session": "s", "reason": "closed"])
        #expect(closed.events.contains(.nowPlayingChanged(from: "s", to: nil, reason: .closed)))
    }

    @Test func wireEnumsParseOrNameTheAcceptedValues() throws {
        #expect(try AudioCategory.parse("playback", field: "category") == .playback)
        do {
            _ = try RepeatMode.parse("twice", field: "repeatType")
            Issue.record("expected an error")
        } catch let e as ModelError {
            #expect(e.code == .invalidArgument && e.code.rawValue == 1000)
            #expect(e.detail?["accepted"] == ["off", "one", "all"])
            #expect(e.toJSON()["code"] == 1000)
        }
        #expect(CommandStatus(json: "noSuchContent") == .noSuchContent)
        #expect(CommandStatus(json: 200) == .commandFailed)
        #expect(CommandStatus(json: "maybe") == nil)
        #expect(throws: ModelError.self) { try SessionKind("bad kind!") }
    }

    @Test func failedOperationsChangeNothing() throws {
        var m = NowPlayingModel()
        try m.makeEligible("s")
        let before = m
        expectModelError(.sessionNotFound) { _ = try m.play(session: "x", now: at(5)) }
        expectModelError(.playerNotFound) { _ = try m.play(session: "s", player: 3, now: at(5)) }
        expectModelError(.invalidArgument) { _ = try m.setRate(session: "s", rate: -2, now: at(5)) }
        expectModelError(.invalidArgument) { _ = try m.load(session: "s", items: [try MediaItem(json: ["bogus": 1])], now: at(5)) }
        #expect(m == before)
    }
}

extension NowPlayingModel {
    mutating func makeEligibleAfterCreate(_ id: SessionID) throws -> [ModelEvent] {
        var e = try configureAudio(session: id, category: .playback, now: .zero).events
        e += try activateAudio(session: id, now: .zero).events
        e += try bindDefaultCommands(session: id, now: .zero).events
        return e
    }
}
