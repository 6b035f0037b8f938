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
        #expect(like.fix.hasPrefix(#"npctl call command.enable '{"session":"s","command":"like","enabled":true}'"#), "\(like.fix)")
        let bookmark = try #require(faults.first { $0.code == "commandEnabledWithoutTarget" })
        #expect(bookmark.severity == .warning && bookmark.message == "bookmark is enabled but has no target")
        #expect(bookmark.fix.hasPrefix(#"npctl call command.bindDefaults '{"session":"s"}', or turn it off: npctl call command.enable '{"session":"s","command":"bookmark","enabled":false}'"#), "\(bookmark.fix)")
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
        #expect(waiting.allSatisfy { $0.fix.hasPrefix("its app (the plugin or player behind it) must handle ") })
    }

    // MARK: Issue 22 item 8: fixes a person can paste, errors in words

    /// Every eligibility fix is a command line: npctl's verb where there is one
    /// (`npctl activate race`, not `audio.activate race again`), else `npctl call` with the
    /// exact JSON, quoted for the shell.
    @Test func eligibilityFixesAreCommandLines() throws {
        var m = NowPlayingModel()
        _ = try m.registerApp(name: "A", client: 1, now: .zero)
        _ = try m.createSession(id: "idle", kind: .main, now: .zero)
        _ = try m.configureAudio(session: "idle", category: .playback, now: .zero)
        _ = try m.bindDefaultCommands(session: "idle", now: .zero)
        let inactive = try #require(try m.diagnostics(session: "idle", now: .zero).first { $0.code == "audioInactive" })
        #expect(inactive.fix == "npctl activate idle, or play it: npctl play --session idle")
        #expect(inactive.severity == .warning)
        #expect(inactive.message == "audio session not active: it activates when it first plays, and cannot be Now Playing until then")

        try m.makeEligible("race", kind: .multiview)
        try m.makeEligible("other", caller: .client(1))
        let interrupted = try #require(try m.diagnostics(session: "race", now: .zero).first { $0.code == "interrupted" })
        #expect(interrupted.message == "audio session interrupted by session other")
        #expect(interrupted.fix == "npctl activate race (takes the audio back, as pressing play in it would)")
        _ = m.interruptAudio(.began, now: at(1))
        let system = try #require(try m.diagnostics(session: "other", now: at(1)).first { $0.code == "interrupted" })
        #expect(system.fix.contains(#"npctl call audio.interrupt '{"type":"ended"}'"#))

        _ = try m.createSession(id: "it's", kind: .main, now: .zero)
        _ = try m.configureAudio(session: "it's", category: .ambient, now: .zero)
        let faults = try m.diagnostics(session: "it's", now: .zero)
        #expect(faults.first { $0.code == "mixableCategory" }?.fix
                == #"npctl call audio.configure '{"session":"it'\''s","category":"playback"}'"#)
        #expect(faults.first { $0.code == "noAvailableCommand" }?.fix == #"npctl call command.bindDefaults '{"session":"it'\''s"}'"#)
        #expect(!faults.contains { $0.fix.contains("audio.activate ") || $0.fix.hasPrefix("command.") || $0.fix.hasPrefix("audio.") })
    }

    @Test func fixWordsAreQuotedForTheShell() {
        #expect(FixCommand.word("race") == "race")
        #expect(FixCommand.word("mpris-mpv.instance12") == "mpris-mpv.instance12")
        #expect(FixCommand.word("a b") == "'a b'")
        #expect(FixCommand.word("$(rm)") == "'$(rm)'")
        #expect(FixCommand.word("") == "''")
        #expect(FixCommand.word("it's") == #"'it'\''s'"#)
        // A quote with a combining mark after it is one Character, but the shell sees the quote.
        #expect(Array(FixCommand.word("a'\u{301};rm").utf8) == Array("'a'\\''\u{301};rm'".utf8))
        #expect(FixCommand.jsonString("a\"b\\c\u{1}") == #""a\"b\\c\u0001""#)
    }

    /// A command that finds nothing to do says so in words; the code stays in the reply.
    @Test func commandOutcomesNameWhatHappenedInWords() throws {
        var m = NowPlayingModel()
        try m.makeEligible("mpv", items: [song("Only", 60)])
        guard case .finished(let next) = try m.sendCommand(.nextTrack, session: "mpv", now: at(1)).value else {
            Issue.record("nextTrack did not finish at once"); return
        }
        #expect(next.status == .noSuchContent)
        #expect(next.message == "no next item in the queue of mpv")
        #expect(next.toJSON()["status"] == "noSuchContent")
        #expect(next.toJSON()["message"] == "no next item in the queue of mpv")
        #expect(CommandOutcome.describe(.previousTrack, .noSuchContent, session: "mpv") == "no previous item in the queue of mpv")
        #expect(CommandOutcome.describe(.pause, .noActionableNowPlayingItem, session: "pip") == "pip has no current item to pause")
        #expect(CommandOutcome.describe(.play, .commandFailed, session: "radio")
                == "radio could not play (its player or app reported a failure, or did not answer in time)")
        guard case .finished(let ok) = try m.sendCommand(.pause, session: "mpv", now: at(2)).value else { return }
        #expect(ok.message == nil && ok.toJSON()["message"] == nil)
    }
}
