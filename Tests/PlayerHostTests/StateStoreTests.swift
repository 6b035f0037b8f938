import Glibc
import Logging
import Testing
@testable import PlayerHost
@testable import PlayerHostHost
@testable import PlayerHostLoop
@testable import PlayerHostModel

/// Issue 12 follow-up: a state write captures only the sessions that changed, and the atomic
/// write runs on libuv's thread pool, one at a time. Counted, never timed.
@Suite struct StateStoreTests {
    /// A store on `loop` writing `model` into a fresh directory, fed the model's events as the
    /// publisher would.
    final class Rig {
        let loop: EventLoop
        let store: StateStore
        let dir = DaemonHarness.makeTempDirectory()
        var model = NowPlayingModel()
        var now = at(1)

        init() throws {
            loop = try makeLoop()
            store = StateStore(loop: loop, directory: dir, logger: .init(label: "test"))
            store.delayMilliseconds = 0
            store.source = { [weak self] in self.map { ($0.model, $0.now, []) } }
        }

        func publish(_ events: [ModelEvent]) {
            for e in events { store.receive(PublishedEvent(.model(e))) }
        }

        /// Writes now and waits (on loop events) for the worker to finish.
        func write() throws {
            store.writeNow()
            try runLoop(loop) { !self.store.isPending }
        }

        func file() throws -> HostSnapshot {
            guard case .success(let bytes) = StateStore.readFile(store.path) else {
                Issue.record("no state file")
                return HostSnapshot()
            }
            return try StateFile.parse(bytes)
        }

        func close() {
            store.stop()
            closeLoopExpectingNoLeaks(loop)
            _ = try? runShell("rm -rf '\(dir)'")
        }
    }

    /// What plugins keep (`plugin.saveState`) goes in the file's `plugins` section, as given, and
    /// a store opened on the file reads it back with the file's write time.
    @Test func pluginStatesAreWrittenAndReadBack() throws {
        let rig = try Rig()
        defer { rig.close() }
        let kept: JSON = ["version": 1, "sessions": [["session": "m", "urls": ["/a.ogg"]]]]
        rig.store.setPluginState("mpv", kept)
        #expect(rig.store.isPending, "a new plugin state is a change")
        try rig.write()
        guard case .success(let bytes) = StateStore.readFile(rig.store.path) else {
            Issue.record("no state file")
            return
        }
        let file = try StateFile.parseFile(bytes)
        #expect(file.plugins == ["mpv": kept])
        #expect(file.snapshot.sessions.isEmpty)
        rig.store.setPluginState("mpv", kept)
        #expect(!rig.store.isPending, "the same state again writes nothing")

        let reader = StateStore(loop: rig.loop, directory: rig.dir, logger: .init(label: "test"))
        _ = reader.load()
        #expect(reader.pluginStates == ["mpv": kept])
        #expect(reader.loadedSavedAt != nil && reader.loadedSavedAt == file.savedAt)

        // The orderly stop writes again, so `savedAt` is the stop's instant (plugins extrapolate
        // what was playing up to it).
        let writes = rig.store.writes
        rig.store.stop()
        #expect(rig.store.writes == writes + 1)
    }

    @Test func aWriteCapturesOnlyTheSessionsThatChanged() throws {
        let rig = try Rig()
        defer { rig.close() }
        for i in 0..<40 { rig.publish(try rig.model.makeEligible("s\(i)", items: [song("A\(i)", 100), song("B\(i)", 100)])) }
        try rig.write()
        #expect(rig.store.captures == 40)
        #expect(rig.store.writes == 1)
        #expect(try rig.file().sessions.count == 40)

        rig.publish(try rig.model.seek(session: "s7", to: 33, now: at(1)).events)
        try rig.write()
        #expect(rig.store.captures == 41, "one session changed: one capture")
        let snap = try rig.file()
        #expect(snap.sessions.count == 40)
        #expect(snap.sessions.first { $0.id == "s7" }?.players.first?.elapsed == 33)
        #expect(snap == HostSnapshot(of: rig.model, now: at(1), configSessions: []), "the same file as a full capture")

        rig.publish(try rig.model.closeSession("s3", now: at(1)).events)
        try rig.write()
        #expect(rig.store.captures <= 42)
        #expect(try rig.file().sessions.map(\.id) == rig.model.orderedSessions.map(\.id))
        #expect(rig.store.writes == 3)

        // An event that changes nothing kept (a command handled, say) captures its session but writes nothing.
        rig.publish([.activeChanged("s9", isActive: rig.model.isActive("s9"))])
        try rig.write()
        #expect(rig.store.writes == 3)
    }

    @Test func aClosedIdMadeAgainIsInTheFileOnce() throws {
        let rig = try Rig()
        defer { rig.close() }
        rig.publish(try rig.model.makeEligible("a"))
        rig.publish(try rig.model.makeEligible("b"))
        try rig.write()
        rig.publish(try rig.model.closeSession("a", now: at(1)).events)
        rig.publish(try rig.model.makeEligible("a", now: at(1)))
        try rig.write()
        #expect(try rig.file().sessions.map(\.id) == ["b", "a"])
    }

    /// Closes are dropped from the kept pieces in one pass at the next write; the file keeps the
    /// model's order, with a closed id made again at its new place.
    @Test func manyClosesAndARecreationKeepTheModelsOrder() throws {
        let rig = try Rig()
        defer { rig.close() }
        for i in 0..<30 { rig.publish(try rig.model.makeEligible("s\(i)")) }
        try rig.write()
        for i in [0, 4, 5, 17, 29] { rig.publish(try rig.model.closeSession("s\(i)", now: at(1)).events) }
        rig.publish(try rig.model.makeEligible("s4", now: at(1)))
        rig.publish(try rig.model.makeEligible("new", now: at(1)))
        rig.publish(try rig.model.seek(session: "s9", to: 5, now: at(1)).events)
        try rig.write()
        let snap = try rig.file()
        #expect(snap.sessions.map(\.id) == rig.model.orderedSessions.map(\.id))
        #expect(snap.sessions.suffix(2).map(\.id) == ["s4", "new"])
        #expect(snap == HostSnapshot(of: rig.model, now: at(1), configSessions: []), "the same file as a full capture")
        // The two made, the one sought, and whichever session the closes made Now Playing.
        #expect(rig.store.captures <= 30 + 4)
    }

    /// The writer joins the pieces through a bounded buffer: pieces larger than it, and many
    /// small ones, land in the file whole and in order.
    @Test func piecesLargerAndSmallerThanTheBufferAreWrittenInOrder() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let big = [UInt8](repeating: UInt8(ascii: "b"), count: (5 << 20) / 2)
        var chunks: [[UInt8]] = [Array("head".utf8), big]
        for i in 0..<3000 { chunks.append(Array("\(i),".utf8)) }
        chunks.append([UInt8](repeating: UInt8(ascii: "m"), count: (1 << 20) - 1))
        chunks.append(Array("tail".utf8))
        #expect(AtomicFile.write(chunks, directory: dir, name: "f") == nil)
        guard case .success(let bytes) = StateStore.readFile(dir + "/f") else {
            Issue.record("no file")
            return
        }
        #expect(bytes == chunks.flatMap { $0 })
    }

    @Test func theWriteRunsOffTheLoopAndAChangeMeanwhileWritesOnceMore() throws {
        let rig = try Rig()
        defer { rig.close() }
        rig.publish(try rig.model.makeEligible("x"))
        rig.store.writeNow()
        #expect(rig.store.isWriting, "the write is on the thread pool when writeNow returns")
        #expect(rig.store.writes == 0)
        rig.publish(try rig.model.seek(session: "x", to: 12, now: at(1)).events)
        rig.store.writeNow()  // one write in flight at a time: this waits for it
        try runLoop(rig.loop) { rig.store.writes == 2 && !rig.store.isPending }
        #expect(try rig.file().sessions.first?.players.first?.elapsed == 12)
    }

    @Test func anOrderlyStopDuringAWriteLandsAfterItWithExactPositions() throws {
        let rig = try Rig()
        defer { _ = try? runShell("rm -rf '\(rig.dir)'") }
        rig.publish(try rig.model.makeEligible("p"))
        rig.publish(try rig.model.play(session: "p", now: at(1)).events)
        rig.store.writeNow()
        #expect(rig.store.isWriting)
        rig.now = at(11)  // played on 10 s without an event
        rig.store.stop()
        try runLoop(rig.loop) { !rig.store.isWriting }
        #expect(rig.store.writes == 2)
        let p = try rig.file().sessions.first?.players.first
        #expect(p?.elapsed == 10)
        closeLoopExpectingNoLeaks(rig.loop)
    }

    @Test func anUnwritableDirectoryIsAFaultNotAStop() throws {
        let rig = try Rig()
        defer { rig.close() }
        let store = StateStore(loop: rig.loop, directory: "/proc/playerhost-none", logger: .init(label: "test"))
        store.source = { (rig.model, rig.now, []) }
        rig.publish(try rig.model.makeEligible("x"))
        store.receive(PublishedEvent(.model(.sessionCreated("x"))))
        store.writeNow()
        try runLoop(rig.loop) { !store.isPending }
        #expect(store.failedWrites == 1)
        #expect(store.fault != nil)
        store.stop()
    }
}
