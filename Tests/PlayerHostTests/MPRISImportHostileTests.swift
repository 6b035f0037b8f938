import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient

/// Issue 21, the import side, end to end: hostile desktop players (`HostilePlayers`, python3-dbus
/// on the fixture's private bus) against the real daemon. A churning name leaves no descriptor
/// behind, silent players give their slots to one that plays, and a seeded storm of wrong types,
/// huge values, floods and churn leaves the daemon answering with its descriptors back where
/// they were. Every wait has a deadline.
@Suite(.serialized) struct MPRISImportHostileTests {
    static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// Item 6: a name that comes and goes 300 times, half of the times right after answering the
    /// importer's `GetAll` (so it goes while the import's app connection is opening): every app
    /// connection opened is closed again, so the daemon's fds return to where they were.
    @Test func aChurningNameLeavesNoDescriptorsBehind() throws {
        let f = try ImportFixture()
        defer { f.close() }
        let hostile = try HostilePlayers(f)
        // One import and its removal first, so the baseline counts whatever stays for good.
        try hostile.call("Spawn", "warm Paused")
        #expect(try f.waitUntil(10) { try f.session("mpris-warm") != nil })
        try hostile.call("Drop", "warm")
        #expect(try f.waitUntil(10) { try f.sessionIDs().isEmpty })
        let before = try #require(f.daemonFDs())

        try hostile.call("Churn", "churn 300", timeout: 120)
        var after = f.daemonFDs() ?? -1
        let settled = try f.waitUntil(15) {
            after = f.daemonFDs() ?? -1
            let empty = try f.sessionIDs().isEmpty
            return after >= 0 && after <= before + 2 && empty
        }
        print("import churn: 300 churns, daemon fds \(before) → \(after)")
        #expect(settled, "fds \(before) → \(after) after 300 churns")
        #expect(try f.client.call("host.ping") == "pong")
    }

    /// Item 10: 40 silent players fill the 32 slots and 8 wait; one that arrives playing takes
    /// the slot of the longest-silent one; a slot that frees goes to a waiting one; a waiting one
    /// that starts playing gets a slot.
    @Test func silentPlayersGiveTheirSlotsToOnesThatPlay() throws {
        let f = try ImportFixture()
        defer { f.close() }
        let hostile = try HostilePlayers(f)
        let silent = (0..<40).map { "silent\($0)" }
        for name in silent { try hostile.call("Spawn", "\(name) Paused") }
        func imported() throws -> [String] { try f.sessionIDs().filter { $0.hasPrefix("mpris-") } }
        func shown() -> [String] { (try? imported()) ?? [] }
        #expect(try f.waitUntil(30) { try imported().count == 32 })

        try hostile.call("Spawn", "real Playing")
        #expect(try f.waitUntil(15) {
            try f.session("mpris-real")?["playbackState"] == "playing" && imported().count == 32
        }, "imported: \(shown())")

        // An imported silent one goes: a waiting one takes the freed slot.
        let gone = try #require(try imported().first { $0 != "mpris-real" })
        let waitingBefore = Set(silent.map { "mpris-" + $0 }).subtracting(try imported())
        try hostile.call("Drop", String(gone.dropFirst("mpris-".count)))
        #expect(try f.waitUntil(15) {
            let now = try imported()
            return now.count == 32 && !now.contains(gone) && !waitingBefore.isDisjoint(with: now)
        }, "imported: \(shown())")

        // A waiting one starts playing: it is imported, and it plays.
        let waiting = try #require(Set(silent.map { "mpris-" + $0 }).subtracting(try imported()).subtracting([gone]).sorted().first)
        try hostile.call("Set", "\(waiting.dropFirst("mpris-".count)) PlaybackStatus '<\"Playing\">'")
        #expect(try f.waitUntil(15) {
            try f.session(waiting)?["playbackState"] == "playing" && imported().count == 32
                && f.session("mpris-real") != nil
        }, "imported: \(shown())")
    }

    /// A seeded storm of hostile players (wrong types, 1 MiB strings, 100 000-entry lists,
    /// nesting 28 deep, floods of `PropertiesChanged`, `Seeked` at INT64_MIN/MAX, calls never
    /// answered, churn) while a client sends every seek command with extreme values to whatever
    /// is imported. Then: `host.ping` answers, and once the players are gone the daemon's fds are
    /// back where they were. `IMPORT_FUZZ_SECONDS` (default 25) and `IMPORT_FUZZ_SEED` change the
    /// run; `scripts/fuzz-import.sh SECONDS [SEED]` runs a longer one.
    @Test func aStormOfHostilePlayersLeavesTheDaemonAnswering() throws {
        let seconds = Double(Self.environment("IMPORT_FUZZ_SECONDS") ?? "") ?? 25
        let seed = UInt64(Self.environment("IMPORT_FUZZ_SEED") ?? "") ?? 0x1_AB0_57
        let tag = "import fuzz seed \(seed) (replay: scripts/fuzz-import.sh \(Int(seconds)) \(seed))"
        let f = try ImportFixture()
        defer { f.close() }
        let hostile = try HostilePlayers(f)
        let pid = try #require(f.harness.process?.pid)
        let commander = try f.harness.client(timeout: 10)
        defer { commander.close() }
        #expect(try commander.call("host.ping") == "pong")
        let fdsBefore = try #require(f.daemonFDs())
        let openBefore = (try? runShell("ls -l /proc/\(pid)/fd").output) ?? ""
        let rssBefore = residentKiB(pid: pid) ?? 0

        try hostile.start("Fuzz", "\(seed) \(seconds) 12", timeout: Int(seconds) + 60)
        var random = FuzzRandom(seed: seed)
        let extremes: [JSON] = [.double(1e300), .double(-1e300), .double(1.7976931348623157e308), .double(9.3e12), .double(-1),
                                .double(0), .double(5), .double(1e9), .int(Int64.max), .int(Int64.min), .string("5"), .null]
        let commands = ["changePlaybackPosition", "skipForward", "skipBackward", "changePlaybackRate", "play", "pause",
                        "togglePlayPause", "stop", "nextTrack", "changeRepeatMode", "changeShuffleMode"]
        var sent = 0, pings = 0
        var sessions: [String] = []
        let end = ControlClient.now() + seconds
        var nextPing = 0.0
        while ControlClient.now() < end {
            f.drainDaemonOutput()
            f.drainEvents()
            if sessions.isEmpty || random.chance(10) {
                sessions = (try commander.call("session.list").arrayValue ?? []).compactMap { $0["id"]?.stringValue }
                    .filter { $0.hasPrefix("mpris-") }
            }
            if let session = sessions.isEmpty ? nil : random.pick(sessions) {
                let value = random.pick(extremes)
                // Failures are expected (a player that went, a value refused); a dead daemon is not.
                _ = try? commander.call("command.send", ["session": .string(session), "command": .string(random.pick(commands)),
                                                         "position": value, "interval": value, "rate": value,
                                                         "repeatType": "all", "shuffleType": "items"])
                sent += 1
            } else {
                // Nothing imported yet: wait for the next event (at most 10 ms), not a spin.
                _ = try? f.client.nextNotification(timeout: 0.01)
            }
            if ControlClient.now() >= nextPing {
                let pong = try? commander.call("host.ping")
                #expect(pong == "pong", "\(tag): ping after \(sent) commands; daemon exit \(String(describing: f.harness.exit))")
                guard pong == "pong" else {
                    Issue.record("\(tag): \(f.harness.stderrText.suffix(3000))")
                    return
                }
                pings += 1
                nextPing = ControlClient.now() + 0.5
            }
        }
        // The players' side ends on its own clock: its summary is its reply.
        var summary = ""
        #expect(try f.waitUntil(30) {
            summary = (try? runShell("cat '\(hostile.log)'").output) ?? ""
            return summary.contains("actions=")
        }, "\(tag): the hostile players did not finish: \(summary.suffix(2000))")
        try hostile.call("DropAll")
        var fdsAfter = -1
        let settled = try f.waitUntil(20) {
            fdsAfter = f.daemonFDs() ?? -1
            let empty = try f.sessionIDs().isEmpty
            // + 2: the artwork helper (a socketpair) may have started for an item's artUrl; a
            // leak per player or per churn would be hundreds over a storm.
            return fdsAfter >= 0 && fdsAfter <= fdsBefore + 2 && empty
        }
        let left = (try? f.sessionIDs()) ?? []
        let open = settled ? "" : ((try? runShell("ls -l /proc/\(pid)/fd; ps --ppid \(pid) -o pid,args").output) ?? "")
        #expect(settled, "\(tag): fds \(fdsBefore) → \(fdsAfter), sessions \(left); open before: \(openBefore) after: \(open)")
        #expect(try commander.call("host.ping") == "pong", "\(tag)")
        #expect(f.harness.exit == nil, "\(tag): \(f.harness.stderrText.suffix(3000))")
        let rssAfter = residentKiB(pid: pid) ?? 0
        let players = summary.split(separator: "\n").last { $0.contains("actions=") } ?? ""
        print("import fuzz: seed \(seed), \(Int(seconds)) s, players: \(players), \(sent) commands, \(pings) pings, fds \(fdsBefore) → \(fdsAfter), RSS \(rssBefore) → \(rssAfter) KiB")
    }
}
