import PlayerHostPluginAPI

/// Reporting mpv's true state to the host (`player.sync`) at key moments only.
///
/// Observed property changes and playback restarts schedule a report on the next loop turn (what
/// mpv said in one read makes one report). A report reads what moves — `time-pos`, `pause`,
/// `speed`, `playlist-pos`, `volume`, `mute` — with `get_property` at that moment, so it is consistent with mpv
/// even when a property-change event is still on its way. Reports are held while a file opens or
/// a seek lands (its tags and position are not known yet), at most `maxHoldNS`. Nothing else is
/// decided here: the model ignores a report that agrees with what it infers, and the host's gate
/// coalesces and deduplicates what is published (issue 8: one gatekeeper). Steady playback
/// changes no property, so it reports nothing.
extension MPVController {
    /// Past this, a hold is over whatever mpv says, so a lost event cannot silence the session.
    static let maxHoldNS: UInt64 = 2_000_000_000

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

    /// A key moment happened: report on the next loop turn.
    func scheduleSync(afterMS delay: UInt64 = 0) {
        guard phase == .running, !syncScheduled else { return }
        if syncTimer == nil { syncTimer = try? Timer(loop: loop) }
        syncScheduled = true
        syncTimer?.start(after: delay) { [weak self] in self?.flushSync() }
    }

    /// Reports now (once the hold is over) and runs `then` once the report is sent (the host
    /// applies it before anything sent after it).
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
        // Volume and mute too: a `changeVolume` answers with this report, and mpv may send the
        // property change after its reply to `set_property`.
        let moving = ["pause", "speed", "playlist-pos", "volume", "mute"]
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

    /// Sends a report; keeps the anchor readers infer from (for a restart's restore).
    private func send(_ report: [String: JSON], _ done: @escaping () -> Void) {
        let elapsed = report["elapsed"]?.doubleValue
        let rate = report["rate"]?.doubleValue ?? 0
        lastAnchor = (elapsed ?? inferredElapsed ?? 0, rate, EventLoop.hrtime())
        self.report(report, done)
    }

    /// mpv died: the session shows `failed` (playbackState follows) at the last known position.
    func reportFailure() {
        let position = inferredElapsed
        lastAnchor = (position ?? 0, 0, EventLoop.hrtime())
        report(state.report(elapsed: position, failed: true)) {}
    }
}
