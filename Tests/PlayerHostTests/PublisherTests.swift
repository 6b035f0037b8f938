import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostHost
@testable import PlayerHostLoop
@testable import PlayerHostModel
@testable import PlayerHostRPC

/// The Publisher and the JSON-RPC subscribers sink in-process: no socket, no daemon.
@Suite struct PublisherTests {
    /// A sink that records what it receives.
    final class Recorder: EventSink {
        var events: [PublishedEvent] = []
        func receive(_ event: PublishedEvent) { events.append(event) }
        var nowPlaying: [NowPlayingSnapshot?] {
            events.compactMap { if case .nowPlaying(let v) = $0.payload { return .some(v) } else { return nil } }
        }
    }

    func connection(_ id: Int) -> RPCConnection { RPCConnection(id: id, dispatcher: RPCDispatcher()) }

    @Test func oneRenderingIsQueuedToEverySubscriberOfTheTopicOnly() throws {
        let subs = RPCSubscribers()
        let a = connection(1), b = connection(2), star = connection(3), other = connection(4)
        try subs.subscribe(a, ["nowPlaying"])
        try subs.subscribe(b, ["nowPlaying", "sessions"])
        try subs.subscribe(star, ["*", "nowPlaying"])
        try subs.subscribe(other, ["audio"])
        #expect(subs.count(.nowPlaying) == 3)
        let event = PublishedEvent(.nowPlaying(nil))
        subs.receive(event)
        #expect(event.isRendered)
        #expect(a.pendingOutput == event.notificationLine && b.pendingOutput == a.pendingOutput, "the same bytes")
        #expect(star.pendingOutput == a.pendingOutput, "* and nowPlaying: one copy")
        // Not even copied: every subscriber holds the event's own buffer.
        let buffer = event.notificationLine.withUnsafeBufferPointer { $0.baseAddress }
        #expect([a, b, star].allSatisfy { $0.sharedLine.withUnsafeBufferPointer { $0.baseAddress } == buffer })
        #expect(other.pendingOutput.isEmpty)
        #expect(subs.deliveries == 3)
        subs.unsubscribe(star, ["*"])
        #expect(subs.count(.nowPlaying) == 3, "still subscribed by name")
        subs.unsubscribe(star, nil)
        subs.remove(connectionID: a.id)
        #expect(subs.count(.nowPlaying) == 1)
        // A topic no one holds any more is never rendered.
        let unseen = PublishedEvent(.model(.commandChanged("s", RemoteCommand(kind: .play))))
        subs.receive(unseen)
        #expect(!unseen.isRendered)
    }

    @Test func aBurstOfEventsIsOneWritePerSubscriber() throws {
        let subs = RPCSubscribers()
        let c = connection(1)
        var writes = 0
        c.onOutput = { writes += 1 }
        try subs.subscribe(c, ["nowPlaying"])
        for _ in 0..<3 { subs.receive(PublishedEvent(.nowPlaying(nil))) }
        #expect(writes == 0 && subs.hasUnflushed)
        subs.flush()
        #expect(writes == 1 && !subs.hasUnflushed)
        #expect(c.pendingOutput.count == 3 * PublishedEvent(.nowPlaying(nil)).notificationLine.count)
    }

    @Test func leavingFromTheMiddleOfATopicKeepsEveryOtherSubscriber() throws {
        let subs = RPCSubscribers()
        let cs = (1...5).map(connection)
        for c in cs { try subs.subscribe(c, ["nowPlaying"]) }
        subs.remove(connectionID: 2)
        subs.unsubscribe(cs[0], ["nowPlaying"])
        subs.remove(connectionID: 2)  // twice: nothing more
        #expect(subs.count(.nowPlaying) == 3)
        subs.receive(PublishedEvent(.nowPlaying(nil)))
        #expect(cs.map { !$0.pendingOutput.isEmpty } == [false, false, true, true, true])
        #expect(subs.deliveries == 3)
        // Back in: at the end of the topic's array, once however often it subscribes.
        try subs.subscribe(cs[0], ["nowPlaying"])
        try subs.subscribe(cs[0], ["nowPlaying", "*"])
        #expect(subs.count(.nowPlaying) == 4)
    }

    @Test func aConnectionOnTwoTopicsIsWrittenOncePerFlush() throws {
        let subs = RPCSubscribers()
        let c = connection(1)
        var writes = 0
        c.onOutput = { writes += 1 }
        try subs.subscribe(c, ["nowPlaying", "sessions"])
        subs.receive(PublishedEvent(.nowPlaying(nil)))
        subs.receive(PublishedEvent(.model(.sessionClosed("s", reason: .closed))))
        subs.flush()
        #expect(writes == 1 && !c.isQueuedForFlush)
        // Queued again after a flush: written again.
        subs.receive(PublishedEvent(.nowPlaying(nil)))
        subs.flush()
        #expect(writes == 2)
    }

    @Test func aNewSubscriberStartsFromTheCurrentValueAndIsNotSentItTwice() throws {
        let subs = RPCSubscribers()
        let old = connection(1), new = connection(2)
        try subs.subscribe(old, ["nowPlaying"])
        try subs.subscribe(new, ["nowPlaying"])
        let current = NowPlayingSnapshot(session: "s", info: NowPlayingInfo([.title: .text("Now")]), playbackState: .playing, timestamp: .zero)
        subs.start(new, from: current)
        let given = new.pendingOutput.count
        // The value that waited in the gate goes out: the old subscriber gets it, the new one has it.
        subs.receive(PublishedEvent(.nowPlaying(current)))
        #expect(new.pendingOutput.count == given && !old.pendingOutput.isEmpty)
        // From then on both get everything.
        subs.receive(PublishedEvent(.nowPlaying(nil)))
        #expect(new.pendingOutput.count > given)
    }

    @Test func anAppFacingEventReachesItsOwnerUnsubscribed() {
        let subs = RPCSubscribers()
        let owner = connection(7)
        subs.connection = { $0 == 7 ? owner : nil }
        subs.receive(PublishedEvent(.model(.activeChanged("s", isActive: true)), owner: 7))
        #expect(!owner.pendingOutput.isEmpty)
    }

    @Test func subscriptionsPerClientHaveALimitThatNamesIt() throws {
        let subs = RPCSubscribers(maxSubscriptions: 2)
        let c = connection(1)
        try subs.subscribe(c, ["nowPlaying", "sessions"])
        #expect {
            try subs.subscribe(c, ["audio"])
        } throws: { e in
            guard let r = e as? RPCError else { return false }
            return r.code == RPCErrorCode.limitExceeded.rawValue && r.data?["limit"] == "max_subscriptions_per_client" && r.data?["value"] == 2
        }
        #expect(subs.count(.audio) == 0, "a refused subscribe changes nothing")
        #expect(throws: RPCError.self) { try subs.subscribe(c, ["bogus"]) }
    }

    @Test func theWindowTimerIsArmedOnlyWhileAValueWaits() throws {
        let loop = try EventLoop()
        let np = NowPlayingService(scheduler: loop, logger: .init(label: "t"))
        np.publisher.configure(.init(coalesceMilliseconds: 30))
        let rec = Recorder()
        np.publisher.add(rec, topics: [.nowPlaying])
        var now = MonotonicInstant(nanoseconds: 1_000_000_000)
        np.clock = { now }
        try np.perform { m, t in try m.createSession(id: "r", kind: .main, automaticallyPublishes: false, now: t) }
        try np.perform { m, t in try m.configureAudio(session: "r", category: .playback, now: t) }
        try np.perform { m, t in try m.activateAudio(session: "r", now: t) }
        try np.perform { m, t in try m.bindDefaultCommands(session: "r", now: t) }
        #expect(rec.nowPlaying.count == 1, "the slot's first value, at once")
        #expect(!np.publisher.isTimerArmed, "a send alone arms nothing")
        for i in 0..<20 {
            now = MonotonicInstant(nanoseconds: now.nanoseconds + 100_000)
            try np.perform { m, t in try m.updateInfo(session: "r", info: ["title": .string("t\(i)")], now: t) }
        }
        #expect(np.publisher.isTimerArmed, "a value waits")
        #expect(rec.nowPlaying.count == 1)
        // The fake clock stands still: only the timer's firing closes the window.
        try runLoop(loop, timeout: 5000) { rec.nowPlaying.count == 2 }
        #expect(rec.nowPlaying.last??.info.title == "t19")
        #expect(!np.publisher.isTimerArmed, "nothing waits: no timer")
        #expect(np.publisher.currentNowPlaying()?.info.title == "t19")
        np.close()
        try loop.close()
        #expect(loop.handleCount == 0)
    }
}
