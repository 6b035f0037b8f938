import Testing
@testable import PlayerHost

/// The model's cost per operation does not grow with the number of sessions: counted, not timed.
@Suite struct ModelScaleTests {
    /// 10 000 eligible sessions; then each operation on one session re-evaluates a handful.
    @Test func anOperationOnOneOf10000SessionsReevaluatesOnlyWhatItTouches() throws {
        var m = NowPlayingModel()
        m.limits.sessionsPerApp = 20_000
        let n = 10_000
        for i in 0..<n {
            let id = "s\(i)"
            _ = try m.createSession(id: id, kind: .main, now: .zero)
            _ = try m.configureAudio(session: id, category: .playback, now: .zero)
            _ = try m.activateAudio(session: id, now: .zero)
            _ = try m.bindDefaultCommands(session: id, now: .zero)
        }
        #expect(m.sessions.count == n)
        #expect(m.nowPlayingSession == "s0")

        func reevaluated(_ body: (inout NowPlayingModel) throws -> Void) rethrows -> Int {
            let before = m.reevaluations.value
            try body(&m)
            return m.reevaluations.value - before
        }
        let mid = "s\(n / 2)"
        #expect(try reevaluated { _ = try $0.load(session: mid, items: [song("A", 100)], now: at(1)) } == 1)
        // Promoting it moves the host app's active session from s0 to it: two sessions change.
        #expect(try reevaluated { _ = try $0.becomeActiveIfPossible(mid, now: at(2)) } == 2)
        #expect(m.nowPlayingSession == mid)
        #expect(try reevaluated { _ = try $0.play(session: mid, now: at(2)) } == 1)
        #expect(try reevaluated { _ = try $0.seek(session: mid, to: 10, now: at(3)) } == 1)
        #expect(try reevaluated { _ = try $0.sendCommand(.pause, session: mid, now: at(4)) } == 1)
        // Closing the Now Playing session re-evaluates it and hands the slot on: O(1) sessions.
        #expect(reevaluated { _ = try? $0.closeSession(mid, now: at(5)) } <= 2)
        #expect(m.nowPlayingSession != nil && m.nowPlayingSession != mid)
        // Reads touch nothing.
        #expect(reevaluated { _ = $0.nowPlayingJSON(now: at(6)); _ = try? $0.sessionJSON("s1", now: at(6)) } == 0)
        // A failed operation re-evaluates nothing and changes nothing.
        let before = m
        #expect(reevaluated { _ = try? $0.play(session: "s7", now: at(5)) } == 0)
        #expect(m == before)
    }

    /// Item ends are found in a heap: with 10 000 sessions of which one plays, the next
    /// deadline is that one's, and reaching it re-evaluates that session alone.
    @Test func aDeadlineAmong10000SessionsTouchesOnlyItsSession() throws {
        var m = NowPlayingModel()
        m.limits.sessionsPerApp = 20_000
        for i in 0..<10_000 {
            _ = try m.createSession(id: "s\(i)", kind: .main, now: .zero)
        }
        _ = try m.load(session: "s42", items: [song("A", 10), song("B", 10)], now: .zero)
        _ = try m.play(session: "s42", now: .zero)
        #expect(m.nextDeadline == at(10))
        let before = m.reevaluations.value
        let r = m.advance(to: at(10))
        #expect(m.reevaluations.value - before == 1)
        #expect(m.timeline("s42").currentIndex == 1)
        #expect(r.actions.contains(.rearmTimer(at(20))))
    }

    /// Issue 16: one item 1 µs long on repeat, playing, used to spin the daemon. Repeats are
    /// computed from the clock: ten seconds later is one step, not ten million.
    @Test func aMicrosecondItemOnRepeatIsCaughtUpFromTheClockInOneStep() throws {
        var m = NowPlayingModel()
        try m.makeEligible("s", items: [song("tick", 0.000_001)])
        _ = try m.setRepeat(session: "s", .one, now: .zero)
        _ = try m.play(session: "s", now: .zero)
        #expect(m.nextDeadline == MonotonicInstant(nanoseconds: 1_000))
        let before = m.reevaluations.value
        let r = m.advance(to: MonotonicInstant(nanoseconds: 10_000_000_500))
        #expect(m.reevaluations.value - before == 1, "one step, one re-evaluation")
        #expect(r.events.filter { if case .playerChanged = $0 { return true } else { return false } }.count == 1)
        let t = m.timeline("s")
        #expect(t.isPlaying)
        #expect(t.anchorTime == MonotonicInstant(nanoseconds: 10_000_000_000), "the last repetition began at a whole period")
        #expect(m.nextDeadline == MonotonicInstant(nanoseconds: 10_000_001_000))
    }

    /// Repeat all skips whole cycles of the queue the same way, landing on the right item.
    @Test func aShortQueueOnRepeatAllSkipsWholeCycles() throws {
        var m = NowPlayingModel()
        try m.makeEligible("s", items: [song("a", 0.000_001), song("b", 0.000_002)])
        _ = try m.setRepeat(session: "s", .all, now: .zero)
        _ = try m.play(session: "s", now: .zero)
        // A cycle is 3 µs; 3 000 001.5 µs is 1 000 000 cycles and 1.5 µs: "a" ended 0.5 µs ago.
        _ = m.advance(to: MonotonicInstant(nanoseconds: 3_000_001_500))
        let t = m.timeline("s")
        #expect(t.currentItem?.title == "b")
        #expect(t.anchorTime == MonotonicInstant(nanoseconds: 3_000_001_000))
        #expect(t.isPlaying)
    }
}

extension ModelScaleTests {
    /// `arbiter.explain` and `doctor` for one session read that session and its app's active
    /// session from the arbiter: the same answer as the full listing, without it.
    @Test func explainingOneSessionMatchesTheFullListing() throws {
        var m = NowPlayingModel()
        try m.makeEligible("a")
        try m.makeEligible("b")
        _ = try m.createSession(id: "c", kind: .main, now: .zero)
        let all = try m.explainJSON(now: .zero)
        for (i, id) in ["a", "b", "c"].enumerated() {
            let one = try m.explainJSON(session: id, now: .zero)
            #expect(one["sessions"]?.arrayValue?.first == all["sessions"]?.arrayValue?[i])
            #expect(one["nowPlaying"] == "a")
        }
        expectModelError(.sessionNotFound) { _ = try m.explainJSON(session: "nope", now: .zero) }
    }

    /// A departing app's sessions go a slice at a time (the host runs one slice per loop turn),
    /// oldest first, background ones handed to the host; the app goes with `disconnectClient`.
    @Test func aDisconnectReleasesSessionsInSlices() throws {
        var m = NowPlayingModel()
        m.limits.sessionsPerApp = 1_000
        _ = try m.registerApp(name: "Many", client: 7, now: .zero)
        for i in 0..<150 {
            _ = try m.createSession(id: "s\(i)", kind: .main, backgroundAudio: i == 3, caller: .client(7), now: .zero)
        }
        var slices: [[ModelEvent]] = []
        var more = true
        while more {
            let r = m.releaseSessions(ofClient: 7, limit: 64, now: at(1))
            slices.append(r.events)
            more = r.value
            #expect(slices.count <= 3, "150 sessions are three slices of 64")
            if slices.count > 3 { break }
        }
        let closed = slices.map { $0.compactMap { if case .sessionClosed(let id, .appDisconnected) = $0 { return id } else { return nil } } }
        #expect(closed.map(\.count) == [63, 64, 22])
        #expect(closed[0].first == "s0" && closed[2].last == "s149", "oldest first")
        #expect(slices[0].contains(.sessionOwnerChanged("s3", from: "many", to: NowPlayingModel.hostApp)))
        #expect(m.apps["many"] != nil, "the app stays until disconnectClient")
        let gone = m.disconnectClient(7, now: at(2))
        #expect(gone.events.contains(.appRemoved("many")))
        #expect(m.sessions.count == 1 && m.sessions["s3"]?.app == NowPlayingModel.hostApp)
    }

    /// Sessions created without an id are named `main`, `main-2`, `main-3`…, the lowest free
    /// suffix; finding it no longer tries every taken name (it did: 2 000 took 0.64 s and the next
    /// 4 000 took 4.0 s in a release daemon). Counted in ids tried, not timed.
    @Test func defaultIDsCostTheSameForTheTenThousandthSession() throws {
        var m = NowPlayingModel()
        m.limits.sessionsPerApp = 20_000
        let n = 10_000
        for _ in 0..<n { _ = try m.createSession(kind: .main, now: .zero) }
        #expect(m.sessions["main"] != nil && m.sessions["main-\(n)"] != nil && m.sessions.count == n)
        #expect(m.defaultIDProbes <= 3 * n, "at most a few ids tried per create: \(m.defaultIDProbes)")
        // The lowest free name comes back, then the search goes on where it was.
        _ = try m.closeSession("main-500", now: at(1))
        _ = try m.closeSession("main-20", now: at(1))
        var before = m.defaultIDProbes
        #expect(try m.createSession(kind: .main, now: at(2)).value.id == "main-20")
        #expect(try m.createSession(kind: .main, now: at(2)).value.id == "main-500")
        #expect(try m.createSession(kind: .main, now: at(2)).value.id == "main-\(n + 1)")
        // Ids that are not default ones are never handed out, even once closed.
        _ = try m.createSession(id: "main-1", kind: .main, now: at(3))
        _ = try m.createSession(id: "main-05", kind: .main, now: at(3))
        _ = try m.closeSession("main-1", now: at(3))
        _ = try m.closeSession("main-05", now: at(3))
        // A failed create (here: 17 players) leaves the name it would have taken free.
        _ = try m.closeSession("main-7", now: at(3))
        #expect(throws: ModelError.self) { try m.createSession(kind: .main, playerCount: 17, now: at(3)) }
        #expect(try m.createSession(kind: .main, now: at(3)).value.id == "main-7")
        // An explicit id in the default pattern is skipped, not reused.
        _ = try m.closeSession("main-9", now: at(4))
        _ = try m.createSession(id: "main-9", kind: .pip, now: at(4))
        before = m.defaultIDProbes
        #expect(try m.createSession(kind: .main, now: at(4)).value.id == "main-\(n + 2)")
        #expect(m.defaultIDProbes - before < 20)
        #expect(try m.createSession(kind: .pip, now: at(4)).value.id == "pip")
    }
}
