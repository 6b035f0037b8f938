import Testing
@testable import PlayerHost

@Suite struct ModelTimelineTests {
    func loaded(_ items: [MediaItem] = [song("A", 10), song("B", 20), song("C", 30)]) -> PlayerTimeline {
        var t = PlayerTimeline()
        var r = SplitMix64(seed: 1)
        t.load(items, at: .zero, rng: &r)
        return t
    }

    @Test func instantArithmeticIsExact() {
        #expect(at(10).nanoseconds == 10_000_000_000)
        #expect(at(1.5).advanced(bySeconds: 2.25) == at(3.75))
        #expect(at(1).seconds(since: at(3)) == -2)
        #expect(at(1).advanced(bySeconds: -5) == .zero)
    }

    @Test func elapsedIsInferredFromTheAnchorAndClamped() throws {
        var t = loaded()
        #expect(t.status == .ready)
        #expect(t.elapsed(at: at(50)) == 0)
        try t.play(at: at(2))
        #expect(t.elapsed(at: at(5)) == 3)
        #expect(t.elapsed(at: at(1)) == 0, "an instant before the anchor does not run backwards")
        #expect(t.elapsed(at: at(100)) == 10, "clamped to the duration")
        try t.setRate(2, at: at(4))
        #expect(t.anchorElapsed == 2)
        #expect(t.elapsed(at: at(6)) == 6)
        t.pause(at: at(6))
        #expect(t.rate == 0)
        #expect(t.elapsed(at: at(60)) == 6)
    }

    @Test func deadlineIsExactlyTheItemEndAndNilWhilePaused() throws {
        var t = loaded()
        #expect(t.itemEndDeadline == nil)
        try t.play(at: at(1))
        #expect(t.itemEndDeadline == at(11))
        try t.seek(to: 4, at: at(3))
        #expect(t.itemEndDeadline == at(9))
        try t.setRate(2, at: at(3))
        #expect(t.itemEndDeadline == at(6))
        t.pause(at: at(4))
        #expect(t.itemEndDeadline == nil)
    }

    @Test func itemEndAdvancesAtTheDeadlineInstant() throws {
        var t = loaded()
        try t.play(at: .zero)
        #expect(t.finishItem(at: at(10)) == .advanced)
        #expect(t.currentItem?.title == "B")
        #expect(t.anchorTime == at(10))
        #expect(t.anchorElapsed == 0)
        #expect(t.rate == 1)
        #expect(t.itemEndDeadline == at(30))
    }

    @Test func repeatAndEndOfQueue() throws {
        var t = loaded([song("A", 10), song("B", 10)])
        try t.play(at: .zero)
        t.setRepeat(.one)
        #expect(t.finishItem(at: at(10)) == .repeated)
        #expect(t.currentItem?.title == "A")
        t.setRepeat(.all)
        #expect(t.finishItem(at: at(20)) == .advanced)
        #expect(t.finishItem(at: at(30)) == .advanced)
        #expect(t.currentItem?.title == "A", "repeat all wraps")
        t.setRepeat(.off)
        _ = t.finishItem(at: at(40))
        #expect(t.finishItem(at: at(50)) == .endedQueue)
        #expect(t.rate == 0)
        #expect(t.isStopped)
        #expect(t.itemEndDeadline == nil)
        try t.play(at: at(60))
        #expect(t.currentItem?.title == "A", "play after the end restarts the queue")
        #expect(t.elapsed(at: at(61)) == 1)
    }

    @Test func nextPreviousAndStop() throws {
        var t = loaded()
        try t.next(at: .zero)
        try t.next(at: .zero)
        #expect(t.currentItem?.title == "C")
        #expect(throws: ModelError.self) { try t.next(at: .zero) }
        try t.previous(at: .zero)
        #expect(t.currentItem?.title == "B")
        try t.previous(at: .zero)
        try t.previous(at: .zero)
        #expect(t.currentItem?.title == "A", "previous at the first item restarts it")
        try t.play(at: at(1))
        t.stop(at: at(3))
        #expect(t.isStopped && t.rate == 0 && t.elapsed(at: at(9)) == 0)
    }

    @Test func playWithoutItemsIsInvalidState() {
        var t = PlayerTimeline()
        #expect(t.status == .idle)
        #expect(throws: ModelError(.invalidState, "the player has no items; load some first")) { try t.play(at: .zero) }
        #expect(throws: ModelError.self) { try t.setRate(-1, at: .zero) }
    }

    @Test func shuffleIsDeterministicAndKeepsTheCurrentItem() throws {
        let items = (0..<8).map { song("T\($0)", 10) }
        var a = loaded(items), b = loaded(items)
        try a.next(at: .zero)
        try b.next(at: .zero)
        var r1 = SplitMix64(seed: 9), r2 = SplitMix64(seed: 9)
        a.setShuffle(.items, rng: &r1)
        b.setShuffle(.items, rng: &r2)
        #expect(a.order == b.order)
        #expect(a.currentItem?.title == "T1")
        #expect(Set(a.order) == Set(0..<8))
        a.setShuffle(.off, rng: &r1)
        #expect(a.order == Array(0..<8))
        #expect(a.currentItem?.title == "T1")
    }

    @Test func shuffleCollectionsKeepsAlbumsTogether() {
        func track(_ t: String, _ album: String) -> MediaItem {
            song(t, 10, info: NowPlayingInfo([.albumTitle: .text(LocalizedString(album))]))
        }
        var t = loaded([track("a1", "A"), track("a2", "A"), track("b1", "B"), track("b2", "B"), track("c1", "C")])
        var r = SplitMix64(seed: 3)
        t.setShuffle(.collections, rng: &r)
        let o = t.order
        #expect(o.firstIndex(of: 1)! == o.firstIndex(of: 0)! + 1)
        #expect(o.firstIndex(of: 3)! == o.firstIndex(of: 2)! + 1)
    }

    @Test func adScheduleMapsMediaAndContentTime() {
        let ads = AdSchedule([TimeRange(start: 0, end: 30), TimeRange(start: 60, end: 70), TimeRange(start: 65, end: 80)])
        #expect(ads.ranges.count == 2, "overlapping ranges merge")
        #expect(ads.contentDuration(130) == 80)
        #expect(ads.contentTime(10) == 0, "inside the preroll, content time holds at its start")
        #expect(ads.contentTime(40) == 10)
        #expect(ads.contentTime(75) == 30)
        #expect(ads.contentTime(90) == 40)
        #expect(ads.mediaTime(10) == 40)
        #expect(ads.mediaTime(35) == 85)
        #expect(ads.nextBoundary(after: 0, before: 130) == 30)
        #expect(ads.nextBoundary(after: 30, before: 130) == 60)
        #expect(ads.nextBoundary(after: 80, before: 130) == nil)
    }
}
