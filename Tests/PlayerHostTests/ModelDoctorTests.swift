import Testing
@testable import PlayerHost

/// `arbiter.doctor`: what each entry says about a session, and half-set-up commands.
@Suite struct ModelDoctorTests {
    @Test func eachEntryNamesTheSessionsKindAndDriver() throws {
        var m = NowPlayingModel()
        try m.makeEligible("main")
        _ = try m.createSession(id: "pip", kind: .pip, now: .zero)
        _ = try m.createSession(id: "radio", kind: try SessionKind("radio"), driver: .external, now: .zero)
        let entries = try #require(try m.doctorJSON(now: .zero).arrayValue)
        #expect(entries.map { $0["session"] } == ["main", "pip", "radio"])
        #expect(entries.map { $0["kind"] } == ["main", "pip", "radio"])
        #expect(entries.map { $0["driver"] } == ["clock", "clock", "external"])
        #expect(try m.doctorJSON(session: "pip", now: .zero).arrayValue?.first?["kind"] == "pip")
    }

    @Test func halfSetUpCommandsAreWarningsEvenWhenEligible() throws {
        var m = NowPlayingModel()
        try m.makeEligible("s")
        _ = try m.addTarget(session: "s", .like, client: 3, now: .zero)
        _ = try m.enableCommand(session: "s", .bookmark, enabled: true, now: .zero)
        #expect(Eligibility(m.sessions["s"]!).isEligible)
        let faults = try m.diagnostics(session: "s", now: .zero)
        let like = try #require(faults.first { $0.code == "commandTargetedButDisabled" })
        #expect(like.severity == .warning && like.message == "like has a target but is disabled")
        #expect(like.fix.contains("command.enable s like true"))
        let bookmark = try #require(faults.first { $0.code == "commandEnabledWithoutTarget" })
        #expect(bookmark.severity == .warning && bookmark.message == "bookmark is enabled but has no target")
        #expect(bookmark.fix.contains("command.addTarget s bookmark"))
        #expect(faults.filter { $0.code.hasPrefix("command") }.count == 2, "one each, and none for complete commands")
        // Fixed halfway-ness leaves no warning.
        _ = try m.enableCommand(session: "s", .like, enabled: true, now: .zero)
        _ = try m.enableCommand(session: "s", .bookmark, enabled: false, now: .zero)
        #expect(!(try m.diagnostics(session: "s", now: .zero)).contains { $0.code.hasPrefix("command") })
    }

    @Test func anIneligibleSessionGetsTheErrorAndTheWarnings() throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "s", kind: .main, now: .zero)
        _ = try m.configureAudio(session: "s", category: .playback, now: .zero)
        _ = try m.activateAudio(session: "s", now: .zero)
        _ = try m.addTarget(session: "s", .skipForward, client: 1, now: .zero)
        let faults = try m.diagnostics(session: "s", now: .zero)
        #expect(faults.first?.code == "noAvailableCommand" && faults.first?.severity == .error)
        #expect(faults.contains { $0.severity == .warning && $0.message == "skipForward has a target but is disabled" })
    }

    @Test func anExternalSessionIsToldWhereItsTargetsComeFrom() throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "x", kind: .main, driver: .external, now: .zero)
        _ = try m.bindDefaultCommands(session: "x", now: .zero)
        _ = try m.addTarget(session: "x", .play, client: 7, now: .zero)
        let faults = try m.diagnostics(session: "x", now: .zero)
        let explained = try #require(faults.first { $0.code == "externalDriver" })
        #expect(explained.severity == .info && explained.message.contains("driven by their backend"))
        let waiting = faults.filter { $0.code == "commandEnabledWithoutTarget" }
        #expect(waiting.count == RemoteCommandKind.defaultBound.count - 1, "every enabled command but play")
        #expect(waiting.allSatisfy { $0.fix.hasPrefix("its backend must command.addTarget x") })
    }
}
