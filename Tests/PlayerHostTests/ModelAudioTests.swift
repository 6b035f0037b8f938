import Testing
@testable import PlayerHost

/// Audio sessions and interruptions, issue 3 item 4.
@Suite struct ModelAudioTests {
    @Test func anotherAppsActivationInterruptsAndNotifyOthersEndsIt() throws {
        var m = NowPlayingModel()
        _ = try m.registerApp(name: "A", client: 1, now: .zero)
        _ = try m.registerApp(name: "B", client: 2, now: .zero)
        try m.makeEligible("a", caller: .client(1))
        _ = try m.play(session: "a", now: at(1))
        #expect(m.nowPlayingSession == "a")

        _ = try m.createSession(id: "b", kind: .main, caller: .client(2), now: at(2))
        _ = try m.configureAudio(session: "b", category: .playback, now: at(2))
        _ = try m.bindDefaultCommands(session: "b", now: at(2))
        _ = try m.load(session: "b", items: [song("B1", 60)], now: at(2))
        let activate = try m.activateAudio(session: "b", now: at(3))
        #expect(activate.events.contains(.interruptionBegan("a", source: .session("b"))))
        #expect(!m.timeline("a").isPlaying, "the interrupted app's players pause")
        #expect(m.timeline("a").elapsed(at: at(10)) == 2)
        #expect(m.publishedInfo(m.sessions["a"]!).playbackState == .interrupted)
        #expect(!Eligibility(m.sessions["a"]!).isEligible)
        #expect(Eligibility(m.sessions["a"]!).reasons == ["audio session interrupted by session b"])
        _ = try m.play(session: "b", now: at(4))
        #expect(m.nowPlayingSession == "b")

        _ = try m.pause(session: "b", now: at(5))
        let off = try m.deactivateAudio(session: "b", notifyOthers: true, now: at(6))
        #expect(off.events.contains(.interruptionEnded("a", shouldResume: true)))
        #expect(m.nowPlayingSession == "a", "b is no longer eligible; a is again")
        #expect(slotChanges(off.events).map(\.2) == [.playbackStarted], "a was playing when interrupted: it resumes")
        #expect(m.timeline("a").isPlaying)
    }

    @Test func withoutNotifyOthersTheInterruptedStayInterrupted() throws {
        var m = NowPlayingModel()
        _ = try m.registerApp(name: "A", client: 1, now: .zero)
        _ = try m.registerApp(name: "B", client: 2, now: .zero)
        try m.makeEligible("a", caller: .client(1))
        try m.makeEligible("b", caller: .client(2))
        let off = try m.deactivateAudio(session: "b", now: at(1))
        #expect(!off.events.contains { if case .interruptionEnded = $0 { true } else { false } })
        #expect(m.sessions["a"]!.audio.isInterrupted)
        // Re-activating ends one's own interruption and interrupts nobody inactive.
        let again = try m.activateAudio(session: "a", now: at(2))
        #expect(!m.sessions["a"]!.audio.isInterrupted)
        #expect(!again.events.contains { if case .interruptionBegan = $0 { true } else { false } })
        #expect(m.nowPlayingSession == "a")
    }

    @Test func sameAppAndMixableSessionsDoNotInterrupt() throws {
        var m = NowPlayingModel()
        _ = try m.registerApp(name: "A", client: 1, now: .zero)
        _ = try m.registerApp(name: "B", client: 2, now: .zero)
        try m.makeEligible("main", caller: .client(1))
        let pip = try m.makeEligible("pip", kind: .pip, caller: .client(1))
        #expect(!pip.contains { if case .interruptionBegan = $0 { true } else { false } })
        _ = try m.createSession(id: "ding", kind: .main, caller: .client(2), now: .zero)
        _ = try m.configureAudio(session: "ding", category: .playback, options: [.mixWithOthers], now: .zero)
        let mix = try m.activateAudio(session: "ding", now: .zero)
        #expect(!mix.events.contains { if case .interruptionBegan = $0 { true } else { false } })
        // Dropping mixWithOthers while active interrupts, like an activation.
        let solo = try m.configureAudio(session: "ding", category: .playback, now: at(1))
        #expect(solo.events.contains(.interruptionBegan("main", source: .session("ding"))))
        #expect(solo.events.contains(.interruptionBegan("pip", source: .session("ding"))))
        expectModelError(.invalidArgument) { _ = try NowPlayingModel.parseAudioOptions(["loud"]) }
    }

    @Test func externalInterruptionActsOnAll() throws {
        var m = NowPlayingModel()
        _ = try m.registerApp(name: "A", client: 1, now: .zero)
        try m.makeEligible("a", caller: .client(1))
        try m.makeEligible("h")   // the host's own: interrupts a, so re-activate a after
        _ = try m.activateAudio(session: "a", now: .zero)
        #expect(m.sessions["h"]!.audio.isInterrupted)
        _ = try m.createSession(id: "quiet", kind: .main, now: .zero)
        _ = try m.play(session: "a", now: at(1))

        let began = m.interruptAudio(.began, now: at(2))
        #expect(began.events.contains(.interruptionBegan("a", source: .system)))
        #expect(began.events.contains(.interruptionBegan("h", source: .system)))
        #expect(!began.events.contains(.interruptionBegan("quiet", source: .system)), "inactive sessions are not interrupted")
        #expect(!m.timeline("a").isPlaying)
        expectModelError(.invalidState) { _ = try m.activateAudio(session: "a", now: at(3)) }
        #expect(m.nowPlayingSession == nil)

        let ended = m.interruptAudio(.ended, shouldResume: true, now: at(4))
        #expect(ended.events.contains(.interruptionEnded("a", shouldResume: true)))
        #expect(!ended.events.contains(.interruptionEnded("h", shouldResume: true)), "h is still interrupted by a")
        #expect(m.nowPlayingSession == "a")
        #expect(m.interruptAudio(.ended, now: at(5)).events.isEmpty)
    }

    @Test func audioJSONNamesEverything() throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "s", kind: .main, backgroundAudio: true, now: .zero)
        let a = try m.configureAudio(session: "s", category: .ambient, options: [.duckOthers], now: .zero).value
        #expect(a.toJSON() == ["category": "ambient", "options": ["duckOthers"], "active": false, "mixable": true,
                               "interrupted": false, "interruptedBy": [], "backgroundAudio": true])
    }

    // MARK: Issue 22 item 7: nobody's music stays paused by an app that went away

    /// A plugin (app B) activates and interrupts A, which was playing; the plugin exits. Its
    /// interruptions end as if it had deactivated with `notifyOthers`, and the clock player the
    /// interruption paused plays again. (Before: `ended, shouldResume: false`, and A stayed
    /// paused for good.)
    @Test func anAppThatExitsEndsItsInterruptionsAndWhatPlayedResumes() throws {
        var m = NowPlayingModel()
        _ = try m.registerApp(name: "A", client: 1, now: .zero)
        _ = try m.registerApp(name: "B", client: 2, now: .zero)
        try m.makeEligible("a", caller: .client(1))
        _ = try m.play(session: "a", now: at(1))
        try m.makeEligible("b", caller: .client(2), now: at(2))
        #expect(!m.timeline("a").isPlaying)
        #expect(m.sessions["a"]!.audio.isInterrupted)

        let gone = m.disconnectClient(2, now: at(5))
        #expect(gone.events.contains(.sessionClosed("b", reason: .appDisconnected)))
        #expect(gone.events.contains(.interruptionEnded("a", shouldResume: true)))
        #expect(m.timeline("a").isPlaying, "a was playing when interrupted: it resumes")
        #expect(m.timeline("a").elapsed(at: at(6)) == 2, "from where the interruption paused it (1 s played, then 1 s more)")
        #expect(m.nowPlayingSession == "a")
    }

    /// `session.close` releases the same way; a session that was paused when interrupted stays
    /// paused (only what the interruption paused resumes), and an external engine is left to its
    /// backend (the event says `shouldResume`; mpv's plugin resumes mpv on it).
    @Test func aClosedSessionReleasesWithShouldResumeButResumesOnlyWhatItPaused() throws {
        var m = NowPlayingModel()
        _ = try m.registerApp(name: "A", client: 1, now: .zero)
        _ = try m.registerApp(name: "B", client: 2, now: .zero)
        _ = try m.registerApp(name: "X", client: 3, now: .zero)
        try m.makeEligible("playing", caller: .client(1))
        try m.makeEligible("idle", kind: .pip, caller: .client(1))
        _ = try m.play(session: "playing", now: at(1))
        _ = try m.createSession(id: "x", kind: .main, driver: .external, caller: .client(3), now: at(1))
        _ = try m.configureAudio(session: "x", category: .playback, now: at(1))
        _ = try m.activateAudio(session: "x", now: at(1))
        #expect(m.sessions["playing"]!.audio.interruptions == [.session("x")])

        _ = try m.activateAudio(session: "playing", now: at(1))   // A takes the audio back (interrupts x)
        _ = try m.activateAudio(session: "idle", now: at(1))
        _ = try m.play(session: "playing", now: at(1))
        try m.makeEligible("b", caller: .client(2), now: at(2))
        #expect(m.sessions["x"]!.audio.interruptions == [.session("playing"), .session("idle"), .session("b")])
        let close = try m.closeSession("b", now: at(3))
        #expect(close.events.contains(.interruptionEnded("playing", shouldResume: true)))
        #expect(close.events.contains(.interruptionEnded("idle", shouldResume: true)))
        #expect(m.timeline("playing").isPlaying)
        #expect(!m.timeline("idle").isPlaying, "idle was not playing when interrupted: it stays paused")
        #expect(m.sessions["x"]!.audio.interruptions == [.session("playing"), .session("idle")], "still interrupted by A")
    }

    /// Pressing play on an interrupted session re-activates it: the interruption's record of
    /// what it paused goes, so a later end of another interruption does not restart it.
    @Test func reactivatingForgetsWhatTheInterruptionPaused() throws {
        var m = NowPlayingModel()
        _ = try m.registerApp(name: "A", client: 1, now: .zero)
        _ = try m.registerApp(name: "B", client: 2, now: .zero)
        try m.makeEligible("a", caller: .client(1))
        _ = try m.play(session: "a", now: at(1))
        try m.makeEligible("b", caller: .client(2), now: at(2))
        #expect(m.sessions["a"]!.audio.pausedByInterruption == ["a.0"])
        _ = try m.activateAudio(session: "a", now: at(3))
        #expect(m.sessions["a"]!.audio.pausedByInterruption.isEmpty)
        #expect(!m.timeline("a").isPlaying, "activating does not play")
    }
}
