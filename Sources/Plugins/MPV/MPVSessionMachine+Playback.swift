import PlayerHostPluginAPI

/// mpv's events, the restore after a death, and the waiters for mpv's next playback restart.
extension MPVSessionMachine {
    // MARK: - Events

    mutating func event(_ name: String, _ o: [String: JSON]) {
        switch name {
        case "property-change":
            guard let property = o["name"]?.stringValue else { return }
            state.apply(property, o["data"] ?? .null)
            if property == "idle-active", state.idleActive { becameIdle() }
            scheduleSync()
        case "start-file":
            loadingFile = true
            tagsUnread = true
            holdSince = now
            state.endedFile = nil
        case "seek":
            if !seeking { seeking = true; holdSince = now }
        case "playback-restart":
            loadingFile = false
            seeking = false
            if advanceRestore() { return }
            fireRestartWaiters()
            syncNow(nil)
        case "end-file":
            // Played (or seeked) to its end: if nothing starts after it, the queue ended there.
            if o["reason"]?.stringValue == "eof", state.playlist.indices.contains(state.lastIndex) {
                state.endedFile = state.playlist[state.lastIndex].filename
            }
            // A file that failed to open never restarts playback: release whoever waits.
            if o["reason"]?.stringValue == "error" {
                emit(.log("mpv could not play \(o["file_error"]?.stringValue ?? "a file") in session \(session)"))
                loadingFile = false
                if restoreStage != nil { finishRestore() }
                fireRestartWaiters()
            }
        case "idle":
            becameIdle()
            loadingFile = false
            seeking = false
            fireRestartWaiters()
            scheduleSync()
        default:
            break
        }
    }

    // MARK: - Restart waiters

    /// Reports then answers `waiter` at mpv's next playback restart, or after `timeoutMS`
    /// whatever happens.
    mutating func afterRestart(timeoutMS: UInt64, _ waiter: RestartWaiter) {
        let id = nextID()
        restartWaiters[id] = waiter
        emit(.arm(.afterRestart(id), afterMS: timeoutMS))
    }

    /// Runs every restart waiter, in the order they came.
    mutating func fireRestartWaiters() {
        for id in restartWaiters.keys.sorted() { resolveWaiter(id) }
    }

    mutating func resolveWaiter(_ id: Int) {
        guard let waiter = restartWaiters.removeValue(forKey: id) else { return }
        emit(.cancel(.afterRestart(id)))
        syncNow(waiter)
    }

    // MARK: - Restore

    mutating func beginRestore(_ r: Restore) {
        guard !r.urls.isEmpty else { restore = nil; return scheduleSync() }
        phase = .running(restore: .loading(reselected: 0))
        holdSince = now
        // Paused while it loads and seeks, so nothing is heard from the wrong place.
        send(["set_property", "pause", true])
        send(["set_property", "loop-file", r.loopFile ? "inf" : "no"])
        send(["set_property", "loop-playlist", r.loopPlaylist ? "inf" : "no"])
        // Before the files, so nothing is heard at another level. (mpv refusing a level past its
        // volume-max, from a state file edited by hand, refuses that command only.)
        if let v = r.volume { send(["set_property", "volume", .double(v)]) }
        if let m = r.mute { send(["set_property", "mute", .bool(m)]) }
        for url in r.urls { send(["loadfile", .string(url), "append"]) }
        send(["playlist-play-index", .int(Int64(min(r.index, r.urls.count - 1)))])
    }

    /// A playback restart during a restore: seek once loaded, unpause once seeked. True if the
    /// restart belonged to the restore.
    mutating func advanceRestore() -> Bool {
        guard let stage = restoreStage, restore != nil, link == .up else { return false }
        guard case .loading = stage else {
            finishRestore()
            return false
        }
        // Just after start-up mpv sometimes starts the first appended entry itself, ahead of our
        // playlist-play-index (seen in about 1 of 4 fresh starts): check which entry is playing
        // and select the right one again, a few times at most, before seeking.
        get("playlist-pos", for: .restorePosition)
        return true
    }

    /// mpv's `playlist-pos` during a restore's loading.
    mutating func restorePosition(_ result: Result<JSON, MPVError>) {
        guard case .loading(let reselected)? = restoreStage, let r = restore, link == .up else { return }
        let want = min(r.index, r.urls.count - 1)
        let pos = Self.bounded((try? result.get())?.intValue, -1)  // mpv's number: never trusted in arithmetic
        if pos != want && reselected < 3 {
            phase = .running(restore: .loading(reselected: reselected + 1))
            emit(.log("mpv for session \(session) started entry \(pos + 1), not \(want + 1); selecting it again"))
            send(["playlist-play-index", .int(Int64(want))])
            return  // its playback restart comes back here
        }
        if r.position > 0.5 {
            phase = .running(restore: .seeking)
            seeking = true
            send(["seek", .double(r.position), "absolute+exact"])
        } else {
            finishRestore()
            fireRestartWaiters()
        }
    }

    /// A position for a log line: whole seconds, whatever mpv or a state file said (never a trap).
    static func wholeSeconds(_ seconds: Double) -> Int {
        seconds.isFinite ? Int(min(max(seconds, 0), Microseconds.maxSeconds)) : 0
    }

    mutating func finishRestore() {
        guard let r = restore else { return }
        restore = nil
        if isRunning { phase = .running(restore: nil) }
        if !r.paused, link == .up { send(["set_property", "pause", false]) }
        emit(.log("mpv for session \(session) restored: item \(r.index + 1) of \(r.urls.count) at \(Self.wholeSeconds(r.position)) s"))
        scheduleSync()
    }
}
