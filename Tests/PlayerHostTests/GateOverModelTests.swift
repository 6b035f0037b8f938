import Testing
@testable import PlayerHost
@testable import PlayerHostHost
@testable import PlayerHostModel

/// Issue 8's "Done when", model-level: the real model's operations offered to the gate the way
/// the Publisher offers them (manual clock, no loop).
@Suite struct GateOverModelTests {
    /// A model and a gate, stepped together.
    struct Rig {
        var model = NowPlayingModel()
        var gate: NowPlayingGate
        /// Titles sent so far (nil: an empty slot).
        var sent: [NowPlayingSnapshot?] = []

        init(coalesceMS: Int = 0) { gate = NowPlayingGate(.init(coalesceMilliseconds: coalesceMS)) }

        /// Runs one operation at `t`; offers the slot's value if its events touch it.
        mutating func step<T>(_ t: MonotonicInstant, _ op: (inout NowPlayingModel, MonotonicInstant) throws -> ModelResult<T>) throws {
            let r = try op(&model, t)
            guard Publisher.touchesNowPlaying(r.events, in: model) else { return }
            for a in gate.offer(Publisher.candidate(model), now: t) {
                if case .send(let v) = a { sent.append(v) }
            }
        }

        /// The timer fires at `t`: whatever waits goes out.
        mutating func windowClosed(_ t: MonotonicInstant) {
            for a in gate.windowClosed(at: t) { if case .send(let v) = a { sent.append(v) } }
        }

        /// `nowPlaying.get` as the Publisher answers it.
        func read(_ t: MonotonicInstant) -> NowPlayingSnapshot? { model.nowPlaying(at: t).map(gate.guarded) }

        mutating func manualSession(_ id: SessionID = "radio") throws {
            try step(.zero) { m, t in try m.createSession(id: id, kind: .main, automaticallyPublishes: false, now: t) }
            try step(.zero) { m, t in try m.configureAudio(session: id, category: .playback, now: t) }
            try step(.zero) { m, t in try m.activateAudio(session: id, now: t) }
            try step(.zero) { m, t in try m.bindDefaultCommands(session: id, now: t) }
        }
    }

    @Test func identicalUpdateLoadAndSeekToTheSamePausedPositionPublishNothing() throws {
        var r = Rig()
        try r.step(.zero) { m, t in .init(value: (), events: try m.makeEligible("s", now: t), actions: []) }
        try r.step(at(0)) { m, t in try m.play(session: "s", now: t) }
        try r.step(at(1)) { m, t in try m.pause(session: "s", now: t) }
        let before = r.sent.count
        #expect(r.sent.last??.playbackState == .paused)
        try r.step(at(2)) { m, t in try m.updateInfo(session: "s", info: ["genre": "Rock"], now: t) }
        #expect(r.sent.count == before + 1)
        try r.step(at(3)) { m, t in try m.updateInfo(session: "s", info: ["genre": "Rock"], now: t) }
        try r.step(at(4)) { m, t in try m.seek(session: "s", to: 1, now: t) }
        #expect(r.sent.count == before + 1, "identical update, seek to where it is paused: nothing")
        try r.step(at(5)) { m, t in try m.seek(session: "s", to: 0, now: t) }
        #expect(r.sent.count == before + 2, "a real seek is published")
        try r.step(at(6)) { m, t in try m.load(session: "s", items: [song("A", 100), song("B", 50)], now: t) }
        #expect(r.sent.count == before + 2, "identical load: \(r.sent.dropFirst(before + 2).map { $0?.info.toJSON().jsonString ?? "null" })")
    }

    @Test(arguments: NowPlayingGate.Configuration.defaultPlaceholders, [InfoKey.title, .artist, .albumTitle])
    func aPlaceholderOverThePlayingItemIsNotPublishedAndReadsShowTheRealValue(placeholder: String, key: InfoKey) throws {
        var r = Rig()
        try r.manualSession()
        try r.step(at(1)) { m, t in
            try m.setInfo(session: "radio", info: ["title": "Real Song", "artist": "Real Band", "albumTitle": "Real Album",
                                                    "assetURL": "http://radio/stream", "elapsed": 0, "rate": 1], now: t)
        }
        let real = try #require(r.sent.last ?? nil)
        #expect(real.info.title == "Real Song")
        let count = r.sent.count
        try r.step(at(2)) { m, t in try m.updateInfo(session: "radio", info: .object([key.rawValue: .string(placeholder)]), now: t) }
        #expect(r.sent.count == count, "not published")
        #expect(r.gate.counters.placeholdersBlocked == 1)
        #expect(r.read(at(3))?.info[key] == real.info[key], "nowPlaying.get shows the real value")
        #expect(r.model.nowPlaying(at: at(3))?.info.text(key) == placeholder, "the model keeps what it was told")
        // A track change to an item with a real title shows it.
        try r.step(at(4)) { m, t in
            try m.setInfo(session: "radio", info: ["title": "Next Song", "artist": "Other Band", "albumTitle": "Other Album",
                                                    "assetURL": "http://radio/next", "elapsed": 0, "rate": 1], now: t)
        }
        #expect(r.sent.last??.info.title == "Next Song")
        #expect(r.read(at(5))?.info.title == "Next Song")
    }

    @Test func anAutomaticSessionsNewItemShowsItsRealTitle() throws {
        var r = Rig()
        try r.step(.zero) { m, t in
            .init(value: (), events: try m.makeEligible("s", items: [MediaItem(duration: 100), song("B", 50)], now: t), actions: [])
        }
        try r.step(at(0)) { m, t in try m.play(session: "s", now: t) }
        try r.step(at(1)) { m, t in try m.updateInfo(session: "s", info: ["title": "Station"], now: t) }
        #expect(r.sent.last??.info.title == "Station")
        let count = r.sent.count
        try r.step(at(2)) { m, t in try m.updateInfo(session: "s", info: ["title": "Connecting…"], now: t) }
        #expect(r.sent.count == count)
        try r.step(at(3)) { m, t in try m.next(session: "s", now: t) }
        #expect(r.sent.last??.info.title == "B")
    }

    @Test func twentyTitleChangesWithinFiveMillisecondsAndTheWindowsEnd() throws {
        var r = Rig(coalesceMS: 250)
        try r.manualSession()
        r.windowClosed(at(0.5))
        r.sent.removeAll()
        for i in 0..<20 {
            let t = MonotonicInstant(nanoseconds: 1_000_000_000 + UInt64(i) * 250_000)
            try r.step(t) { m, t in try m.updateInfo(session: "radio", info: ["title": .string("t\(i)"), "rate": 1], now: t) }
        }
        #expect(r.sent.map { $0?.info.title } == ["t0"])
        #expect(r.gate.deadline == at(1.25))
        r.windowClosed(at(1.25))
        #expect(r.sent.map { $0?.info.title } == ["t0", "t19"])
        #expect(r.gate.deadline == nil, "nothing pending, nothing armed")
    }

    @Test func playPauseAndSeekOnAQuietSessionGoOutAtOnce() throws {
        var r = Rig(coalesceMS: 250)
        try r.step(.zero) { m, t in .init(value: (), events: try m.makeEligible("s", now: t), actions: []) }
        r.windowClosed(at(0.25))
        var count = r.sent.count
        for (i, op) in ["play", "pause", "seek"].enumerated() {
            let t = at(Double(i + 1))   // a second apart: each after a quiet window
            try r.step(t) { m, t in
                switch op {
                case "play": return try m.play(session: "s", now: t)
                case "pause": return try m.pause(session: "s", now: t)
                default: return try m.seek(session: "s", to: 60, now: t)
                }
            }
            #expect(r.sent.count == count + 1, "\(op) went out at once")
            #expect(r.gate.deadline == nil, "\(op): nothing waits")
            count = r.sent.count
        }
        #expect(r.sent.last??.info.elapsed == 60 && r.sent.last??.playbackState == .paused)
    }
}
