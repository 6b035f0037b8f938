import Testing
@testable import PlayerHost
@testable import Plugins

/// The mpv session machine without mpv: each row is a phase and an input, and the phase and
/// actions that follow (start, idle, load and restore, a seek in flight, a report in flight,
/// crash and restart with backoff, hang, quit). The real mpv keeps its end-to-end suites
/// (MPVEndToEndTests, RestartEndToEndTests…); these pin the decisions.
@Suite struct MPVSessionMachineTests {
    typealias M = MPVSessionMachine
    typealias A = M.Action

    static let observeCount = MPVState.observed.count
    static let ms: UInt64 = 1_000_000

    /// A machine whose inputs are all at `t` ns unless said.
    struct Driven {
        var m = M(session: "s", restartPolicy: .standard, answerTimeoutMS: 1000)
        var t: UInt64 = 1_000_000_000
        /// Tags of `get_property` sends in the last actions, by property.
        var gets: [String: Int] = [:]
        var last: [A] = []

        @discardableResult
        mutating func feed(_ input: M.Input, after ms: UInt64 = 0) -> [A] {
            t += ms * MPVSessionMachineTests.ms
            last = m.handle(input, now: t)
            for case .send(let c, let tag?) in last where c.first == "get_property" {
                if let name = c[1].stringValue { gets[name] = tag }
            }
            return last
        }

        /// Answers the report being read (every property, `time-pos` last) with mpv's values.
        mutating func answerSync(timePos: JSON = 12.0) -> [A] {
            var out: [A] = []
            for name in M.moving { out += feed(.reply(gets[name] ?? -1, .success(.null))) }
            out += feed(.reply(gets["time-pos"] ?? -1, .success(timePos)))
            return out
        }

        /// Spawned, connected and idle: running, with `state` as mpv's.
        static func running(_ state: MPVState = MPVMappingTests.playing()) -> Driven {
            var d = Driven()
            d.feed(.start)
            d.feed(.spawned)
            d.feed(.connected)
            d.feed(.event("idle", [:]))
            d.m.state = state
            return d
        }
    }

    static func sends(_ actions: [A]) -> [[JSON]] {
        actions.compactMap { if case .send(let c, _) = $0 { c } else { nil } }
    }

    static func reports(_ actions: [A]) -> [[String: JSON]] {
        actions.compactMap { if case .report(let r) = $0 { r } else { nil } }
    }

    static func answers(_ actions: [A]) -> [M.Answer] {
        actions.compactMap { if case .answer(_, let a) = $0 { a } else { nil } }
    }

    static func isLog(_ a: A) -> Bool { if case .log = a { true } else { false } }

    // MARK: - Start and idle

    @Test func startSpawnsConnectsAndWaitsForIdleBeforeRunning() {
        var d = Driven()
        // (phase, input) → (phase, actions)
        #expect(d.feed(.start) == [.unlinkSocket, .spawn])
        #expect(d.m.phase == .connecting)
        #expect(d.feed(.start) == [], "a second start while starting does nothing")
        #expect(d.feed(.spawned) == [.connect])
        #expect(d.m.processAlive)
        let connected = d.feed(.connected)
        #expect(d.m.phase == .awaitingIdle && d.m.link == .up)
        #expect(Self.sends(connected).count == Self.observeCount && connected.allSatisfy {
            if case .send(let c, nil) = $0 { return c.first == "observe_property" }
            return $0 == .arm(.idle, afterMS: 3000)
        })
        #expect(connected.last == .arm(.idle, afterMS: 3000))
        // mpv says it is idle: running, first report scheduled.
        #expect(d.feed(.event("property-change", ["name": "idle-active", "data": true]))
            == [.cancel(.idle), .arm(.sync, afterMS: 0)])
        #expect(d.m.phase == .running(restore: nil))
    }

    @Test func anMpvThatNeverSaysIdleRunsWhenTheIdleTimerFires() {
        var d = Driven()
        d.feed(.start); d.feed(.spawned); d.feed(.connected)
        #expect(d.feed(.timer(.idle), after: 3000) == [.cancel(.idle), .arm(.sync, afterMS: 0)])
        #expect(d.m.phase == .running(restore: nil))
    }

    @Test func aSpawnFailureIsADeathWithBackoff() {
        var d = Driven()
        d.feed(.start)
        let out = d.feed(.spawnFailed("no such file"))
        #expect(out.first == .log("cannot start mpv: no such file"))
        #expect(out.last == .arm(.restart, afterMS: 250))
        #expect(d.m.phase == .restarting(afterMS: 250))
    }

    @Test func aConnectionReachingAStoppedMpvIsRefused() {
        var d = Driven()
        d.feed(.start); d.feed(.spawned)
        d.feed(.stop)
        #expect(d.feed(.connected) == [.closeConnection])
        #expect(d.m.phase == .stopped && d.m.link == .none)
    }

    // MARK: - Reports

    @Test func aReportReadsWhatMovesThenSendsAndAnswersWhoWaited() {
        var d = Driven.running()
        let flush = d.feed(.timer(.sync))
        #expect(Self.sends(flush) == (M.moving + ["time-pos"]).map { ["get_property", .string($0)] })
        #expect(d.m.syncRound != nil)
        // A play while the report is in flight: its answer waits for the next report.
        let play = d.feed(.perform(7, ["command": "pause"]))
        #expect(Self.sends(play) == [["set_property", "pause", true]])
        guard case .send(_, let tag?) = play.last else { return #expect(Bool(false)) }
        #expect(d.feed(.reply(tag, .success(.null))) == [.cancel(.sync)], "in flight: the next report waits for this one")
        let first = d.answerSync()
        #expect(Self.reports(first).count == 1 && Self.answers(first).isEmpty)
        // The second round (syncAgain) was sent right after the first report.
        #expect(Self.sends(first).count == M.moving.count + 1)
        let second = d.answerSync()
        #expect(Self.reports(second).count == 1 && Self.answers(second) == [.command(.success)])
        #expect(d.m.syncRound == nil)
        #expect(Self.reports(second)[0]["elapsed"] == 12.0)
    }

    @Test func aReportIsHeldWhileAFileOpensAtMostTwoSeconds() {
        var d = Driven.running()
        d.feed(.event("start-file", [:]))
        #expect(d.feed(.timer(.sync)) == [.arm(.sync, afterMS: 250)], "held: re-checked in 250 ms")
        #expect(d.m.loadingFile)
        let late = d.feed(.timer(.sync), after: 2000)
        #expect(Self.sends(late).count == M.moving.count + M.tags.count + 1, "past maxHold the report goes out whatever mpv said")
    }

    /// The first report after a file started reads the file's tags too: mpv may send them as
    /// property changes after its `playback-restart`, and an `npctl open` answered with that
    /// report showed the title but no artist (seen under load). Later reports read what moves.
    @Test func theFirstReportAfterAFileStartsReadsItsTags() {
        var d = Driven.running()
        d.feed(.event("start-file", [:]))
        let restart = d.feed(.event("playback-restart", [:]))
        #expect(Self.sends(restart) == (M.moving + M.tags + ["time-pos"]).map { ["get_property", .string($0)] })
        d.feed(.reply(d.gets["metadata"] ?? -1, .success(["ARTIST": "Test Artist", "album": "Test Album"])))
        let sent = d.answerSync()
        let report = Self.reports(sent).first
        let items = report?["items"]?.arrayValue ?? []
        let index = Int(report?["index"]?.intValue ?? -1)
        let item: JSON? = items.indices.contains(index) ? items[index] : nil
        #expect(item?["artist"] == "Test Artist" && item?["info"]?["albumTitle"] == "Test Album", "\(String(describing: report))")
        #expect(Self.sends(d.feed(.timer(.sync))).count == M.moving.count + 1, "the tags are read once per file")
    }

    // MARK: - Seek in flight

    @Test func aSeekAnswersAfterThePlaybackRestartWithTheReport() {
        var d = Driven.running()
        let seek = d.feed(.perform(1, ["command": "changePlaybackPosition", "position": 20.0]))
        #expect(Self.sends(seek) == [["seek", 20.0, "absolute+exact"]])
        #expect(d.m.seeking)
        guard case .send(_, let tag?) = seek.last else { return #expect(Bool(false)) }
        let acked = d.feed(.reply(tag, .success(.null)))
        guard case .arm(.afterRestart(let waiter), afterMS: 1200)? = acked.last else { return #expect(Bool(false), "\(acked)") }
        // While the seek lands a report is held.
        #expect(d.feed(.timer(.sync)) == [.arm(.sync, afterMS: 250)])
        let restart = d.feed(.event("playback-restart", [:]))
        #expect(restart.first == .cancel(.afterRestart(waiter)))
        #expect(!d.m.seeking && Self.sends(restart).count == M.moving.count + 1)
        #expect(Self.answers(d.answerSync(timePos: 20.0)) == [.command(.success)])
    }

    @Test func aSeekWhoseRestartNeverComesAnswersAtItsDeadline() {
        var d = Driven.running()
        let seek = d.feed(.perform(1, ["command": "changePlaybackPosition", "position": 20.0]))
        guard case .send(_, let tag?) = seek.last else { return #expect(Bool(false)) }
        guard case .arm(.afterRestart(let waiter), _)? = d.feed(.reply(tag, .success(.null))).last else { return #expect(Bool(false)) }
        let fired = d.feed(.timer(.afterRestart(waiter)), after: 1200)
        #expect(!d.m.seeking && Self.sends(fired).count == M.moving.count + 1)
        #expect(Self.answers(d.answerSync()) == [.command(.success)])
    }

    @Test func aRefusedCommandAnswersItsRefusalStatusAfterAReport() {
        var d = Driven.running()
        let next = d.feed(.perform(1, ["command": "nextTrack"]))
        guard case .send(_, let tag?) = next.last else { return #expect(Bool(false)) }
        let refused = d.feed(.reply(tag, .failure(MPVError("error running command"))))
        #expect(refused.contains(where: Self.isLog))
        #expect(Self.answers(d.answerSync()) == [.command(.noSuchContent)])
    }

    @Test func commandsBeforeRunningOrDuringARestoreFail() {
        var d = Driven()
        #expect(d.feed(.perform(1, ["command": "play"])) == [.answer(1, .command(.commandFailed))])
        var r = Driven.running()
        r.m.phase = .running(restore: .seeking)
        #expect(r.feed(.perform(2, ["command": "play"])) == [.answer(2, .command(.commandFailed))])
    }

    // MARK: - Load and restore

    static let restore = M.Restore(urls: ["/m/a.ogg", "/m/b.ogg"], index: 1, position: 42, paused: false,
                                   loopFile: false, loopPlaylist: true, volume: 80, mute: false)

    @Test func aRestoreLoadsReselectsSeeksThenUnpauses() {
        var d = Driven()
        #expect(d.feed(.reopen(Self.restore, shuffle: "off")) == [.unlinkSocket, .spawn])
        d.feed(.spawned); d.feed(.connected)
        let idle = d.feed(.event("idle", [:]))
        #expect(d.m.phase == .running(restore: .loading(reselected: 0)))
        #expect(Self.sends(idle) == [
            ["set_property", "pause", true], ["set_property", "loop-file", "no"], ["set_property", "loop-playlist", "inf"],
            ["set_property", "volume", 80.0], ["set_property", "mute", false],
            ["loadfile", "/m/a.ogg", "append"], ["loadfile", "/m/b.ogg", "append"], ["playlist-play-index", 1],
        ])
        // mpv started the first entry itself (its start-up race): select ours again.
        let first = d.feed(.event("playback-restart", [:]))
        #expect(Self.sends(first) == [["get_property", "playlist-pos"]])
        let wrong = d.feed(.reply(d.gets["playlist-pos"] ?? -1, .success(0)))
        #expect(Self.sends(wrong) == [["playlist-play-index", 1]] && wrong.contains(where: Self.isLog))
        #expect(d.m.phase == .running(restore: .loading(reselected: 1)))
        d.feed(.event("playback-restart", [:]))
        let right = d.feed(.reply(d.gets["playlist-pos"] ?? -1, .success(1)))
        #expect(Self.sends(right) == [["seek", 42.0, "absolute+exact"]])
        #expect(d.m.phase == .running(restore: .seeking) && d.m.seeking)
        // The seek landed: the restore ends, unpaused as it was, and reports at once.
        let landed = d.feed(.event("playback-restart", [:]))
        #expect(d.m.phase == .running(restore: nil) && d.m.restore == nil)
        #expect(Self.sends(landed).first == ["set_property", "pause", false])
        #expect(Self.sends(landed).dropFirst().allSatisfy { $0.first == "get_property" })
    }

    /// mpv's own numbers never trap the daemon: a `playlist-pos` of Int64.max during a restore
    /// (it is logged as `pos + 1`) and a restore position beyond any time (logged in seconds).
    @Test func absurdNumbersFromMpvOrTheStateFileAreLoggedNotTrapped() {
        var huge = Self.restore
        huge.position = 1e300
        var d = Driven()
        d.feed(.reopen(huge, shuffle: "off")); d.feed(.spawned); d.feed(.connected); d.feed(.event("idle", [:]))
        d.feed(.event("playback-restart", [:]))
        let wrong = d.feed(.reply(d.gets["playlist-pos"] ?? -1, .success(.int(Int64.max))))
        #expect(Self.sends(wrong) == [["playlist-play-index", 1]] && wrong.contains(where: Self.isLog))
        d.feed(.event("playback-restart", [:]))
        d.feed(.reply(d.gets["playlist-pos"] ?? -1, .success(1)))
        let landed = d.feed(.event("playback-restart", [:]))
        #expect(d.m.restore == nil && landed.contains(where: Self.isLog))
        #expect(M.wholeSeconds(.nan) == 0 && M.wholeSeconds(-5) == 0 && M.wholeSeconds(1e300) == 1_000_000_000)
    }

    @Test func aRestoreGivesUpReselectingAfterThreeTries() {
        var d = Driven()
        d.feed(.reopen(Self.restore, shuffle: "off")); d.feed(.spawned); d.feed(.connected); d.feed(.event("idle", [:]))
        for _ in 0..<3 {
            d.feed(.event("playback-restart", [:]))
            d.feed(.reply(d.gets["playlist-pos"] ?? -1, .success(0)))
        }
        d.feed(.event("playback-restart", [:]))
        let fourth = d.feed(.reply(d.gets["playlist-pos"] ?? -1, .success(0)))
        #expect(Self.sends(fourth) == [["seek", 42.0, "absolute+exact"]], "the fourth wrong entry is seeked anyway")
    }

    @Test func anEditWaitsForMpvStartsItAndRunsOnceIdle() {
        var d = Driven()
        let edit = M.Edit(plan: .load(["/m/c.ogg"], .append), wait: .acknowledged)
        #expect(d.feed(.edit(5, edit)) == [.unlinkSocket, .spawn])
        d.feed(.spawned); d.feed(.connected)
        let idle = d.feed(.event("idle", [:]))
        #expect(Self.sends(idle) == [["get_property", "playlist-count"], ["get_property", "playlist-pos"]])
        d.feed(.reply(d.gets["playlist-count"] ?? -1, .success(0)))
        let planned = d.feed(.reply(d.gets["playlist-pos"] ?? -1, .failure(MPVError("property unavailable"))))
        #expect(Self.sends(planned) == [["loadfile", "/m/c.ogg", "append"]])
        guard case .send(_, let tag?) = planned.last else { return #expect(Bool(false)) }
        let acked = d.feed(.reply(tag, .success(.null)))
        #expect(Self.sends(acked).count == M.moving.count + 1)
        #expect(Self.answers(d.answerSync()) == [.edit(.success(()))])
    }

    @Test func anEditOutOfRangeSendsNothing() {
        var d = Driven.running()
        d.feed(.edit(5, M.Edit(plan: .queue(.remove(7)), wait: .acknowledged)))
        d.feed(.reply(d.gets["playlist-count"] ?? -1, .success(2)))
        let out = d.feed(.reply(d.gets["playlist-pos"] ?? -1, .success(1)))
        #expect(out == [.answer(5, .edit(.failure(.outOfRange(.init(param: "index", index: 7, count: 2)))))])
    }

    // MARK: - Crash, hang, restart with backoff

    @Test func aDeathReportsFailedRemembersTheQueueAndRestartsWithDoublingBackoff() {
        var d = Driven.running()
        d.m.state.apply("pause", true)
        let died = d.feed(.exited("killed by signal 9"))
        #expect(died.first == .closeConnection)
        #expect(Self.reports(died).first?["status"] == "failed")
        #expect(died.last == .arm(.restart, afterMS: 250))
        #expect(died.contains(.log("mpv for session s killed by signal 9; restarting in 250 ms")))
        #expect(d.m.phase == .restarting(afterMS: 250) && d.m.restarts == 1)
        #expect(d.m.restore?.urls == ["/m/a.ogg", "/m/b.ogg"] && d.m.restore?.index == 1 && d.m.restore?.paused == true)
        // The backoff: restart, die at once again, twice as long.
        #expect(d.feed(.timer(.restart), after: 250) == [.unlinkSocket, .spawn])
        d.feed(.spawned)
        #expect(d.feed(.exited("exited with status 1")).last == .arm(.restart, afterMS: 500))
        for delay: UInt64 in [1000, 2000] {
            d.feed(.timer(.restart)); d.feed(.spawned)
            #expect(d.feed(.exited("exited with status 1")).last == .arm(.restart, afterMS: delay))
        }
        // An edit waiting while mpv restarts is answered when it gives up (the fifth quick death).
        d.feed(.edit(9, M.Edit(plan: .queue(.clear), wait: .acknowledged)))
        d.feed(.timer(.restart)); d.feed(.spawned)
        let gaveUp = d.feed(.exited("exited with status 1"))
        guard case .failed = d.m.phase else { return #expect(Bool(false), "\(d.m.phase)") }
        #expect(Self.answers(gaveUp).count == 1)
        #expect(!gaveUp.contains { if case .arm(.restart, _) = $0 { true } else { false } })
        // A later edit starts it again, with the backoff reset.
        #expect(d.feed(.edit(10, M.Edit(plan: .queue(.clear), wait: .acknowledged))) == [.unlinkSocket, .spawn])
        #expect(d.m.restartPolicy.quickDeaths == 0)
    }

    @Test func aHungMpvFailsWhatWaitedIsKilledAndItsDeathSaysWhy() {
        var d = Driven.running()
        let pause = d.feed(.perform(3, ["command": "pause"]))
        #expect(Self.sends(pause).count == 1)
        let hung = d.feed(.hung)
        #expect(hung == [.answer(3, .command(.commandFailed)), .closeConnection,
                         .log("mpv for session s did not answer within 1000 ms; killing it"), .kill(9)])
        #expect(d.m.link == .none && d.m.awaiting.isEmpty)
        let died = d.feed(.exited("killed by signal 9"))
        #expect(died.contains(.log("mpv for session s did not answer within 1000 ms; restarting in 250 ms")))
    }

    @Test func aSocketClosedByMpvSettlesWhatWaitedAndKillsIt() {
        var d = Driven.running()
        d.feed(.timer(.sync))
        d.feed(.perform(3, ["command": "pause"]))
        let closed = d.feed(.connectionClosed)
        #expect(closed == [.answer(3, .command(.commandFailed)), .kill(9)])
        #expect(d.m.link == .lost && d.m.syncRound == nil)
        // An edit now: mpv went away.
        #expect(d.feed(.edit(4, M.Edit(plan: .queue(.clear), wait: .acknowledged)))
            == [.answer(4, .edit(.failure(.mpv(MPVError("mpv went away")))))])
    }

    // MARK: - Quit

    @Test func stopTermsThenKillsAndCleansUpOnExit() {
        var d = Driven.running()
        d.m.removesDirectoryOnExit = true
        let stop = d.feed(.stop)
        #expect(stop == [.cancel(.restart), .cancel(.idle), .cancel(.sync), .closeConnection, .unlinkSocket, .kill(15), .arm(.kill, afterMS: 1000)])
        #expect(d.m.phase == .stopped)
        #expect(d.feed(.timer(.kill), after: 1000) == [.kill(9)])
        #expect(d.feed(.exited("killed by signal 9")) == [.cancel(.kill), .unlinkSocket, .removeSocketDirectory])
        #expect(d.m.phase == .stopped && !d.m.processAlive, "a stopped mpv's death restarts nothing")
    }

    @Test func stopAnswersEveryoneWaiting() {
        var d = Driven.running()
        let seek = d.feed(.perform(1, ["command": "changePlaybackPosition", "position": 20.0]))
        guard case .send(_, let tag?) = seek.last else { return #expect(Bool(false)) }
        d.feed(.reply(tag, .success(.null)))  // waits for the playback restart
        var stopped = Driven()
        stopped.feed(.start)
        stopped.feed(.edit(2, M.Edit(plan: .queue(.clear), wait: .acknowledged)))
        #expect(Self.answers(d.feed(.stop)) == [.command(.success)], "the restart waiter is released")
        #expect(Self.answers(stopped.feed(.stop)) == [.edit(.failure(.mpv(MPVError("the session's mpv was stopped"))))])
    }

    // MARK: - Interruptions

    @Test func anInterruptionPausesAPlayingMpvAndResumesItOnlyIfItPausedIt() {
        var d = Driven.running()
        #expect(d.feed(.interruption(began: true, shouldResume: false)) == [.send(["set_property", "pause", true], tag: nil)])
        #expect(d.feed(.interruption(began: false, shouldResume: true)) == [.send(["set_property", "pause", false], tag: nil)])
        d.m.state.apply("pause", true)
        #expect(d.feed(.interruption(began: true, shouldResume: false)) == [])
        #expect(d.feed(.interruption(began: false, shouldResume: true)) == [], "paused by the user: stays paused")
    }

    // MARK: - Timers on a scheduler

    /// The machine's timers through `MachineTimers` on a `ManualScheduler`: the backoff's
    /// restart fires at its deadline, not before, and a cancelled timer never fires.
    @Test func theBackoffRunsOnAManualScheduler() {
        let scheduler = ManualScheduler()
        let timers = MachineTimers<M.TimerID>(scheduler: scheduler)
        var d = Driven()
        var spawned = 0
        func run(_ actions: [A]) {
            for a in actions {
                switch a {
                case .arm(let id, let ms): timers.arm(id, afterMS: ms)
                case .cancel(let id): timers.cancel(id)
                case .spawn: spawned += 1
                default: break
                }
            }
        }
        timers.onFire = { id in run(d.feed(.timer(id))) }
        run(d.feed(.start)); run(d.feed(.spawned)); run(d.feed(.connected))
        #expect(timers.armed == [.idle])
        run(d.feed(.event("idle", [:])))
        #expect(timers.armed == [.sync], "the idle deadline was cancelled")
        scheduler.advance(byMilliseconds: 0)
        #expect(d.m.syncRound != nil, "the report timer fired")
        d.m.state = MPVMappingTests.playing()
        run(d.feed(.exited("killed by signal 9")))
        #expect(timers.armed == [.restart])
        scheduler.advance(byMilliseconds: 249)
        #expect(spawned == 1)
        scheduler.advance(byMilliseconds: 1)
        #expect(spawned == 2 && d.m.phase == .connecting && timers.armed.isEmpty)
        #expect(scheduler.armedTimerCount == 0)
    }
}
