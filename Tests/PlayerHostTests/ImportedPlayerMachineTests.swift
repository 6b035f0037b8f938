import Testing
@testable import PlayerHost
@testable import Plugins

/// The imported MPRIS player's machine without a bus: each row is a phase and an input, and the
/// phase and actions that follow (the import's reads, app and session; moments, refreshes and
/// publish rounds one at a time; commands, a Seek by offset from a fresh position;
/// interruptions; close). The real players keep their end-to-end suites (MPRISImportTests…).
@Suite struct ImportedPlayerMachineTests {
    typealias M = ImportedPlayerMachine
    typealias A = M.Action
    static let name = "org.mpris.MediaPlayer2.vlc"
    static let sid = JSON.string(MPRISImportMapping.sessionID(for: name))
    static let second: UInt64 = 1_000_000_000

    static let player: [String: DBusValue] = [
        "PlaybackStatus": .string("Playing"), "Position": .int64(5_000_000), "Rate": .double(1),
        "CanPlay": .boolean(true), "CanPause": .boolean(true), "CanSeek": .boolean(true), "CanControl": .boolean(false),
        "Metadata": .dictionary(["xesam:title": .string("Song"), "mpris:length": .int64(60_000_000)]),
    ]

    struct Driven {
        var m = M(busName: ImportedPlayerMachineTests.name, interruptImported: true)
        var t: UInt64 = ImportedPlayerMachineTests.second
        var last: [A] = []

        @discardableResult
        mutating func feed(_ input: M.Input, after ms: UInt64 = 0) -> [A] {
            t += ms * 1_000_000
            last = m.handle(input, now: t)
            return last
        }

        /// The tag of the last bus call made.
        var tag: Int {
            for case .call(let tag, _) in last.reversed() { return tag }
            return -1
        }

        /// Read, opened, created: ready, with `player` as its properties.
        static func ready(_ player: [String: DBusValue] = ImportedPlayerMachineTests.player) -> Driven {
            var d = Driven()
            d.feed(.start)
            d.feed(.reply(d.tag, .success([.dictionary(["Identity": .string("VLC")])])))
            d.feed(.reply(d.tag, .success([.dictionary(player)])))
            d.feed(.appOpened(.success(())))
            d.feed(.sessionCreated(.success(())))
            d.feed(.synced(error: nil))
            return d
        }
    }

    static func syncs(_ actions: [A]) -> [[String: JSON]] {
        actions.compactMap { if case .sync(let p) = $0 { p } else { nil } }
    }

    static func calls(_ actions: [A]) -> [M.BusCall] {
        actions.compactMap { if case .call(_, let c) = $0 { c } else { nil } }
    }

    static func sends(_ actions: [A], _ method: String) -> [[String: JSON]] {
        actions.compactMap { if case .hostSend(method, let p) = $0 { p } else { nil } }
    }

    // MARK: - The import

    @Test func theImportReadsBothInterfacesOpensTheAppAndCreatesTheSession() {
        var d = Driven()
        #expect(d.feed(.start) == [.call(1, .getAll(MPRISImportMapping.rootInterface))])
        #expect(d.m.phase == .readingRoot)
        #expect(d.feed(.reply(1, .success([.dictionary(["Identity": .string("VLC"), "DesktopEntry": .string("vlc")])])))
            == [.call(2, .getAll(MPRISImportMapping.playerInterface))])
        #expect(d.m.phase == .readingPlayer(identity: "VLC", desktopEntry: "vlc"))
        #expect(d.feed(.reply(2, .success([.dictionary(Self.player)]))) == [.openApp("VLC", desktopEntry: "vlc")])
        #expect(d.m.phase == .openingApp && d.m.isPlaying)
        #expect(d.feed(.appOpened(.success(()))) == [.createSession])
        let created = d.feed(.sessionCreated(.success(())))
        #expect(d.m.phase == .ready)
        #expect(created.first == .hostSend("audio.configure", ["session": Self.sid, "category": "playback"]))
        #expect(created.filter { if case .addTarget = $0 { true } else { false } }.count == MPRISImportMapping.commands.count)
        let enabled = Self.sends(created, "command.enable").compactMap { $0["command"]?.stringValue }
        #expect(enabled == ["play", "pause", "togglePlayPause", "skipForward", "skipBackward", "changePlaybackPosition"])
        // Then the first publish: the audio session (it plays), then the report at its position.
        #expect(Self.sends(created, "audio.activate") == [["session": Self.sid]])
        #expect(created.last.map { if case .sync = $0 { true } else { false } } == true)
        #expect(Self.syncs(created).first?["elapsed"] == 5.0)
        #expect(created.contains(.listen))
    }

    @Test func aPlayerWithoutIdentityIsNamedAfterItsSessionAndAFailedReadIsLogged() {
        var d = Driven()
        d.feed(.start)
        let out = d.feed(.reply(1, .failure(DBusError("org.freedesktop.DBus.Error.NoReply", "timeout"))))
        #expect(out.first == .log("\(Self.name): GetAll \(MPRISImportMapping.rootInterface): timeout"))
        #expect(d.m.phase == .readingPlayer(identity: Self.sid.stringValue ?? "", desktopEntry: nil))
    }

    @Test func noAppConnectionOrNoSessionLeavesItStuckAndLogged() {
        var d = Driven()
        d.feed(.start); d.feed(.reply(1, .success([]))); d.feed(.reply(2, .success([])))
        let failed = d.feed(.appOpened(.failure(RPCError(.limitExceeded, "too many apps"))))
        #expect(failed == [.log("\(Self.name): cannot open its app connection: too many apps")])
        guard case .stuck = d.m.phase else { return #expect(Bool(false), "\(d.m.phase)") }
        var e = Driven()
        e.feed(.start); e.feed(.reply(1, .success([]))); e.feed(.reply(2, .success([]))); e.feed(.appOpened(.success(())))
        #expect(e.feed(.sessionCreated(.failure(RPCError(.invalidParams, "exists")))) == [.log("\(Self.name): session.create: exists")])
        #expect(e.feed(.propertiesChanged(interface: MPRISImportMapping.playerInterface, changed: [:], invalidated: [])) == [],
                "not ready: a moment publishes nothing")
    }

    @Test func anAppOpenedAfterThePlayerWentIsClosed() {
        var d = Driven()
        d.feed(.start); d.feed(.reply(1, .success([]))); d.feed(.reply(2, .success([])))
        #expect(d.feed(.close) == [.closeApp])
        #expect(d.feed(.appOpened(.success(()))) == [.closeApp])
        #expect(d.m.phase == .closed)
    }

    // MARK: - Moments, refreshes, publish rounds

    static let changed = M.Input.propertiesChanged(interface: MPRISImportMapping.playerInterface,
                                                   changed: ["PlaybackStatus": .string("Paused")], invalidated: [])

    @Test func aMomentReadsPositionOnceThenPublishes() {
        var d = Driven.ready()
        #expect(Self.calls(d.feed(Self.changed)) == [.get("Position", timeoutMs: 2000)])
        let read = d.tag
        #expect(d.feed(Self.changed) == [], "a moment while the read is out waits for it")
        #expect(d.m.positionRead == .inFlight(again: true))
        #expect(Self.calls(d.feed(.reply(read, .success([.int64(7_000_000)])))) == [.get("Position", timeoutMs: 2000)],
                "one more read answers the moments that came meanwhile")
        let published = d.feed(.reply(d.tag, .success([.int64(8_000_000)])))
        #expect(Self.syncs(published).first?["elapsed"] == 8.0 && Self.syncs(published).first?["rate"] == 0.0)
    }

    @Test func onePublishRoundAtATimeAndOneMoreForWhatCameMeanwhile() {
        var d = Driven.ready()
        d.feed(.seeked(10_000_000))
        #expect(d.m.publishing == .inFlight(again: false))
        #expect(d.feed(.seeked(20_000_000)) == [])
        #expect(d.m.publishing == .inFlight(again: true))
        let next = d.feed(.synced(error: "host busy"), after: 1000)
        #expect(next.first == .log("\(Self.name): player.sync: host busy"))
        // Playing at rate 1 since the Seeked a second ago: the report says 21 s.
        #expect(Self.syncs(next).first?["elapsed"] == 21.0)
        #expect(d.feed(.synced(error: nil)) == [])
    }

    @Test func invalidatedPropertiesAreReadBackOneGetAllAtATime() {
        var d = Driven.ready()
        let invalidated = M.Input.propertiesChanged(interface: MPRISImportMapping.playerInterface, changed: [:], invalidated: ["Metadata"])
        #expect(Self.calls(d.feed(invalidated)) == [.getAll(MPRISImportMapping.playerInterface)])
        let first = d.tag
        #expect(d.feed(Self.changed) == [], "while a GetAll is out, a signal waits for it")
        #expect(Self.calls(d.feed(.reply(first, .success([.dictionary([:])])))) == [.getAll(MPRISImportMapping.playerInterface)])
        #expect(Self.calls(d.feed(.reply(d.tag, .success([.dictionary(["PlaybackStatus": .string("Stopped")])]))))
            == [.get("Position", timeoutMs: 2000)])
        let published = d.feed(.reply(d.tag, .success([.int64(0)])))
        #expect(Self.sends(published, "audio.deactivate") == [["session": Self.sid]], "Stopped: the audio session ends")
    }

    // MARK: - Commands

    @Test func aSeekByOffsetReadsAFreshPositionFirstThenPublishesWhereItPutIt() {
        var d = Driven.ready()
        let fresh = d.feed(.perform(1, ["command": "changePlaybackPosition", "position": 30.0]))
        #expect(Self.calls(fresh) == [.get("Position", timeoutMs: 500)])
        let seek = d.feed(.reply(d.tag, .success([.int64(12_000_000)])))
        #expect(Self.calls(seek) == [.method("Seek", [.int64(18_000_000)], timeoutMs: 2000)])
        let done = d.feed(.reply(d.tag, .success([])))
        #expect(Self.syncs(done).first?["elapsed"] == 30.0)
        #expect(done.last == .answer(1, .success))
    }

    @Test func aRefusedCommandIsLoggedAndFailsAndOneWithoutABusFails() {
        var d = Driven.ready()
        d.feed(.perform(1, ["command": "nextTrack"]))
        #expect(Self.calls(d.last) == [.method("Next", [], timeoutMs: 2000)])
        #expect(d.feed(.reply(d.tag, .failure(DBusError("org.mpris.Error", "no next"))))
            == [.log("\(Self.name): nextTrack: org.mpris.Error: no next"), .answer(1, .commandFailed)])
        d.feed(.perform(2, ["command": "play"]))
        #expect(d.feed(.unsent(d.tag)) == [.answer(2, .commandFailed)])
        #expect(d.feed(.perform(3, ["command": "skipForward"])) == [.answer(3, .commandFailed)], "no interval: nothing to call")
    }

    // MARK: - Interruptions and close

    static func interruption(_ what: String, resume: Bool = false) -> M.Input {
        .hostEvent(["type": "interruption", "session": sid, "interruption": .string(what), "shouldResume": .bool(resume)])
    }

    @Test func anInterruptionPausesAPlayingPlayerAndResumesOnlyWhatItPaused() {
        var d = Driven.ready()
        #expect(Self.calls(d.feed(Self.interruption("began"))) == [.method("Pause", [], timeoutMs: 2000)])
        #expect(d.m.audio == .init(active: true, interruptedByModel: true, pausedByUs: true, wasPlaying: true))
        #expect(Self.calls(d.feed(Self.interruption("ended", resume: true))) == [.method("Play", [], timeoutMs: 2000)])
        var paused = Driven.ready(Self.player.merging(["PlaybackStatus": .string("Paused")]) { _, n in n })
        #expect(paused.feed(Self.interruption("began")) == [])
        #expect(paused.feed(Self.interruption("ended", resume: true)) == [], "paused by the user: stays paused")
    }

    static func status(_ s: String) -> M.Input {
        .propertiesChanged(interface: MPRISImportMapping.playerInterface, changed: ["PlaybackStatus": .string(s)], invalidated: [])
    }

    /// One publish round: the moment's Position read answered, then `player.sync`'s reply.
    @discardableResult
    static func publishRound(_ d: inout Driven, _ input: M.Input) -> [A] {
        var actions = d.feed(input)
        if Self.calls(actions) == [.get("Position", timeoutMs: 2000)] {
            actions += d.feed(.reply(d.tag, .success([.int64(6_000_000)])))
        }
        #expect(!Self.syncs(actions).isEmpty, "the round published")
        d.feed(.synced(error: nil))
        return actions
    }

    @Test func playingAgainAfterAnInterruptionTakesTheAudioBack() {
        var d = Driven.ready()
        d.feed(Self.interruption("began"))
        #expect(Self.sends(Self.publishRound(&d, Self.status("Paused")), "audio.activate") == [])
        #expect(Self.sends(Self.publishRound(&d, Self.status("Playing")), "audio.activate") == [["session": Self.sid]])
        #expect(d.m.audio == .init(active: true, wasPlaying: true))
    }

    /// CI caught this one under load: a round that still said Playing after the interruption
    /// (a seek, a title, before the player reported our Pause) took the audio back, ending the
    /// interruption early, so its real end could not resume the player.
    @Test func aRoundStillPlayingBeforeOurPauseIsReportedDoesNotTakeTheAudioBack() {
        var d = Driven.ready()
        d.feed(Self.interruption("began"))
        #expect(Self.sends(Self.publishRound(&d, .seeked(1_000_000)), "audio.activate") == [])
        #expect(Self.sends(Self.publishRound(&d, Self.status("Paused")), "audio.activate") == [])
        #expect(d.m.audio.pausedByUs && d.m.audio.interruptedByModel)
        #expect(Self.calls(d.feed(Self.interruption("ended", resume: true))) == [.method("Play", [], timeoutMs: 2000)])
        #expect(Self.sends(Self.publishRound(&d, Self.status("Playing")), "audio.activate") == [], "still active: resumed, not re-taken")
    }

    /// Not paused by us (`interrupt_imported = false`): it plays on, interrupted, and every
    /// round is no new start; a pause and play of its own takes the audio back.
    @Test func aPlayerLeftPlayingStaysInterruptedUntilItStartsAgain() {
        var d = Driven()
        d.m = M(busName: Self.name, interruptImported: false)
        d.feed(.start)
        d.feed(.reply(d.tag, .success([.dictionary(["Identity": .string("VLC")])])))
        d.feed(.reply(d.tag, .success([.dictionary(Self.player)])))
        d.feed(.appOpened(.success(())))
        d.feed(.sessionCreated(.success(())))
        d.feed(.synced(error: nil))
        #expect(d.feed(Self.interruption("began")) == [])
        #expect(Self.sends(Self.publishRound(&d, .seeked(2_000_000)), "audio.activate") == [])
        #expect(Self.sends(Self.publishRound(&d, Self.status("Paused")), "audio.activate") == [])
        #expect(Self.sends(Self.publishRound(&d, Self.status("Playing")), "audio.activate") == [["session": Self.sid]])
    }

    @Test func closeClosesTheAppOnceAndAnswersStillCome() {
        var d = Driven.ready()
        d.feed(.perform(1, ["command": "pause"]))
        let pause = d.tag
        #expect(d.feed(.close) == [.closeApp])
        #expect(d.feed(.close) == [])
        #expect(d.feed(.reply(pause, .success([]))) == [.answer(1, .success)], "a command sent before still answers")
        #expect(d.feed(Self.changed) == [] && d.feed(.seeked(0)) == [])
        #expect(d.feed(.openUri(2, "file:///a.ogg")) == [.answerOpenUri(2, .failure(RPCError(.sessionNotFound, "\(Self.name) is gone")))])
    }

    @Test func openUriAnswersTheSessionOrTheRefusalNamingIt() {
        var d = Driven.ready()
        #expect(Self.calls(d.feed(.openUri(1, "file:///a.ogg"))) == [.method("OpenUri", [.string("file:///a.ogg")], timeoutMs: 5000)])
        #expect(d.feed(.reply(d.tag, .success([]))) == [.answerOpenUri(1, .success(["session": Self.sid]))])
        d.feed(.openUri(2, "x"))
        let refused = d.feed(.reply(d.tag, .failure(DBusError("org.mpris.Error.Bad", "no"))))
        guard case .answerOpenUri(2, .failure(let e))? = refused.first else { return #expect(Bool(false)) }
        #expect(e.data?["dbusError"] == "org.mpris.Error.Bad")
    }
}
