import Glibc
import PlayerHostPluginAPI

/// Keeping a session across a daemon restart (see `MPVSavedSession`): what to save, and reopening
/// from it.
extension MPVController {
    /// What to keep of this session now, or nil when it has nothing to play. A restore still
    /// under way (after a restart, or mpv's death) keeps what it is restoring.
    var saved: MPVSavedSession? {
        if let r = restore, !r.urls.isEmpty {
            var s = MPVSavedSession(session: session, urls: r.urls, index: min(r.index, r.urls.count - 1),
                                    elapsed: r.position, rate: 0, at: 0)
            s.loopFile = r.loopFile
            s.loopPlaylist = r.loopPlaylist
            s.volume = r.volume.map { $0 / 100 } ?? s.volume
            s.muted = r.mute ?? s.muted
            return finish(s)
        }
        guard state.hasItems else { return nil }
        let index = state.playlistPos >= 0 ? state.playlistPos : min(state.lastIndex, state.playlist.count - 1)
        var s = MPVSavedSession(session: session, urls: state.playlist.map(\.filename), index: index, elapsed: 0, rate: 0, at: 0)
        if let a = lastAnchor {
            let now = Self.wallClock()
            s.elapsed = a.elapsed
            s.rate = a.rate
            // To the millisecond, so that the same anchor saves the same value each time.
            s.at = ((now - Double(EventLoop.hrtime() - a.at) / 1e9) * 1000).rounded() / 1000
        }
        if s.rate == 0 { s.at = 0 }  // paused: when does not matter
        s.duration = state.duration
        s.loopFile = state.loopFile
        s.loopPlaylist = state.loopPlaylist
        s.volume = state.volume / 100
        s.muted = state.mute
        return finish(s)
    }

    private func finish(_ s: MPVSavedSession) -> MPVSavedSession {
        var s = s
        s.shuffle = state.shuffle
        s.audioOutput = audioOutput
        s.videoOutput = videoOutput
        return s
    }

    /// Starts mpv on a kept session: its files, item and position, paused (nothing starts making
    /// sound on its own after a restart). The reopening is mpv's restart path (`Restore`).
    func reopen(_ s: MPVSavedSession, savedAt: Double?) {
        audioOutput = s.audioOutput
        videoOutput = s.videoOutput
        state.shuffle = s.shuffle
        restore = Restore(urls: s.urls, index: s.index, position: s.position(savedAt: savedAt), paused: true,
                          loopFile: s.loopFile, loopPlaylist: s.loopPlaylist,
                          volume: s.volume * 100, mute: s.muted)
        start()
    }

    static func wallClock() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
