import Testing
@testable import Plugins

/// The importer's slots and waiting list (issue 21, item 10), pure: who is imported, who waits,
/// who gives way to a player that plays.
@Suite struct ImportSlotsTests {
    @Test func silentPlayersWaitAndTheLongestSilentGivesWay() {
        var s = ImportSlots(capacity: 3, waitingCapacity: 10)
        for n in ["a", "b", "c"] { #expect(s.arrive(n) == .imported) }
        #expect(s.arrive("d") == .waiting(dropped: nil))
        #expect(s.arrive("e") == .waiting(dropped: nil))
        // b played since: a is the longest silent.
        s.heard("b")
        #expect(s.waitingStatus("e", playing: true) { _ in false } == "a")
        #expect(Set(s.imported.keys) == ["b", "c", "e"])
        #expect(Set(s.waiting.keys) == ["a", "d"])
        // Paused (not playing) takes nothing.
        #expect(s.waitingStatus("d", playing: false) { _ in false } == nil)
        #expect(s.imported["d"] == nil)
    }

    @Test func nobodyGivesWayWhenEveryImportedOnePlays() {
        var s = ImportSlots(capacity: 2, waitingCapacity: 10)
        _ = s.arrive("a")
        _ = s.arrive("b")
        _ = s.arrive("c")
        #expect(s.waitingStatus("c", playing: true) { _ in true } == nil)
        #expect(s.waiting["c"]?.playing == true)
        // A slot that frees goes to the waiting one that plays, before the one waiting longer.
        _ = s.arrive("d")
        #expect(s.waitingStatus("d", playing: false) { _ in true } == nil)
        #expect(s.leave("a") == "c")
        #expect(s.leave("b") == "d")
        #expect(s.leave("c") == nil)
        #expect(Set(s.imported.keys) == ["d"])
    }

    @Test func theWaitingListIsBounded() {
        var s = ImportSlots(capacity: 1, waitingCapacity: 2)
        _ = s.arrive("a")
        #expect(s.arrive("b") == .waiting(dropped: nil))
        #expect(s.arrive("c") == .waiting(dropped: nil))
        #expect(s.arrive("d") == .waiting(dropped: "b"))
        _ = s.waitingStatus("c", playing: true) { _ in true }
        _ = s.waitingStatus("d", playing: true) { _ in true }
        #expect(s.arrive("e") == .refused, "every waiting one plays: nothing to drop")
        #expect(s.waiting.count == 2)
        #expect(s.arrive("a") == .refused, "already imported")
    }
}
