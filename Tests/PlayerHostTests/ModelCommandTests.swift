import Testing
@testable import PlayerHost
@testable import PlayerHostModel

/// Command centers, issue 3 items 9 and 10, and the external-target protocol.
@Suite struct ModelCommandTests {
    func model() throws -> NowPlayingModel {
        var m = NowPlayingModel()
        try m.makeEligible("s")
        return m
    }

    @Test func commandsStartDisabledAndUntargeted() throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "s", kind: .main, now: .zero)
        let c = m.sessions["s"]!.commandCenter
        #expect(RemoteCommandKind.allCases.allSatisfy { !c[$0].isEnabled && c[$0].targets.isEmpty })
        #expect(c[.skipForward].configuration.preferredIntervals == [15])
        #expect(RemoteCommandKind.allCases.count == 21, "SPEC's table and changeVolume")
        let json = c[.skipForward].toJSON()
        #expect(json["preferredIntervals"] == [15.0])
        #expect(json["isEnabled"] == false)
    }

    // Item 10: refused before any handler runs, and nothing changes.
    @Test func disabledAndUntargetedCommandsAreDistinctErrors() throws {
        var m = try model()
        _ = try m.addTarget(session: "s", .like, client: 4, now: .zero)
        let before = m
        expectModelError(.commandDisabled) { _ = try m.sendCommand(.like, session: "s", now: at(1)) }
        #expect(m == before, "no handler ran, no state changed")
        _ = try m.enableCommand(session: "s", .bookmark, enabled: true, now: .zero)
        expectModelError(.commandHasNoTarget) { _ = try m.sendCommand(.bookmark, session: "s", now: at(1)) }
        _ = try m.enableCommand(session: "s", .play, enabled: false, now: .zero)
        expectModelError(.commandDisabled) { _ = try m.sendCommand(.play, session: "s", now: at(1)) }
        #expect(!m.timeline("s").isPlaying)
        expectModelError(.sessionNotFound) { _ = try m.sendCommand(.play, session: "nope", now: at(1)) }
        expectModelError(.invalidArgument) { _ = try RemoteCommandKind.parse("jump") }
    }

    // Item 10: an external handler that timed out is reported as commandFailed by the host.
    @Test func externalTargetsAreDrivenThroughTheHost() throws {
        var m = try model()
        let first = try m.addTarget(session: "s", .like, client: 8, now: .zero).value
        let second = try m.addTarget(session: "s", .like, client: 9, now: .zero).value
        _ = try m.enableCommand(session: "s", .like, enabled: true, now: .zero)

        let sent = try m.sendCommand(.like, session: "s", payload: ["extra": "kept"], now: at(1))
        guard case .awaiting(let d1) = sent.value else { Issue.record("expected awaiting"); return }
        let call = try #require(invocations(sent).first)
        #expect(call == d1.awaiting)
        #expect(call.client == 8 && call.token == first && call.session == "s")
        #expect(call.toJSON() == ["command": "like", "session": "s", "token": .int(Int64(first)), "isNegative": false, "extra": "kept"])
        #expect(!sent.events.contains { if case .commandHandled = $0 { true } else { false } })

        let r1 = try m.resumeCommand(d1, status: .commandFailed, now: at(2))
        guard case .awaiting(let d2) = r1.value else { Issue.record("the second target still runs"); return }
        #expect(d2.awaiting?.client == 9 && d2.awaiting?.token == second)
        let r2 = try m.resumeCommand(d2, status: .success, now: at(3))
        guard case .finished(let out) = r2.value else { Issue.record("expected finished"); return }
        #expect(out.status == .commandFailed, "the first non-success status wins")
        #expect(out.statuses == [.commandFailed, .success])
        #expect(out.toJSON() == ["session": "s", "command": "like", "status": "commandFailed",
                                 "message": "s could not like the item (its player or app reported a failure, or did not answer in time)"])
        #expect(r2.events.contains(.commandHandled(out)))
        expectModelError(.invalidState) { _ = try m.resumeCommand(d2.finishedCopy(), status: .success, now: at(4)) }
    }

    @Test func builtinAndExternalTargetsRunInOrder() throws {
        var m = try model()
        _ = try m.addTarget(session: "s", .play, client: 3, now: .zero)
        let sent = try m.sendCommand(.play, session: "s", now: at(1))
        #expect(m.timeline("s").isPlaying, "the built-in target ran before the external one")
        guard case .awaiting(let d) = sent.value else { Issue.record("expected awaiting"); return }
        let done = try m.resumeCommand(d, status: .noSuchContent, now: at(2))
        guard case .finished(let out) = done.value else { Issue.record("expected finished"); return }
        #expect(out.status == .noSuchContent)
        #expect(out.statuses == [.success, .noSuchContent])
    }

    @Test func disconnectedClientLosesItsTargets() throws {
        var m = try model()
        let t = try m.addTarget(session: "s", .rating, client: 11, now: .zero).value
        _ = try m.addTarget(session: "s", .rating, client: 12, now: .zero)
        let r = m.disconnectClient(11, now: at(1))
        let targets = m.sessions["s"]!.commandCenter[.rating].targets
        #expect(!targets.contains { $0.token == t } && targets.count == 1)
        #expect(r.events.contains { if case .commandChanged("s", let c) = $0 { c.kind == .rating } else { false } })
    }

    @Test func removeTargetByTokenOrAll() throws {
        var m = try model()
        let mine = try m.addTarget(session: "s", .play, client: 1, now: .zero).value
        let theirs = try m.addTarget(session: "s", .play, client: 2, now: .zero).value
        expectModelError(.notOwner) { _ = try m.removeTarget(session: "s", .play, token: theirs, caller: .client(1), now: .zero) }
        expectModelError(.targetNotFound) { _ = try m.removeTarget(session: "s", .pause, token: mine, now: .zero) }
        _ = try m.removeTarget(session: "s", .play, token: mine, caller: .client(1), now: .zero)
        #expect(m.sessions["s"]!.commandCenter[.play].targets.count == 2)
        _ = try m.removeTarget(session: "s", .play, token: nil, now: .zero)
        #expect(m.sessions["s"]!.commandCenter[.play].targets.isEmpty)
        #expect(!m.sessions["s"]!.commandCenter[.play].isAvailable)
        expectModelError(.commandHasNoTarget) { _ = try m.sendCommand(.play, session: "s", now: .zero) }
    }

    // Item 9.
    @Test func skipUsesTheSendersIntervalOrPreferredIntervalsFirst() throws {
        var m = try model()
        _ = try m.configureCommand(session: "s", .skipForward, properties: ["preferredIntervals": [30, 10]], now: .zero)
        _ = try m.sendCommand(.skipForward, session: "s", now: .zero)
        #expect(m.timeline("s").elapsed(at: .zero) == 30)
        _ = try m.sendCommand(.skipForward, session: "s", payload: ["interval": 5], now: .zero)
        #expect(m.timeline("s").elapsed(at: .zero) == 35)
        _ = try m.sendCommand(.skipBackward, session: "s", now: .zero)
        #expect(m.timeline("s").elapsed(at: .zero) == 20, "skipBackward's own default is 15")

        // An external handler receives the filled-in interval.
        _ = try m.removeTarget(session: "s", .skipForward, token: nil, now: .zero)
        _ = try m.addTarget(session: "s", .skipForward, client: 2, now: .zero)
        let r = try m.sendCommand(.skipForward, session: "s", now: .zero)
        #expect(invocations(r).first?.event.interval == 30)
        let r2 = try m.sendCommand(.skipForward, session: "s", payload: ["interval": 7.5], now: .zero)
        #expect(invocations(r2).first?.toJSON()["interval"] == 7.5)
        expectModelError(.invalidArgument) { _ = try m.sendCommand(.skipForward, session: "s", payload: ["interval": -1], now: .zero) }
    }

    @Test func payloadsAreValidatedAgainstConfiguration() throws {
        var m = try model()
        _ = try m.play(session: "s", now: .zero)
        let before = m
        expectModelError(.invalidArgument) { _ = try m.sendCommand(.changePlaybackRate, session: "s", payload: ["rate": 3], now: at(1)) }
        expectModelError(.invalidArgument) { _ = try m.sendCommand(.changePlaybackRate, session: "s", now: at(1)) }
        expectModelError(.invalidArgument) { _ = try m.sendCommand(.changePlaybackPosition, session: "s", now: at(1)) }
        expectModelError(.invalidArgument) {
            _ = try m.configureCommand(session: "s", .play, properties: ["preferredIntervals": [1]], now: at(1))
        }
        #expect(m == before)
        _ = try m.sendCommand(.changePlaybackRate, session: "s", payload: ["rate": 2], now: at(1))
        #expect(m.timeline("s").rate == 2 && m.timeline("s").defaultRate == 2)
        _ = try m.sendCommand(.changePlaybackPosition, session: "s", payload: ["position": 50], now: at(1))
        #expect(m.timeline("s").elapsed(at: at(2)) == 52)

        _ = try m.addTarget(session: "s", .changeRepeatMode, client: 1, now: .zero)
        _ = try m.enableCommand(session: "s", .changeRepeatMode, enabled: true, now: .zero)
        expectModelError(.invalidArgument) {
            _ = try m.sendCommand(.changeRepeatMode, session: "s", payload: ["repeatType": "sometimes"], now: at(2))
        }
        let ok = try m.sendCommand(.changeRepeatMode, session: "s", payload: ["repeatType": "all"], now: at(2))
        #expect(invocations(ok).count == 1)
    }

    @Test func transportCommandsDriveThePlayer() throws {
        var m = try model()
        _ = try m.sendCommand(.togglePlayPause, session: "s", now: at(0))
        #expect(m.timeline("s").isPlaying)
        _ = try m.sendCommand(.nextTrack, session: "s", now: at(1))
        #expect(m.timeline("s").currentItem?.title == "B")
        let atEnd = try m.sendCommand(.nextTrack, session: "s", now: at(2))
        guard case .finished(let out) = atEnd.value else { Issue.record("expected finished"); return }
        #expect(out.status == .noSuchContent)
        _ = try m.sendCommand(.previousTrack, session: "s", now: at(3))
        #expect(m.timeline("s").currentItem?.title == "A")
        _ = try m.sendCommand(.stop, session: "s", now: at(4))
        #expect(m.publishedInfo(m.sessions["s"]!).playbackState == .stopped)

        var empty = NowPlayingModel()
        try empty.makeEligible("e", items: [])
        let r = try empty.sendCommand(.play, session: "e", now: .zero)
        guard case .finished(let o) = r.value else { Issue.record("expected finished"); return }
        #expect(o.status == .noActionableNowPlayingItem)
    }

    @Test func bindDefaultsIsIdempotent() throws {
        var m = try model()
        let again = try m.bindDefaultCommands(session: "s", now: .zero)
        #expect(again.value[.play].targets.count == 1)
        #expect(again.value.availableCommands == RemoteCommandKind.allCases.filter(RemoteCommandKind.defaultBound.contains))
        #expect(again.value[.changeRepeatMode].isAvailable && again.value[.changeShuffleMode].isAvailable)
        #expect(!again.value[.rating].isEnabled, "only the commands the players can carry out")
    }

    /// The repeat and shuffle commands' configuration among `events`.
    func modeChanges(_ events: [ModelEvent]) -> [RemoteCommand] {
        events.compactMap {
            if case .commandChanged(_, let c) = $0, c.kind == .changeRepeatMode || c.kind == .changeShuffleMode { return c }
            return nil
        }
    }

    @Test func repeatAndShuffleCommandsSetThePlayersModes() throws {
        var m = try model()
        let repeated = try m.sendCommand(.changeRepeatMode, session: "s", payload: ["repeatType": "all"], now: at(1))
        guard case .finished(let o) = repeated.value else { Issue.record("built in: finished"); return }
        #expect(o.status == .success)
        #expect(m.timeline("s").repeatMode == .all)
        #expect(modeChanges(repeated.events).map(\.configuration.currentRepeatType) == [.all])
        // Repeat all is real: the end of the queue wraps to the first item.
        _ = try m.sendCommand(.nextTrack, session: "s", now: at(1))
        _ = try m.sendCommand(.play, session: "s", now: at(1))
        _ = m.advance(to: at(52))
        #expect(m.timeline("s").currentIndex == 0 && m.timeline("s").isPlaying)

        let shuffled = try m.sendCommand(.changeShuffleMode, session: "s", payload: ["shuffleType": "items"], now: at(2))
        #expect(m.timeline("s").shuffleMode == .items)
        #expect(modeChanges(shuffled.events).map(\.configuration.currentShuffleType) == [.items])
        #expect(m.sessions["s"]!.commandCenter[.changeRepeatMode].configuration.currentRepeatType == .all)
        expectModelError(.invalidArgument) {
            _ = try m.sendCommand(.changeRepeatMode, session: "s", payload: ["repeatType": "twice"], now: at(3))
        }

        // Multi-view: every player follows the command.
        var mv = NowPlayingModel()
        try mv.makeEligible("race", kind: .multiview)
        _ = try mv.sendCommand(.changeRepeatMode, session: "race", payload: ["repeatType": "one"], now: at(1))
        #expect((0..<4).allSatisfy { mv.timeline("race", $0).repeatMode == .one })
    }

    @Test func currentTypesFollowPlayerZeroWhicheverWayItsModesChange() throws {
        var m = try model()
        let set = try m.setRepeat(session: "s", .one, now: at(1))
        #expect(modeChanges(set.events).map(\.configuration.currentRepeatType) == [.one])
        #expect(try m.setRepeat(session: "s", .one, now: at(2)).events.isEmpty, "no change, no event")
        _ = try m.setShuffle(session: "s", .collections, now: at(3))
        let center = m.sessions["s"]!.commandCenter
        #expect(center[.changeShuffleMode].configuration.currentShuffleType == .collections)
        #expect(center[.changeRepeatMode].configuration.currentRepeatType == .one)

        // An app's own configuration stands until its player's mode changes.
        _ = try m.configureCommand(session: "s", .changeRepeatMode, properties: ["currentRepeatType": "all"], now: at(4))
        _ = try m.play(session: "s", now: at(4))
        #expect(m.sessions["s"]!.commandCenter[.changeRepeatMode].configuration.currentRepeatType == .all)
        _ = try m.setRepeat(session: "s", .off, now: at(5))
        #expect(m.sessions["s"]!.commandCenter[.changeRepeatMode].configuration.currentRepeatType == .off)

        // Only player 0 counts.
        var mv = NowPlayingModel()
        try mv.makeEligible("race", kind: .multiview)
        #expect(modeChanges(try mv.setRepeat(session: "race", player: 2, .all, now: at(1)).events).isEmpty)

        // An external engine's reported modes too.
        var x = NowPlayingModel()
        try x.makeExternal("x")
        let synced = try x.syncPlayer(session: "x", state: PlayerSync(repeatMode: .all, shuffleMode: .items), now: at(1))
        #expect(modeChanges(synced.events).count == 2)
        let xc = x.sessions["x"]!.commandCenter
        #expect(xc[.changeRepeatMode].configuration.currentRepeatType == .all)
        #expect(xc[.changeShuffleMode].configuration.currentShuffleType == .items)
    }

    @Test func bindDefaultsStartsFromThePlayersModes() throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "s", kind: .main, now: .zero)
        // Before binding, the player's mode changes already show (nothing else would say so).
        _ = try m.setRepeat(session: "s", .all, now: .zero)
        _ = try m.configureCommand(session: "s", .changeRepeatMode, properties: ["currentRepeatType": "off"], now: .zero)
        let center = try m.bindDefaultCommands(session: "s", now: .zero).value
        #expect(center[.changeRepeatMode].configuration.currentRepeatType == .all)
        #expect(center[.changeRepeatMode].isAvailable && center[.changeShuffleMode].isAvailable)
    }
}

extension CommandDispatch {
    /// The same dispatch with nothing awaited (as if already resumed).
    func finishedCopy() -> CommandDispatch {
        var d = self
        d.awaiting = nil
        return d
    }
}
