import PlayerHost

/// Reporting mpv's true state to the host (`player.sync`) at key moments only.
///
/// Observed property changes and playback restarts schedule a report; changes that arrive
/// together (a file opening sends a burst) make one. A report reads what moves — `time-pos`,
/// `pause`, `speed`, `playlist-pos` — with `get_property` at that moment, so it is consistent
/// with mpv even when a property-change event is still on its way. Reports are held while a file
/// opens or a seek lands (its tags and position are not known yet), at most `maxHoldNS`. A report
/// that says what the host already infers is not sent, so steady playback sends nothing.
extension MPVController {
    /// Past this, a hold is over whatever mpv says, so a lost event cannot silence the session.
    static let maxHoldNS: UInt64 = 2_000_000_000
    /// Property changes this close together make one report.
    static let coalesceMS: UInt64 = 15
    /// A reported elapsed within this of the inferred one changes nothing worth publishing.
    static let elapsedTolerance = 0.25

    var isHolding: Bool {
        (loadingFile || seeking || restoreStage != nil) && EventLoop.hrtime() - holdSince < Self.maxHoldNS
    }

    /// The position now, inferred from the last report like any reader does (nil before one).
    var inferredElapsed: Double? {
        guard let a = lastAnchor else { return nil }
        var e = a.elapsed + a.rate * Double(EventLoop.hrtime() - a.at) / 1e9
        if let d = state.duration { e = min(e, d) }
        return max(0, e)
    }

    /// A key moment happened: report soon.
    func scheduleSync(afterMS delay: UInt64 = coalesceMS) {
        guard phase == .running, !syncScheduled else { return }
        if syncTimer == nil { syncTimer = try? Timer(loop: loop) }
        syncScheduled = true
        syncTimer?.start(after: delay) { [weak self] in self?.flushSync() }
    }

    /// Reports now (once the hold is over) and runs `then` when the host has the report, or at
    /// once if there was nothing new to say.
    func syncNow(_ then: @escaping () -> Void) {
        syncDone.append(then)
        syncTimer?.stop()
        syncScheduled = false
        flushSync()
    }

    func flushSync() {
        syncScheduled = false
        guard phase == .running, let c = connection else { return releaseSyncWaiters() }
        if isHolding {
            // The event ending the hold reports; this re-check is the safety net.
            return scheduleSync(afterMS: 250)
        }
        if syncInFlight {
            syncAgain = true
            return
        }
        syncInFlight = true
        let waiting = syncDone
        syncDone.removeAll()
        var fresh: [String: JSON] = [:]
        let moving = ["pause", "speed", "playlist-pos"]
        // mpv answers in order, so `time-pos` (asked last) answers last.
        for name in moving + ["time-pos"] {
            c.get(name) { [weak self] result in
                if case .success(let v) = result { fresh[name] = v }
                guard name == "time-pos", let self else { return }
                let finish = {
                    self.syncInFlight = false
                    for w in waiting { w() }
                    if self.syncAgain {
                        self.syncAgain = false
                        self.flushSync()
                    }
                }
                guard self.connection === c, !c.isClosed else { return finish() }
                for n in moving { if let v = fresh[n], !v.isNull { self.state.apply(n, v) } }
                let report = self.state.report(elapsed: fresh["time-pos"]?.doubleValue, loading: self.loadingFile)
                self.send(report, finish)
            }
        }
    }

    private func releaseSyncWaiters() {
        let waiting = syncDone
        syncDone.removeAll()
        for w in waiting { w() }
    }

    /// Sends a report unless the host already has it; keeps the anchor readers infer from.
    private func send(_ report: [String: JSON], _ done: @escaping () -> Void) {
        var shape = report
        let elapsed = shape.removeValue(forKey: "elapsed")?.doubleValue
        let rate = report["rate"]?.doubleValue ?? 0
        let predicted = inferredElapsed
        if shape == lastReport, let p = predicted, elapsed.map({ abs($0 - p) < Self.elapsedTolerance }) ?? true {
            return done()
        }
        lastReport = shape
        lastAnchor = (elapsed ?? predicted ?? 0, rate, EventLoop.hrtime())
        self.report(report, done)
    }

    /// mpv died: the session shows `failed` (playbackState follows) at the last known position.
    func reportFailure() {
        let position = inferredElapsed
        lastReport = nil
        lastAnchor = (position ?? 0, 0, EventLoop.hrtime())
        report(state.report(elapsed: position, failed: true)) {}
    }
}
