import Testing
@testable import PlayerHost

extension NowPlayingModel {
    /// An eligible external session whose backend (`backend`) handles every default command.
    mutating func makeExternal(_ id: SessionID, backend: ClientID = 7, caller: Caller = .host,
                               now: MonotonicInstant = .zero) throws {
        _ = try createSession(id: id, kind: .main, driver: .external, caller: caller, now: now)
        _ = try configureAudio(session: id, category: .playback, now: now)
        _ = try activateAudio(session: id, now: now)
        _ = try bindDefaultCommands(session: id, now: now)
        for k in RemoteCommandKind.defaultBound { _ = try addTarget(session: id, k, client: backend, now: now) }
    }

    mutating func sync(_ id: SessionID, _ state: PlayerSync, _ now: MonotonicInstant) throws -> [ModelEvent] {
        try syncPlayer(session: id, state: state, now: now).events
    }
}

/// The published infos among `events`.
func infoEvents(_ events: [ModelEvent]) -> [PublishedInfo] {
    events.compactMap { if case .infoChanged(_, let p) = $0 { return p } else { return nil } }
}

/// Externally driven players in the model: only `syncPlayer` moves them.
@Suite struct ExternalPlayerTests {
    let queue = [song("A", 100), song("B", 50)]

    @Test func syncReanchorsExactlyAndReadsInferFromTheReport() throws {
        var m = NowPlayingModel()
        try m.makeExternal("x")
        let loaded = try m.sync("x", PlayerSync(items: queue), at(1))
        let first = try #require(infoEvents(loaded).last)
        #expect(first.info.title == "A" && first.info.elapsed == 0 && first.info.rate == 0)
        #expect(first.playbackState == .paused)

        let started = try m.sync("x", PlayerSync(elapsed: 10, rate: 1), at(2))
        let info = try #require(infoEvents(started).last)
        #expect(info.info.elapsed == 10 && info.info.rate == 1)
        #expect(info.timestamp == at(2) && info.playbackState == .playing)
        #expect(m.timeline("x").anchorElapsed == 10 && m.timeline("x").anchorTime == at(2))
        #expect(m.nowPlaying(at: at(7))?.info.elapsed == 15)
        #expect(try m.playerJSON(session: "x", now: at(7))["elapsed"]?.doubleValue == 15)

        // Re-anchors to exactly what the engine says, even against the inferred position.
        let corrected = try m.sync("x", PlayerSync(elapsed: 14.5), at(7))
        #expect(infoEvents(corrected).last?.info.elapsed == 14.5)
        #expect(infoEvents(corrected).last?.timestamp == at(7))
        #expect(m.nowPlaying(at: at(9))?.info.elapsed == 16.5)
    }

    @Test func neverAdvancesOnItsOwnNoDeadlineNoAutoAdvance() throws {
        var m = NowPlayingModel()
        try m.makeExternal("x")
        _ = try m.sync("x", PlayerSync(items: queue), .zero)
        let playing = try m.syncPlayer(session: "x", state: PlayerSync(rate: 1), now: at(1))
        #expect(m.nextDeadline == nil)
        #expect(!playing.actions.contains { if case .rearmTimer(.some) = $0 { true } else { false } })
        // Long past the item's end: still item 0, clamped to its duration, nothing emitted.
        let later = m.advance(to: at(500))
        #expect(later.events.isEmpty && later.actions.isEmpty)
        #expect(m.timeline("x").currentIndex == 0 && m.timeline("x").isPlaying)
        #expect(m.nowPlaying(at: at(500))?.info.elapsed == 100)
        // The same queue on a clock player would have a deadline: the difference is the driver.
        try m.makeEligible("c", caller: .client(2))
        _ = try m.play(session: "c", now: at(500))
        #expect(m.nextDeadline == at(600))
    }

    @Test func noEventBetweenSyncsAndAnAgreeingSyncEmitsNothing() throws {
        var m = NowPlayingModel()
        try m.makeExternal("x")
        let report = PlayerSync(items: queue, index: 0, elapsed: 5, rate: 1, status: .ready)
        _ = try m.sync("x", report, at(1))
        let before = m
        // The same report again, and later reports that agree with what readers infer.
        #expect(try m.sync("x", report, at(1)).isEmpty)
        #expect(m.advance(to: at(30)).events.isEmpty)
        #expect(try m.sync("x", PlayerSync(elapsed: 34, rate: 1), at(30)).isEmpty)
        #expect(try m.sync("x", PlayerSync(index: 0, status: .ready, repeatMode: .off, shuffleMode: .off), at(31)).isEmpty)
        #expect(try m.sync("x", PlayerSync(), at(32)).isEmpty)
        #expect(m.players == before.players && m.sessions == before.sessions)
        // A disagreeing one is a key moment.
        #expect(!infoEvents(try m.sync("x", PlayerSync(elapsed: 40), at(33))).isEmpty)
    }

    @Test func playbackStateFollowsReportedRateAndStatus() throws {
        var m = NowPlayingModel()
        try m.makeExternal("x")
        func state() -> PlaybackState { m.publishedInfo(m.sessions["x"]!).playbackState }
        #expect(state() == .stopped)
        _ = try m.sync("x", PlayerSync(items: queue), at(1))
        #expect(state() == .paused)
        _ = try m.sync("x", PlayerSync(rate: 1), at(2))
        #expect(state() == .playing)
        // Loading: media time stands still, whatever the engine's nominal speed.
        let loading = try m.sync("x", PlayerSync(elapsed: 3, rate: 1, status: .loading), at(3))
        #expect(state() == .paused)
        #expect(infoEvents(loading).last?.info.rate == 0)
        #expect(m.nowPlaying(at: at(9))?.info.elapsed == 3)
        _ = try m.sync("x", PlayerSync(rate: 1.5, status: .ready), at(4))
        #expect(state() == .playing)
        #expect(m.nowPlaying(at: at(6))?.info.elapsed == 6)
        _ = try m.sync("x", PlayerSync(status: .failed), at(5))
        #expect(state() == .stopped)
        #expect(try m.diagnostics(session: "x", now: at(5)).contains { $0.code == "playerFailed" })
        _ = try m.sync("x", PlayerSync(items: []), at(6))
        #expect(state() == .stopped && m.timeline("x").status == .idle)
        // An interruption is shown, but the engine's pause is the backend's to report.
        _ = try m.sync("x", PlayerSync(items: queue, rate: 1), at(7))
        _ = m.interruptAudio(.began, now: at(8))
        #expect(m.timeline("x").isPlaying)
        _ = try m.sync("x", PlayerSync(rate: 0), at(8))
        #expect(state() == .interrupted)
    }

    @Test func trackChangesAndDurationsFromTheEngine() throws {
        var m = NowPlayingModel()
        try m.makeExternal("x")
        _ = try m.sync("x", PlayerSync(items: [MediaItem(title: "live?"), song("B", 50)], elapsed: 7, rate: 1), at(1))
        // The engine learned the duration after loading.
        let learned = try m.sync("x", PlayerSync(duration: 80), at(2))
        #expect(infoEvents(learned).last?.info.duration == 80)
        // Re-sending the same queue without durations keeps the learned one.
        #expect(try m.sync("x", PlayerSync(items: [MediaItem(title: "live?"), song("B", 50)]), at(3)).isEmpty)
        // Another item without elapsed starts at 0, with its full metadata.
        let next = try #require(infoEvents(try m.sync("x", PlayerSync(index: 1), at(4))).last)
        #expect(next.info.title == "B" && next.info.elapsed == 0 && next.info.duration == 50 && next.info.rate == 1)
        #expect(next.info[.queueIndex] == .integer(1))
    }

    @Test func adRangesStillApply() throws {
        var m = NowPlayingModel()
        try m.makeExternal("x")
        let ad = NowPlayingInfo([.adTimeRanges: .timeRanges([TimeRange(start: 0, end: 10)])])
        let published = try #require(infoEvents(try m.sync("x", PlayerSync(items: [song("A", 100, info: ad)], elapsed: 4, rate: 1), at(1))).last)
        #expect(published.info.duration == 90 && published.info.elapsed == 0 && published.info.rate == 0)
        let content = try #require(infoEvents(try m.sync("x", PlayerSync(elapsed: 30), at(2))).last)
        #expect(content.info.elapsed == 20 && content.info.rate == 1)
    }

    @Test func directPlayerOperationsAreRefused() throws {
        var m = NowPlayingModel()
        try m.makeExternal("x")
        _ = try m.sync("x", PlayerSync(items: queue), .zero)
        let before = m
        let ops: [(inout NowPlayingModel) throws -> Void] = [
            { _ = try $0.play(session: "x", now: at(1)) }, { _ = try $0.pause(session: "x", now: at(1)) },
            { _ = try $0.stop(session: "x", now: at(1)) }, { _ = try $0.seek(session: "x", to: 5, now: at(1)) },
            { _ = try $0.setRate(session: "x", rate: 2, now: at(1)) }, { _ = try $0.next(session: "x", now: at(1)) },
            { _ = try $0.previous(session: "x", now: at(1)) }, { _ = try $0.load(session: "x", items: [], now: at(1)) },
            { _ = try $0.setRepeat(session: "x", .all, now: at(1)) }, { _ = try $0.setShuffle(session: "x", .items, now: at(1)) },
            { _ = try $0.setDefaultRate(session: "x", rate: 2, now: at(1)) },
        ]
        for op in ops { expectModelError(.invalidState) { try op(&m) } }
        #expect(m == before)
        do {
            _ = try m.play(session: "x", now: at(1))
        } catch let e as ModelError {
            #expect(e.message.contains("driven by its backend: send a command or player.sync"))
        }
        // And the other way round: the host drives clock players, so no one reports for them.
        try m.makeEligible("c")
        expectModelError(.invalidState) { _ = try m.syncPlayer(session: "c", state: PlayerSync(rate: 1), now: at(1)) }
    }

    @Test func invalidReportsChangeNothing() throws {
        var m = NowPlayingModel()
        try m.makeExternal("x")
        expectModelError(.invalidArgument) { _ = try m.sync("x", PlayerSync(elapsed: 3), at(1)) }
        _ = try m.sync("x", PlayerSync(items: queue), .zero)
        let before = m
        for bad in [PlayerSync(index: 2), PlayerSync(elapsed: -1), PlayerSync(rate: .nan), PlayerSync(duration: .infinity),
                    PlayerSync(status: .idle), PlayerSync(items: [], status: .ready)] {
            expectModelError(.invalidArgument) { _ = try m.sync("x", bad, at(1)) }
        }
        #expect(m == before)
        expectModelError(.playerNotFound) { _ = try m.syncPlayer(session: "x", player: 1, state: PlayerSync(), now: at(1)) }
    }

    @Test func commandsReachTheBackendNotTheModel() throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "x", kind: .main, driver: .external, now: .zero)
        let center = try m.bindDefaultCommands(session: "x", now: .zero).value
        #expect(RemoteCommandKind.defaultBound.allSatisfy { center[$0].isEnabled && center[$0].targets.isEmpty })
        expectModelError(.commandHasNoTarget) { _ = try m.sendCommand(.play, session: "x", now: .zero) }
        _ = try m.sync("x", PlayerSync(items: queue), .zero)
        _ = try m.addTarget(session: "x", .play, client: 7, now: .zero)
        let sent = try m.sendCommand(.play, session: "x", now: at(1))
        guard case .awaiting(let d) = sent.value else { Issue.record("the backend is asked"); return }
        #expect(invocations(sent).first?.client == 7)
        _ = try m.resumeCommand(d, status: .success, now: at(2))
        #expect(!m.timeline("x").isPlaying, "the engine plays, then reports")
        _ = try m.sync("x", PlayerSync(rate: 1), at(2))
        #expect(m.timeline("x").isPlaying)
        // Doctor explains the split, and names the commands the backend has not taken yet.
        let faults = try m.diagnostics(session: "x", now: at(2))
        #expect(faults.contains { $0.code == "externalDriver" && $0.severity == .info })
        #expect(faults.contains { $0.code == "commandEnabledWithoutTarget" && $0.message == "pause is enabled but has no target" })
        #expect(!faults.contains { $0.message.hasPrefix("play is") })
    }

    @Test func aSyncedPlaybackStartCountsForTheArbiterLikeAClockPlayer() throws {
        var m = NowPlayingModel()
        let app = try m.registerApp(name: "mpv", client: 2, now: .zero).value.id
        try m.makeExternal("x", backend: 2, caller: .client(2))
        _ = try m.sync("x", PlayerSync(items: queue), at(1))
        #expect(m.nowPlayingSession == "x" && m.apps[app]?.lastPlaybackStart == nil)
        _ = try m.sync("x", PlayerSync(rate: 1), at(2))
        // Recency is what lets an app take the slot from a paused holder.
        #expect(m.apps[app]?.lastPlaybackStart != nil)
        #expect(m.nowPlaying(at: at(3))?.playbackState == .playing)
        #expect(m.explain(now: at(3)).first?.nowPlayingReason.contains("paused") == false)
    }
}

/// External players through the protocol (an embedded host): a backend client reports, a
/// sender commands.
@Suite(.serialized) struct ExternalPlayerOverSocketTests {
    func daemon() throws -> EmbeddedHost {
        EmbeddedHost()
    }

    /// An eligible external session whose backend `c` handles play and pause.
    func makeExternal(_ c: EmbeddedClient, _ id: String) throws {
        let created = try c.call("session.create", ["id": .string(id), "kind": "main", "driver": "external"])
        #expect(created["driver"] == "external")
        try c.call("audio.configure", ["session": .string(id), "category": "playback"])
        try c.call("audio.activate", ["session": .string(id)])
        try c.call("command.bindDefaults", ["session": .string(id)])
        for k in ["play", "pause"] { try c.call("command.addTarget", ["session": .string(id), "command": .string(k)]) }
    }

    func rpcCode(_ e: any Error) -> Int? {
        guard case .rpc(let r) = e as? ClientError else { return nil }
        return r.code
    }

    @Test func backendReportsPlayerOperationsAreRefused() throws {
        let d = try daemon()
        defer { d.close() }
        let backend = try d.client()
        try makeExternal(backend, "mpv")
        let items: JSON = [["title": "Magnificent", "duration": 324], ["title": "Moment of Surrender", "duration": 444]]
        let synced = try backend.call("player.sync", ["session": "mpv", "items": items, "elapsed": 60, "rate": 1])
        #expect(synced["rate"]?.doubleValue == 1 && synced["status"] == "ready" && synced["queueCount"] == 2)
        let now = try backend.call("nowPlaying.get")
        #expect(now["session"] == "mpv" && now["playbackState"] == "playing" && now["info"]?["title"] == "Magnificent")
        let elapsed = try #require(now["info"]?["elapsed"]?.doubleValue)
        #expect(elapsed >= 60 && elapsed < 70, "inferred from the report")

        #expect { try backend.call("player.play", ["session": "mpv"]) } throws: { e in
            guard case .rpc(let r) = e as? ClientError else { return false }
            return r.code == RPCErrorCode.invalidState.rawValue && r.message.contains("driven by its backend")
        }
        #expect { try backend.call("player.seek", ["session": "mpv", "position": 3]) } throws: {
            rpcCode($0) == RPCErrorCode.invalidState.rawValue
        }
        #expect { try backend.call("player.sync", ["session": "mpv", "index": 5]) } throws: {
            rpcCode($0) == RPCErrorCode.invalidArgument.rawValue
        }
        #expect { try backend.call("player.sync", ["session": "mpv", "status": "buffering"]) } throws: {
            rpcCode($0) == RPCErrorCode.invalidArgument.rawValue
        }
        #expect { try backend.call("session.create", ["id": "bad", "kind": "main", "driver": "mpv"]) } throws: {
            rpcCode($0) == RPCErrorCode.invalidArgument.rawValue
        }
        let doctor = try backend.call("arbiter.doctor", ["session": "mpv"]).arrayValue?.first
        #expect(doctor?["kind"] == "main" && doctor?["driver"] == "external")
        let codes = doctor?["faults"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        #expect(codes.contains("externalDriver") && codes.contains("commandEnabledWithoutTarget"))
    }

    @Test func onlyKeyMomentsArePublished() throws {
        let d = try daemon()
        defer { d.close() }
        let backend = try d.client()
        try makeExternal(backend, "mpv")
        try backend.call("player.sync", ["session": "mpv", "items": [["title": "A", "duration": 100]]])
        let watcher = try d.client()
        try watcher.call("events.subscribe", ["topics": ["info"]])
        try backend.call("player.sync", ["session": "mpv", "elapsed": 10, "rate": 1])
        let started = try watcher.nextNotification(timeout: 5)
        #expect(started["params"]?["type"] == "infoChanged" && started["params"]?["playbackState"] == "playing")
        #expect(started["params"]?["info"]?["elapsed"]?.doubleValue == 10)
        // A report that changes nothing, and time passing, publish nothing.
        try backend.call("player.sync", ["session": "mpv", "rate": 1, "status": "ready"])
        #expect(throws: ClientError.self) { try watcher.nextNotification(timeout: 0.3) }
        try backend.call("player.sync", ["session": "mpv", "rate": 0, "elapsed": 12])
        let paused = try watcher.nextNotification(timeout: 5)
        #expect(paused["params"]?["playbackState"] == "paused" && paused["params"]?["info"]?["elapsed"]?.doubleValue == 12)
    }

    @Test func aCommandReachesTheBackendWhichActsThenReports() throws {
        let d = try daemon()
        defer { d.close() }
        let backend = try d.client()
        let remote = try d.client()
        try makeExternal(backend, "mpv")
        try backend.call("player.sync", ["session": "mpv", "items": [["title": "A", "duration": 100]]])
        var line: [UInt8] = []
        RPCEncoder.request(method: "command.send", params: ["command": "play"], id: 5, into: &line)
        try remote.send(line)
        let handle = try backend.readMessage()
        #expect(handle["method"] == "command.handle" && handle["params"]?["command"] == "play")
        // Answered, the command changed nothing by itself: the engine has not reported yet.
        try backend.send(Array((#"{"jsonrpc":"2.0","result":"success","id":\#(handle["id"]!.jsonString)}"# + "\n").utf8))
        #expect(try remote.readMessage()["result"]?["status"] == "success")
        #expect(try remote.call("player.get", ["session": "mpv"])["rate"]?.doubleValue == 0)
        try backend.call("player.sync", ["session": "mpv", "rate": 1])
        #expect(try remote.call("nowPlaying.get")["playbackState"] == "playing")
    }
}
