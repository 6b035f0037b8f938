import Testing
@testable import PlayerHost

/// Publishing and time: issue 3 items 6, 7, 8 and 11.
@Suite struct ModelPublishingTests {
    func elapsed(_ m: NowPlayingModel, _ t: Double) -> Double? { m.nowPlaying(at: at(t))?.info.elapsed }

    func infoEvents(_ events: [ModelEvent]) -> [PublishedInfo] {
        events.compactMap { if case .infoChanged(_, let p) = $0 { return p } else { return nil } }
    }

    // Item 6.
    @Test func timeIsInferredAndReanchoredOnlyAtKeyMoments() throws {
        var m = NowPlayingModel()
        try m.makeEligible("s", items: [song("Long", 600)])
        let play = try m.play(session: "s", now: at(0))
        let started = try #require(infoEvents(play.events).last)
        #expect(started.info.rate == 1 && started.info.elapsed == 0 && started.timestamp == at(0))
        #expect(started.playbackState == .playing)
        #expect(elapsed(m, 10) == 10)
        #expect(m.advance(to: at(5)).events.isEmpty, "no event between key moments")

        let pause = try m.pause(session: "s", now: at(10))
        let paused = try #require(infoEvents(pause.events).last)
        #expect(paused.info.elapsed == 10 && paused.info.rate == 0 && paused.timestamp == at(10))
        #expect(paused.playbackState == .paused)
        #expect(elapsed(m, 15) == 10)
        #expect(m.advance(to: at(15)).events.isEmpty)

        let seek = try m.seek(session: "s", to: 40, now: at(15))
        #expect(infoEvents(seek.events).last?.info.elapsed == 40)
        #expect(infoEvents(seek.events).last?.info.rate == 0, "seek keeps the rate")
        #expect(elapsed(m, 20) == 40)

        let rate = try m.setRate(session: "s", rate: 2, now: at(20))
        #expect(infoEvents(rate.events).last?.info.rate == 2)
        #expect(elapsed(m, 25) == 50)
        let snap = try #require(m.nowPlaying(at: at(25)))
        #expect(snap.timestamp == at(25) && snap.session == "s" && snap.playbackState == .playing)
        #expect(m.advance(to: at(30)).events.isEmpty)
        #expect(try m.pause(session: "s", now: at(30)).events.count == 2, "playerChanged + infoChanged, nothing else")
        #expect(try m.pause(session: "s", now: at(31)).events.isEmpty, "pausing again changes nothing")
    }

    // Item 11.
    @Test func itemEndAdvancesExactlyAndNoTimerWhilePaused() throws {
        var m = NowPlayingModel()
        try m.makeEligible("s", items: [song("A", 10), song("B", 20)])
        #expect(m.nextDeadline == nil)
        let play = try m.play(session: "s", now: at(0))
        #expect(m.nextDeadline == at(10))
        #expect(play.actions.contains(.rearmTimer(at(10))))
        #expect(m.advance(to: at(9.999)).events.isEmpty)

        let fired = m.advance(to: at(10.25))   // the timer fired late
        #expect(m.timeline("s").currentItem?.title == "B")
        #expect(m.timeline("s").anchorTime == at(10), "B started exactly at A's end")
        #expect(elapsed(m, 10.25) == 0.25)
        #expect(infoEvents(fired.events).last?.info.title == "B")
        #expect(infoEvents(fired.events).last?.timestamp == at(10))
        #expect(fired.actions == [.rearmTimer(at(30))])

        let pause = try m.pause(session: "s", now: at(12))
        #expect(m.nextDeadline == nil)
        #expect(pause.actions == [.rearmTimer(nil)])
        #expect(m.advance(to: at(100)).events.isEmpty)
        _ = try m.play(session: "s", now: at(100))
        #expect(m.nextDeadline == at(118))
        // Operations catch up on their own: the end of the queue at 118 is handled by this read.
        #expect(m.nowPlaying(at: at(200))?.playbackState == .stopped)
        let end = m.advance(to: at(200))
        #expect(m.nextDeadline == nil)
        #expect(m.timeline("s").anchorTime == at(118))
        #expect(infoEvents(end.events).last?.playbackState == .stopped)
    }

    // Item 7.
    @Test func prerollAdIsExcludedFromDurationAndHoldsElapsed() throws {
        var m = NowPlayingModel()
        let ad = NowPlayingInfo([.adTimeRanges: .timeRanges([TimeRange(start: 0, end: 30)])])
        try m.makeEligible("s", items: [song("Show", 130, info: ad)])
        let play = try m.play(session: "s", now: at(0))
        let published = try #require(infoEvents(play.events).last)
        #expect(published.info.duration == 100)
        #expect(published.info.elapsed == 0 && published.info.rate == 0, "content time does not run during the ad")
        #expect(published.playbackState == .playing)
        #expect(elapsed(m, 10) == 0)
        #expect(elapsed(m, 29) == 0)
        #expect(m.nextDeadline == at(30), "the end of the ad is a key moment")
        let adEnd = m.advance(to: at(30))
        let after = try #require(infoEvents(adEnd.events).last)
        #expect(after.info.elapsed == 0 && after.info.rate == 1 && after.timestamp == at(30))
        #expect(elapsed(m, 40) == 10)
        #expect(m.nextDeadline == at(130))
        _ = try m.sendCommand(.changePlaybackPosition, session: "s", payload: ["position": 50], now: at(40))
        #expect(m.timeline("s").elapsed(at: at(40)) == 80, "remote positions are content time")
        #expect(elapsed(m, 41) == 51)
    }

    // Item 8.
    @Test func updateMergesSetReplacesNullRemoves() throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "s", kind: .main, automaticallyPublishes: false, now: .zero)
        let art: JSON = ["id": "cover", "bounds": ["width": 600, "height": 600], "sources": ["https://x/cover.jpg"]]
        _ = try m.setInfo(session: "s", info: ["title": "One", "artwork": art, "duration": 200, "elapsed": 10, "rate": 1], now: at(0))
        let upd = try m.updateInfo(session: "s", info: ["title": "Two"], now: at(5))
        #expect(upd.value.info.title == "Two")
        #expect(upd.value.info[.artwork] != nil && upd.value.info.duration == 200, "a partial update keeps the rest")
        #expect(upd.value.timestamp == at(0), "a metadata update does not re-anchor time")
        #expect(elapsed(m, 5) == nil, "nothing is Now Playing")
        #expect(try m.infoJSON(session: "s", now: at(5))["info"]?["elapsed"] == 15.0)

        let rate = try m.updateInfo(session: "s", info: ["rate": 0], now: at(20))
        #expect(rate.value.info.elapsed == 30 && rate.value.timestamp == at(20), "elapsed re-anchored before the rate changes")
        let rm = try m.updateInfo(session: "s", info: ["artwork": nil], now: at(21))
        #expect(rm.value.info[.artwork] == nil && rm.value.info.title == "Two")
        let set = try m.setInfo(session: "s", info: ["title": "Three"], now: at(22))
        #expect(set.value.info.keys == [.title], "set replaces the whole dictionary")

        expectModelError(.invalidInfo) { _ = try m.updateInfo(session: "s", info: ["colour": "red"], now: at(23)) }
        expectModelError(.invalidInfo) { _ = try m.updateInfo(session: "s", info: ["trackNumber": "x"], now: at(23)) }
        expectModelError(.invalidInfo) { _ = try m.updateInfo(session: "s", info: ["mediaType": "hologram"], now: at(23)) }
        #expect(m.sessions["s"]!.manualInfo.keys == [.title])
    }

    @Test func automaticKeysAreRefusedWhileAutomatic() throws {
        var m = NowPlayingModel()
        try m.makeEligible("s")
        let before = m
        for key in ["elapsed", "duration", "rate", "defaultRate", "queueIndex", "queueCount"] {
            expectModelError(.automaticKey) { _ = try m.updateInfo(session: "s", info: [key: 1], now: at(1)) }
        }
        expectModelError(.automaticKey) { _ = try m.setInfo(session: "s", info: ["title": "x", "elapsed": 3], now: at(1)) }
        #expect(m == before)
        _ = try m.setAutomaticallyPublishes(session: "s", false, now: at(2))
        _ = try m.updateInfo(session: "s", info: ["elapsed": 3, "rate": 1], now: at(2))
        #expect(m.publishedInfo(m.sessions["s"]!).info.elapsed == 3)
    }

    /// Issue 13.3: the item's keys belong to the item. A write is refused (1030) naming
    /// `player.load`, changes nothing, and so nothing written can outlive its item.
    @Test func itemKeysAreRefusedWhileAutomatic() throws {
        var m = NowPlayingModel()
        let untitled = MediaItem(artist: "Band", duration: 50)
        try m.makeEligible("s", items: [song("A", 100), untitled])
        let before = m
        for info: JSON in [["title": "Session title"], ["genre": "Jazz"], ["artwork": ["id": "a", "sources": ["http://h/a"]]],
                           ["extra": ["x": 1]], ["title": nil], ["albumTitle": "Al", "elapsed": 3]] {
            do {
                _ = try m.updateInfo(session: "s", info: info, now: at(1))
                Issue.record("\(info) was accepted on an automatic session")
            } catch let e as ModelError {
                #expect(e.code == .automaticKey)
                #expect(e.message.contains("player.load"), "the message names the way: \(e.message)")
                #expect(e.detail?["use"] == "player.load")
            }
            expectModelError(.automaticKey) { _ = try m.setInfo(session: "s", info: info, now: at(1)) }
        }
        #expect(m == before, "a refused write changes nothing")
        _ = try m.next(session: "s", now: at(2))
        #expect(m.publishedInfo(m.sessions["s"]!).info.title == nil, "the untitled item shows no title of anyone else's")
        // The way: the item's own info.
        _ = try m.load(session: "s", items: [MediaItem(duration: 50, info: try NowPlayingInfo(json: ["title": "Given", "genre": "Jazz"]))], now: at(3))
        let info = m.publishedInfo(m.sessions["s"]!).info
        #expect(info.title == "Given" && info.text(.genre) == "Jazz")
        // Manual info written before does not survive turning automatic publishing on.
        _ = try m.setAutomaticallyPublishes(session: "s", false, now: at(4))
        _ = try m.updateInfo(session: "s", info: ["genre": "Written"], now: at(4))
        _ = try m.setAutomaticallyPublishes(session: "s", true, now: at(5))
        _ = try m.load(session: "s", items: [MediaItem(title: "Plain", duration: 50)], now: at(6))
        #expect(m.publishedInfo(m.sessions["s"]!).info.text(.genre) == nil)
        #expect(m.sessions["s"]!.manualInfo.isEmpty)
    }

    @Test func localizedStringsResolveWithFallback() throws {
        var m = NowPlayingModel()
        try m.makeEligible("s", items: [song("x", 10, info: try NowPlayingInfo(json: [
            "title": ["und": "Magnificent", "es": "Magnífico"], "artist": ["fr": "Artiste", "de": "Künstler"],
        ]))])
        let es = m.nowPlayingJSON(language: "es-MX", now: .zero)
        #expect(es["info"]?["title"] == "Magnífico")
        #expect(m.nowPlayingJSON(language: "ja", now: .zero)["info"]?["title"] == "Magnificent")
        #expect(m.nowPlayingJSON(language: "ja", now: .zero)["info"]?["artist"] == "Künstler", "no und: any, deterministically")
        #expect(m.nowPlayingJSON(now: .zero)["info"]?["title"] == ["und": "Magnificent", "es": "Magnífico"])
        #expect(LocalizedString("plain").toJSON() == "plain")
    }

    @Test func playbackStateIsDerived() throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "m", kind: .main, automaticallyPublishes: false, now: .zero)
        #expect(m.publishedInfo(m.sessions["m"]!).playbackState == .stopped)
        _ = try m.setInfo(session: "m", info: ["title": "t", "rate": 1, "elapsed": 0], now: .zero)
        #expect(m.publishedInfo(m.sessions["m"]!).playbackState == .playing)
        _ = try m.updateInfo(session: "m", info: ["rate": 0], now: at(1))
        #expect(m.publishedInfo(m.sessions["m"]!).playbackState == .paused)
    }

    @Test func doctorNamesFaultsAndFixes() throws {
        var m = NowPlayingModel()
        try m.makeEligible("s")
        _ = try m.setAutomaticallyPublishes(session: "s", false, now: .zero)
        _ = try m.play(session: "s", now: at(1))
        let faults = try m.diagnostics(session: "s", now: at(2))
        let codes = faults.map(\.code)
        #expect(codes.contains("rateZeroWhilePlaying"))
        #expect(faults.first { $0.code == "rateZeroWhilePlaying" }?.message.hasPrefix("rate is 0 while the player is playing") == true)
        #expect(faults.first { $0.code == "noTitle" }?.message == "no title: nothing will display")
        #expect(codes.first == "rateZeroWhilePlaying", "errors come first")
        _ = try m.updateInfo(session: "s", info: ["title": "T", "rate": 1, "elapsed": 1, "duration": 100], now: at(2))
        let fixed = try m.diagnostics(session: "s", now: at(3)).map(\.code)
        #expect(!fixed.contains("rateZeroWhilePlaying") && !fixed.contains("noTitle"))

        let doc = try m.doctorJSON(session: "s", now: at(3))
        let entry = try #require(doc.arrayValue?.first)
        #expect(entry["audio"]?["category"] == "playback")
        #expect(entry["commands"]?.arrayValue?.count == 21)
        #expect(entry["infoKeys"]?.arrayValue?.contains("title") == true)
        #expect(entry["explanation"]?["isNowPlaying"] == true)
    }

    @Test func sessionJSONUsesWireNames() throws {
        var m = NowPlayingModel()
        try m.makeEligible("s")
        _ = try m.play(session: "s", now: at(0))
        let j = try m.sessionJSON("s", now: at(4))
        #expect(j["id"] == "s" && j["kind"] == "main" && j["app"] == "host")
        #expect(j["isActive"] == true && j["canBecomeActive"] == true && j["isNowPlaying"] == true)
        #expect(j["info"]?["elapsed"] == 4.0)
        #expect(j["players"]?.arrayValue?.first?["elapsed"] == 4.0)
        #expect(j["eligibility"]?["reasons"] == [])
        let list = m.sessionListJSON().arrayValue?.first
        #expect(list?["playbackState"] == "playing")
        let explain = try m.explainJSON(now: at(4))
        #expect(explain["nowPlaying"] == "s")
    }
}
