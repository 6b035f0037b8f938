import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostHost
@testable import PlayerHostLoop
@testable import PlayerHostModel

/// Issue 24, "MPRIS from the gate": the export's signals carry exactly what its slot's gate
/// published, only what changed, and the window's first change at once. In process: the
/// publisher, the gate and the bridge without a bus (`onSignal` sees every payload the bridge
/// builds), a manual clock, and the loop only to let the window's timer fire.
@Suite struct MPRISFromGateTests {
    /// A host with a 30 ms window, the bridge following it, and every signal it builds.
    final class Host {
        let loop: EventLoop
        let service: NowPlayingService
        let bridge: MPRISBridge
        /// The manual clock the model, the gates and the bridge read.
        let clock: Box<MonotonicInstant>
        var signals: [MPRISSignal] = []

        init(export: MPRISExportMode = .own) throws {
            loop = try EventLoop()
            service = NowPlayingService(loop: loop, logger: .init(label: "t"))
            service.publisher.configure(.init(coalesceMilliseconds: 30))
            let clock = Box(MonotonicInstant(nanoseconds: 1_000_000_000))
            service.clock = { clock.value }
            self.clock = clock
            bridge = MPRISBridge(loop: loop, logger: .init(label: "t"), service: service, address: nil, exportMode: export)
            service.publisher.add(bridge)
            bridge.onSignal = { [weak self] in self?.signals.append($0) }
            bridge.start()
        }

        func advance(milliseconds: UInt64) {
            clock.value = MonotonicInstant(nanoseconds: clock.value.nanoseconds + milliseconds * 1_000_000)
        }

        /// A manual session, eligible, with its default commands and `info`.
        func session(_ id: SessionID, kind: SessionKind = .main, driver: PlayerDriver = .clock, caller: Caller = .host, info: JSON) throws {
            try service.perform { m, t in
                try m.createSession(id: id, kind: kind, automaticallyPublishes: false, driver: driver, caller: caller, now: t)
            }
            try service.perform { m, t in try m.configureAudio(session: id, category: .playback, now: t) }
            try service.perform { m, t in try m.bindDefaultCommands(session: id, now: t) }
            try service.perform { m, t in try m.setInfo(session: id, info: info, now: t) }
            try service.perform { m, t in try m.activateAudio(session: id, now: t) }
        }

        /// Lets what the set-up left in the windows go out, then a second of quiet.
        func settle() throws {
            #expect(try runLoop(loop, timeout: 5000) { !self.service.publisher.isTimerArmed })
            advance(milliseconds: 1000)
            signals = []
        }

        func update(_ id: SessionID, _ info: JSON) throws {
            try service.perform { m, t in try m.updateInfo(session: id, info: info, now: t) }
        }

        /// The PropertiesChanged payloads built so far, as name → value, in order.
        var changes: [[String: DBusValue]] {
            signals.compactMap {
                guard case .propertiesChanged(let c) = $0 else { return nil }
                return Dictionary(c.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            }
        }

        func close() throws {
            service.close()
            try loop.close()
        }
    }

    static func title(_ c: [String: DBusValue]) -> String? {
        guard case .dictionary(let m)? = c["Metadata"], case .string(let t)? = m["xesam:title"] else { return nil }
        return t
    }

    /// Every PropertiesChanged carries something, and only values that differ from what the
    /// signals before it said for the same name (a shell would see a change that changes nothing).
    static func expectEveryChangeChanges(_ changes: [[String: DBusValue]], sourceLocation: SourceLocation = #_sourceLocation) {
        var said: [String: DBusValue] = [:]
        for c in changes {
            #expect(!c.isEmpty, "an empty PropertiesChanged", sourceLocation: sourceLocation)
            for (name, value) in c {
                #expect(said[name] != value, "PropertiesChanged repeats \(name) = \(value)", sourceLocation: sourceLocation)
                said[name] = value
            }
        }
    }

    @Test func theWindowsFirstChangeGoesOutAtOnceAndAHeldValueIsInNoPayload() throws {
        let h = try Host()
        try h.session("r", info: ["title": "One", "elapsed": 0, "rate": 1])
        try h.settle()
        #expect(h.bridge.properties.metadata["xesam:title"] == .string("One"))

        // Quiet for a second: the first change goes out inside the operation that made it, at the
        // same manual instant, with no timer (before: measured 51 ms on the bus, twice).
        try h.update("r", ["title": "Two"])
        #expect(h.changes.count == 1 && Self.title(h.changes[0]) == "Two")
        #expect(!h.service.publisher.isTimerArmed, "sent, not waiting for a timer")

        // Inside the window: a rate and a title wait in the gate.
        h.advance(milliseconds: 1)
        try h.update("r", ["title": "Three", "rate": 2])
        #expect(h.changes.count == 1, "held: nothing built")
        #expect(h.service.publisher.isTimerArmed)
        // A command change is not gated; its payload is built from what the gate published, so
        // the held rate cannot leak into MaximumRate (before: the values were read from the live
        // model as the signal went out, MaximumRate 2 while Rate said 1).
        try h.service.perform { m, t in
            try m.configureCommand(session: "r", .changePlaybackRate, properties: ["supportedPlaybackRates": [0.5, 1]], now: t)
        }
        #expect(h.changes.count == 2)
        #expect(h.changes.last == ["MaximumRate": .double(1)], "only what changed, with the published rate 1: \(h.changes.last ?? [:])")
        #expect(h.bridge.properties.rate == 1 && h.bridge.properties.metadata["xesam:title"] == .string("Two"))

        // The window closes: the held value, once.
        #expect(try runLoop(h.loop, timeout: 5000) { h.changes.count == 3 })
        let last = try #require(h.changes.last)
        #expect(Self.title(last) == "Three")
        #expect(last["Rate"] == .double(2) && last["MaximumRate"] == .double(2))
        #expect(Set(last.keys) == ["Metadata", "Rate", "MaximumRate"], "\(last.keys.sorted())")
        Self.expectEveryChangeChanges(h.changes)
        try h.close()
    }

    @Test func aValueThatChangesNothingSendsNoPropertiesChanged() throws {
        let h = try Host()
        try h.session("r", info: ["title": "One", "elapsed": 0, "rate": 1])
        try h.settle()
        // Re-anchored on its own line and re-set to what it was: nothing renders differently.
        try h.update("r", ["elapsed": 1, "rate": 1])
        try h.update("r", ["title": "One"])
        #expect(h.signals.isEmpty, "\(h.signals)")
        // A change and its undo inside the window: the gate drops the pair, the bus hears nothing.
        try h.update("r", ["title": "Two"])
        h.advance(milliseconds: 1)
        try h.update("r", ["title": "Three"])
        try h.update("r", ["title": "Two"])
        #expect(!h.service.publisher.isTimerArmed, "back to what was published: nothing waits")
        // A command change that maps to no signalled property (Can* already true) sends nothing.
        try h.service.perform { m, t in
            try m.configureCommand(session: "r", .skipForward, properties: ["preferredIntervals": [30]], now: t)
        }
        #expect(h.changes.count == 1 && Self.title(h.changes[0]) == "Two", "\(h.changes)")
        Self.expectEveryChangeChanges(h.changes)
        try h.close()
    }

    /// `[mpris] export = "own"`: while an imported player holds Now Playing, the export shows the
    /// host's own session, and that slot has a gate of its own (before: its info went to the bus
    /// as the model changed, ungated and from the live model).
    @Test func theExportsOwnSessionIsGatedWhileAnImportedPlayerHoldsTheSlot() throws {
        let h = try Host()
        try h.session("main", info: ["title": "Own", "elapsed": 0, "rate": 1])
        #expect(h.service.model.nowPlayingSession == "main")
        // The import plugin's player: an app of its own, its commands handled by the plugin.
        try h.service.perform { m, t in try m.registerApp(name: "importer", client: 7, now: t) }
        try h.service.perform { m, t in m.setArbiterPolicy(ArbiterPolicy(pinned: "imp"), now: t) }
        try h.service.perform { m, t in
            try m.createSession(id: "imp", kind: MPRISExportSelection.importedKind, automaticallyPublishes: false, driver: .external,
                                caller: .client(7), now: t)
        }
        try h.service.perform { m, t in try m.configureAudio(session: "imp", category: .playback, now: t) }
        try h.service.perform { m, t in try m.addTarget(session: "imp", .togglePlayPause, client: 7, now: t) }
        try h.service.perform { m, t in try m.enableCommand(session: "imp", .togglePlayPause, enabled: true, now: t) }
        try h.service.perform { m, t in try m.setInfo(session: "imp", info: ["title": "Imported", "elapsed": 0, "rate": 1], now: t) }
        try h.service.perform { m, t in try m.activateAudio(session: "imp", now: t) }
        try h.settle()
        #expect(h.service.model.nowPlayingSession == "imp")
        #expect(h.bridge.properties.session == "main" && h.bridge.properties.metadata["xesam:title"] == .string("Own"))

        try h.update("main", ["title": "Two"])
        #expect(h.changes.count == 1 && h.changes.first.flatMap(Self.title) == "Two" && h.changes.first?.count == 1,
                "the export slot's first change, at once, and only it: \(h.changes)")
        h.advance(milliseconds: 1)
        try h.update("main", ["title": "Held"])
        #expect(h.changes.count == 1, "held in the export slot's window")
        #expect(h.bridge.properties.metadata["xesam:title"] == .string("Two"))
        #expect(try runLoop(h.loop, timeout: 5000) { h.changes.count == 2 })
        #expect(h.changes.last.flatMap(Self.title) == "Held")
        // The imported player's own changes never reach the export.
        try h.update("imp", ["title": "Elsewhere"])
        #expect(h.changes.count == 2)
        Self.expectEveryChangeChanges(h.changes)
        try h.close()
    }
}
