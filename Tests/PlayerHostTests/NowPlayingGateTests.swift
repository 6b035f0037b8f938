import Testing
@testable import PlayerHost
@testable import PlayerHostModel

/// Issue 8: the gate alone (manual clock, exact window boundaries) and the gate fed by the real
/// model, as the Publisher feeds it.
@Suite struct NowPlayingGateTests {
    typealias Action = NowPlayingGate.Action

    func ms(_ m: Double) -> MonotonicInstant { MonotonicInstant(nanoseconds: UInt64(m * 1_000_000)) }

    func value(_ title: String?, artist: String? = "Artist", session: SessionID = "s", rate: Double = 1,
               elapsed: Double = 0, at t: MonotonicInstant = .zero, url: String? = nil) -> NowPlayingSnapshot {
        var info = NowPlayingInfo()
        if let title { info[.title] = .text(LocalizedString(title)) }
        if let artist { info[.artist] = .text(LocalizedString(artist)) }
        if let url { info[.assetURL] = .text(LocalizedString(url)) }
        info[.rate] = .number(rate)
        info[.elapsed] = .number(elapsed)
        return NowPlayingSnapshot(session: session, info: info, playbackState: rate > 0 ? .playing : .paused, timestamp: t)
    }

    func sentTitles(_ actions: [Action]) -> [String?] {
        actions.compactMap { if case .send(let v) = $0 { return .some(v?.info.title) } else { return nil } }
    }

    // MARK: Coalescing

    @Test func twentyChangesInFiveMillisecondsGoOutAsTheFirstAndTheLast() {
        var g = NowPlayingGate()
        var sent: [String?] = []
        var armed: [MonotonicInstant] = []
        for i in 0..<20 {
            let a = g.offer(value("t\(i)"), now: ms(Double(i) * 0.25))
            sent += sentTitles(a)
            armed += a.compactMap { if case .arm(let d) = $0 { return d } else { return nil } }
        }
        #expect(sent == ["t0"], "the first at once, the rest wait")
        #expect(armed == [ms(250)], "one timer, for the end of the window opened by the first send")
        #expect(g.windowClosed(at: ms(249.999)).isEmpty, "not a nanosecond early")
        #expect(sentTitles(g.windowClosed(at: ms(250))) == ["t19"])
        #expect(g.deadline == nil && g.pending == nil, "nothing pending: nothing armed")
        #expect(g.counters == .init(offered: 20, sent: 2, coalesced: 18, droppedIdentical: 0, placeholdersBlocked: 0))
    }

    /// (offer instant in ms, title) → what goes out at once; the window is 100 ms.
    @Test(arguments: [
        // A change exactly at the window's end is quiet again: out at once.
        ([(0.0, "a"), (100.0, "b")], ["a", "b"], nil as Double?),
        // One nanosecond before the end it waits for the end.
        ([(0.0, "a"), (99.999999, "b")], ["a"], 100.0),
        // After a send at the window's end a new window starts there.
        // A timer late past the window: the next offer sends what waited first, and a new window
        // starts at that send.
        ([(0.0, "a"), (50.0, "b"), (150.0, "c")], ["a", "b"], 250.0),
        // A change back to the published value cancels the wait.
        ([(0.0, "a"), (10.0, "b"), (20.0, "a")], ["a"], nil),
        // Long quiet gaps: every change at once.
        ([(0.0, "a"), (500.0, "b"), (1000.0, "c")], ["a", "b", "c"], nil),
    ] as [([(Double, String)], [String], Double?)])
    func windowBoundaries(offers: [(Double, String)], immediate: [String], armedAt: Double?) {
        var g = NowPlayingGate(.init(coalesceMilliseconds: 100))
        var sent: [String?] = []
        var deadline: MonotonicInstant?
        for (t, title) in offers {
            for a in g.offer(value(title), now: ms(t)) {
                switch a {
                case .send(let v): sent.append(v?.info.title)
                case .arm(let d): deadline = d
                case .disarm: deadline = nil
                }
            }
        }
        #expect(sent == immediate.map { Optional($0) })
        #expect(deadline == armedAt.map(ms))
    }

    @Test func coalesceZeroSendsEveryChangeAndArmsNothing() {
        var g = NowPlayingGate(.init(coalesceMilliseconds: 0))
        var all: [Action] = []
        for i in 0..<20 { all += g.offer(value("t\(i)"), now: ms(Double(i) * 0.25)) }
        #expect(sentTitles(all) == (0..<20).map { "t\($0)" })
        #expect(!all.contains { if case .arm = $0 { return true } else { return false } })
    }

    @Test func aLateTimerStillSendsAndALaterOfferClosesAnOverdueWindow() {
        var g = NowPlayingGate(.init(coalesceMilliseconds: 100))
        _ = g.offer(value("a"), now: ms(0))
        #expect(g.offer(value("b"), now: ms(10)) == [.arm(ms(100))])
        // The timer is late; an offer past the deadline first sends what waited.
        let a = g.offer(value("c"), now: ms(130))
        #expect(sentTitles(a) == ["b"])
        #expect(a.last == .arm(ms(230)), "c waits for the window that b's send opened")
    }

    // MARK: Dedupe

    @Test func identicalRenderingsSendNothing() {
        var g = NowPlayingGate(.init(coalesceMilliseconds: 0))
        #expect(sentTitles(g.offer(value("a", rate: 0, elapsed: 5, at: at(1)), now: at(1))) == ["a"])
        // Paused, re-anchored later at the same position: the same rendering.
        #expect(g.offer(value("a", rate: 0, elapsed: 5, at: at(9)), now: at(9)).isEmpty)
        // Playing: an anchor moved along its own line is the same line.
        #expect(sentTitles(g.offer(value("a", rate: 1, elapsed: 5, at: at(10)), now: at(10))) == ["a"])
        #expect(g.offer(value("a", rate: 1, elapsed: 8, at: at(13)), now: at(13)).isEmpty)
        // A real jump is a change.
        #expect(sentTitles(g.offer(value("a", rate: 1, elapsed: 30, at: at(14)), now: at(14))) == ["a"])
        #expect(g.counters.droppedIdentical == 2)
        // The empty slot too: sent once.
        #expect(g.offer(nil, now: at(20)) == [.send(nil)])
        #expect(g.offer(nil, now: at(21)).isEmpty)
    }

    // MARK: Placeholder guard

    @Test(arguments: NowPlayingGate.Configuration.defaultPlaceholders + ["  loading…  ", "CONNECTING..."])
    func aPlaceholderNeverReplacesTheRealTitleOrArtist(placeholder: String) {
        var g = NowPlayingGate(.init(coalesceMilliseconds: 0))
        _ = g.offer(value("Real", artist: "Band"), now: at(0))
        #expect(g.offer(value(placeholder, artist: "Band"), now: at(1)).isEmpty, "nothing to show: the real title stays")
        #expect(g.offer(value("Real", artist: placeholder), now: at(2)).isEmpty)
        #expect(g.counters.placeholdersBlocked == 2)
        // What a reader sees of the model's current value keeps the real one.
        #expect(g.guarded(value(placeholder, artist: placeholder)).info.title == "Real")
        #expect(g.guarded(value(placeholder, artist: placeholder)).info.text(.artist) == "Band")
        // Other changes still go out, with the real title.
        let paused = g.offer(value(placeholder, rate: 0, elapsed: 3, at: at(3)), now: at(3))
        #expect(sentTitles(paused) == ["Real"])
    }

    @Test func aNewItemShowsItsPlaceholderThenItsRealTitle() {
        var g = NowPlayingGate(.init(coalesceMilliseconds: 0))
        _ = g.offer(value("Real", url: "http://a"), now: at(0))
        #expect(sentTitles(g.offer(value("Loading…", url: "http://b"), now: at(1))) == ["Loading…"],
                "nothing real to protect on a new item")
        #expect(sentTitles(g.offer(value("Next", url: "http://b"), now: at(2))) == ["Next"])
        #expect(g.offer(value("", url: "http://b"), now: at(3)).isEmpty)
        // Another session has its own memory.
        #expect(sentTitles(g.offer(value("Loading...", session: "other"), now: at(4))) == ["Loading..."])
        #expect(g.counters.placeholdersBlocked == 1)
    }

    @Test func aConfiguredListReplacesTheDefault() {
        var g = NowPlayingGate(.init(coalesceMilliseconds: 0, placeholders: ["Buffering"]))
        _ = g.offer(value("Real"), now: at(0))
        #expect(g.offer(value("buffering "), now: at(1)).isEmpty)
        #expect(sentTitles(g.offer(value("Loading…"), now: at(2))) == ["Loading…"], "not in this list")
    }
}
