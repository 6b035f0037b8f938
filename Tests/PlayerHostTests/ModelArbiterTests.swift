import Testing
@testable import PlayerHost
@testable import PlayerHostModel

/// Issue 3, items 1, 2, 3 and 5: eligibility, PiP promotion, multi-view, MRU fallback.
@Suite struct ModelArbiterTests {
    // Item 1.
    @Test func playbackActiveAndTargetedIsEligible() throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "s", kind: .main, now: .zero)
        _ = try m.configureAudio(session: "s", category: .playback, now: .zero)
        _ = try m.activateAudio(session: "s", now: .zero)
        let r = try m.addTarget(session: "s", .play, client: 7, now: .zero)
        #expect(!Eligibility(m.sessions["s"]!).isEligible, "a target alone is not enough: isEnabled is false until set")
        let e = try m.enableCommand(session: "s", .play, enabled: true, now: .zero)
        #expect(e.events.contains(.canBecomeActiveChanged("s", canBecomeActive: true)))
        #expect(e.events.contains(.activeChanged("s", isActive: true)), "the first eligible session of an app is its active one")
        #expect(r.value > 0)
        #expect(try m.becomeActiveIfPossible("s", now: .zero).value == BecomeActiveResult(active: true, reason: nil))
    }

    /// `Eligibility.isEligible` (no reasons built: what reconciliation asks) agrees with the full
    /// `Eligibility` on every combination of the conditions.
    @Test func theQuickAnswerAgreesWithTheFullOneEverywhere() throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "s", kind: .main, now: .zero)
        let base = try #require(m.sessions["s"])
        var seen = (eligible: 0, not: 0)
        for category in AudioCategory.allCases {
            for options in [[], [AudioOption.mixWithOthers], [.duckOthers], [.mixWithOthers, .duckOthers]] as [Set<AudioOption>] {
                for active in [false, true] {
                    for interruptions in [[], [InterruptionSource.system]] as [Set<InterruptionSource>] {
                        for (enabled, targeted) in [(false, false), (true, false), (false, true), (true, true)] {
                            var s = base
                            s.audio.category = category
                            s.audio.options = options
                            s.audio.isActive = active
                            s.audio.interruptions = interruptions
                            if enabled { s.commandCenter.setEnabled(.play, true) }
                            if targeted { s.commandCenter.addTarget(.play, CommandTarget(token: 1, handler: .external(7))) }
                            let full = Eligibility(s).isEligible
                            #expect(Eligibility.isEligible(s) == full, "\(category) \(options) active \(active) \(interruptions) \(enabled)/\(targeted)")
                            if full { seen.eligible += 1 } else { seen.not += 1 }
                        }
                    }
                }
            }
        }
        #expect(seen.eligible > 0 && seen.not > 0)
    }

    @Test(arguments: [
        ("ambient", "category ambient is mixable: never Now Playing"),
        ("mix", "option mixWithOthers makes the audio session mixable: never Now Playing"),
        ("inactive", "audio session not active"),
        ("disabled", "no available command: skipForward has a target but is disabled"),
        ("untargeted", "no available command: play is enabled but has no target"),
    ])
    func eachFailureIsNamed(_ variant: String, _ reason: String) throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "s", kind: .main, now: .zero)
        _ = try m.configureAudio(session: "s", category: variant == "ambient" ? .ambient : .playback,
                             options: variant == "mix" ? [.mixWithOthers] : [], now: .zero)
        if variant != "inactive" { _ = try m.activateAudio(session: "s", now: .zero) }
        switch variant {
        case "disabled":
            _ = try m.addTarget(session: "s", .skipForward, client: 1, now: .zero)
        case "untargeted":
            _ = try m.enableCommand(session: "s", .play, enabled: true, now: .zero)
        default:
            _ = try m.bindDefaultCommands(session: "s", now: .zero)
        }
        let r = try m.becomeActiveIfPossible("s", now: .zero)
        #expect(r.value.active == false)
        #expect(r.value.reason == reason)
        #expect(r.events.isEmpty, "a refused promotion changes nothing")
        let x = try #require(m.explain(now: .zero).first)
        #expect(x.eligibility.reasons == [reason])
        #expect(!x.isActive && !x.isNowPlaying)
        #expect(x.nowPlayingReason.contains(reason))
        let faults = try m.diagnostics(session: "s", now: .zero)
        if variant == "inactive" {
            // Not yet played: inactive by design (issue 22), a warning that says so.
            let f = try #require(faults.first { $0.code == "audioInactive" })
            #expect(f.message.hasPrefix(reason + ": it activates when it first plays") && f.severity == .warning)
        } else {
            #expect(faults.first?.message == reason && faults.first?.severity == .error)
        }
    }

    @Test func everyFailingConditionIsListed() throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "s", kind: .main, now: .zero)
        _ = try m.configureAudio(session: "s", category: .ambient, options: [.duckOthers], now: .zero)
        #expect(Eligibility(m.sessions["s"]!).reasons == [
            "category ambient is mixable: never Now Playing",
            "option duckOthers implies mixWithOthers: never Now Playing",
            "audio session not active",
            "no available command: no command is enabled and targeted",
        ])
    }

    // Item 2.
    @Test func pipPromotionMovesNowPlayingAndCommands() throws {
        var m = NowPlayingModel()
        let app = try m.registerApp(name: "TV", client: 1, now: .zero).value
        try m.makeEligible("main", caller: .client(1))
        try m.makeEligible("pip", kind: .pip, caller: .client(1))
        #expect(m.sessions["pip"]!.app == app.id)
        #expect(m.isActive("main") && !m.isActive("pip"))
        _ = try m.play(session: "main", now: at(1))
        #expect(m.nowPlayingSession == "main")

        let promote = try m.becomeActiveIfPossible("pip", now: at(2))
        #expect(promote.value.active)
        #expect(slotChanges(promote.events).map(\.2) == [.promoted])
        #expect(m.nowPlayingSession == "pip")
        #expect(promote.events.contains(.activeChanged("pip", isActive: true)))
        #expect(promote.events.contains(.activeChanged("main", isActive: false)))

        _ = try m.pause(session: "main", now: at(3))
        let sent = try m.sendCommand(.play, now: at(4))
        guard case .finished(let outcome) = sent.value else { Issue.record("expected finished"); return }
        #expect(outcome.session == "pip" && outcome.status == .success)
        #expect(m.timeline("pip").isPlaying)
        #expect(!m.timeline("main").isPlaying, "main's targets did not run")

        let back = try m.becomeActiveIfPossible("main", now: at(5))
        #expect(back.value.active)
        #expect(m.nowPlayingSession == "main")
        #expect(slotChanges(back.events).map { $0.1 } == ["main"])
        let toMain = try m.sendCommand(.togglePlayPause, now: at(6))
        guard case .finished(let o2) = toMain.value else { Issue.record("expected finished"); return }
        #expect(o2.session == "main")
        #expect(m.timeline("main").isPlaying)
    }

    // Item 3.
    @Test func multiviewFansTransportOutToFourPlayers() throws {
        var m = NowPlayingModel()
        let created = try m.createSession(id: "race", kind: .multiview, now: .zero)
        #expect(created.value.playerIDs.count == 4)
        expectModelError(.invalidArgument) { _ = try m.createSession(id: "bad", kind: .multiview, playerCount: 2, now: .zero) }
        _ = try m.configureAudio(session: "race", category: .playback, now: .zero)
        _ = try m.activateAudio(session: "race", now: .zero)
        _ = try m.bindDefaultCommands(session: "race", now: .zero)
        for i in 0..<4 { _ = try m.load(session: "race", player: i, items: [song("Cam \(i)", 3600)], now: .zero) }
        let play = try m.sendCommand(.play, session: "race", now: at(1))
        #expect((0..<4).allSatisfy { m.timeline("race", $0).isPlaying })
        #expect(play.events.filter { if case .playerChanged = $0 { true } else { false } }.count == 4)
        _ = try m.sendCommand(.pause, session: "race", now: at(2))
        #expect((0..<4).allSatisfy { !m.timeline("race", $0).isPlaying && m.timeline("race", $0).elapsed(at: at(9)) == 1 })
    }

    @Test func playerBelongsToOneSession() throws {
        var m = NowPlayingModel()
        _ = try m.createPlayer(id: "p", now: .zero)
        _ = try m.createSession(id: "a", kind: .main, adopting: ["p"], now: .zero)
        expectModelError(.playerInUse) { _ = try m.createSession(id: "b", kind: .main, adopting: ["p"], now: .zero) }
        expectModelError(.playerNotFound) { _ = try m.createSession(id: "b", kind: .main, adopting: ["nope"], now: .zero) }
        expectModelError(.sessionExists) { _ = try m.createSession(id: "a", kind: .main, now: .zero) }
        #expect(m.sessions["b"] == nil)
        _ = try m.closeSession("a", now: .zero)
        #expect(m.players["p"]?.session == nil, "an adopted player is detached, not destroyed")
        _ = try m.createSession(id: "b", kind: .main, adopting: ["p"], now: .zero)
    }

    // Item 5.
    @Test func closingTheHolderHandsTheSlotToTheMostRecentlyActive() throws {
        var m = NowPlayingModel()
        _ = try m.registerApp(name: "A", client: 1, now: .zero)
        _ = try m.registerApp(name: "B", client: 2, now: .zero)
        _ = try m.registerApp(name: "C", client: 3, now: .zero)
        try m.makeEligible("a", caller: .client(1))
        #expect(m.nowPlayingSession == "a", "an empty slot goes to the first eligible session")
        _ = try m.play(session: "a", now: at(1))
        // B's non-mixable activation interrupts A, which loses eligibility and the slot.
        let b = try m.makeEligible("b", caller: .client(2), now: at(2))
        #expect(slotChanges(b).map(\.2) == [.ineligible, .eligible], "empty while b has no command yet")
        _ = try m.play(session: "b", now: at(3))
        try m.makeEligible("c", caller: .client(3), now: at(4))
        let cPlays = try m.play(session: "c", now: at(5))
        #expect(m.nowPlayingSession == "c")
        #expect(slotChanges(cPlays.events).isEmpty, "c already held the slot once a and b were interrupted")

        // Closing c releases b (a is still interrupted by b), which takes the slot.
        let close = try m.closeSession("c", now: at(6))
        #expect(close.events.contains(.interruptionEnded("b", shouldResume: true)))
        #expect(!close.events.contains { if case .interruptionEnded("a", _) = $0 { true } else { false } })
        #expect(slotChanges(close.events).map { [$0.0, $0.1] } == [["c", "b"]])
        // b was playing when c interrupted it: it resumes, and so takes the slot by playing.
        #expect(slotChanges(close.events).map(\.2) == [.playbackStarted])

        let gone = m.disconnectClient(2, now: at(7))
        #expect(gone.events.contains(.sessionClosed("b", reason: .appDisconnected)))
        #expect(gone.events.contains(.interruptionEnded("a", shouldResume: true)))
        #expect(slotChanges(gone.events).map(\.2) == [.playbackStarted], "a resumes: it was playing when b interrupted it")
        #expect(m.nowPlayingSession == "a")
        #expect(m.apps["b"] == nil)

        _ = try m.closeSession("a", now: at(8))
        #expect(m.nowPlayingSession == nil)
        #expect(m.nowPlaying(at: at(9)) == nil)
        #expect(m.nowPlayingJSON(now: at(9)) == .null)
        expectModelError(.noNowPlayingSession) { _ = try m.sendCommand(.play, now: at(9)) }
    }

    @Test func pausedHolderKeepsTheSlotUntilAnotherAppPlays() throws {
        var m = NowPlayingModel()
        _ = try m.registerApp(name: "A", client: 1, now: .zero)
        _ = try m.registerApp(name: "B", client: 2, now: .zero)
        try m.makeEligible("a", caller: .client(1))
        _ = try m.play(session: "a", now: at(1))
        _ = try m.pause(session: "a", now: at(2))
        // The host's own session (a script's) is another app too; it mixes, so it interrupts nobody.
        _ = try m.createSession(id: "h", kind: .main, now: at(3))
        _ = try m.configureAudio(session: "h", category: .ambient, now: at(3))
        _ = try m.activateAudio(session: "h", now: at(3))
        _ = try m.play(session: "a", now: at(4))
        #expect(m.nowPlayingSession == "a")
        let x = try #require(m.explain(now: at(5)).first { $0.session == "a" })
        #expect(x.isNowPlaying && x.nowPlayingReason.hasPrefix("Now Playing:"))
        let h = try #require(m.explain(now: at(5)).first { $0.session == "h" })
        #expect(h.nowPlayingReason.contains("category ambient is mixable"))
    }

    @Test func ineligibleHolderHandsTheSlotWithinItsApp() throws {
        var m = NowPlayingModel()
        _ = try m.registerApp(name: "A", client: 1, now: .zero)
        try m.makeEligible("main", caller: .client(1))
        try m.makeEligible("pip", kind: .pip, caller: .client(1))
        _ = try m.play(session: "main", now: at(1))
        #expect(m.nowPlayingSession == "main")
        let r = try m.enableCommand(session: "main", .play, enabled: false, now: at(2))
        #expect(m.nowPlayingSession == "main", "other commands are still available")
        #expect(r.events.contains { if case .commandChanged("main", let c) = $0 { c.kind == .play && !c.isEnabled } else { false } })
        var last: [ModelEvent] = []
        for k in RemoteCommandKind.defaultBound { last = try m.enableCommand(session: "main", k, enabled: false, now: at(3)).events }
        #expect(m.nowPlayingSession == "pip")
        #expect(slotChanges(last).map(\.2) == [.ineligible])
        #expect(last.contains(.canBecomeActiveChanged("main", canBecomeActive: false)))
        let x = m.explain(now: at(3)).first { $0.session == "main" }!
        #expect(x.eligibility.reasons == ["no available command: " + RemoteCommandKind.allCases.filter(RemoteCommandKind.defaultBound.contains).map {
            "\($0.rawValue) has a target but is disabled" }.joined(separator: "; ")])
    }

    @Test func disconnectKeepsBackgroundAudioSessionsUnderTheHost() throws {
        var m = NowPlayingModel()
        _ = try m.registerApp(name: "Radio", client: 5, now: .zero)
        try m.makeEligible("radio", caller: .client(5), backgroundAudio: true)
        try m.makeEligible("video", caller: .client(5))
        _ = try m.play(session: "radio", now: at(1))
        let token = try m.addTarget(session: "radio", .like, client: 5, now: at(1)).value
        let r = m.disconnectClient(5, now: at(2))
        #expect(r.events.contains(.sessionOwnerChanged("radio", from: "radio", to: NowPlayingModel.hostApp)))
        #expect(r.events.contains(.sessionClosed("video", reason: .appDisconnected)))
        #expect(m.sessions["radio"]?.app == NowPlayingModel.hostApp)
        #expect(m.timeline("radio").isPlaying, "background audio keeps running")
        #expect(m.nowPlayingSession == "radio")
        #expect(slotChanges(r.events).isEmpty)
        #expect(!m.sessions["radio"]!.commandCenter[.like].targets.contains { $0.token == token },
                "a disconnected client loses its targets")
    }

    @Test func ownershipIsChecked() throws {
        var m = NowPlayingModel()
        _ = try m.registerApp(name: "A", client: 1, now: .zero)
        _ = try m.registerApp(name: "B", client: 2, now: .zero)
        _ = try m.createSession(id: "a", kind: .main, caller: .client(1), now: .zero)
        expectModelError(.notOwner) { _ = try m.closeSession("a", caller: .client(2), now: .zero) }
        _ = try m.closeSession("a", caller: .client(99), now: .zero)
        #expect(m.sessions["a"] == nil, "a connection that is not an app acts as the host")
    }

    @Test func resignActiveHandsOverWithinTheApp() throws {
        var m = NowPlayingModel()
        try m.makeEligible("main")
        try m.makeEligible("pip", kind: .pip)
        _ = try m.play(session: "main", now: at(1))
        let r = try m.resignActive("main", now: at(2))
        #expect(r.value == BecomeActiveResult(active: false, reason: nil))
        #expect(m.nowPlayingSession == "pip")
        #expect(slotChanges(r.events).map(\.2) == [.promoted])
        let alone = try m.resignActive("pip", now: at(3))
        #expect(alone.value.active == false, "main takes over again")
        _ = try m.closeSession("main", now: at(4))
        let last = try m.resignActive("pip", now: at(5))
        #expect(last.value.active && last.value.reason != nil)
    }
}
