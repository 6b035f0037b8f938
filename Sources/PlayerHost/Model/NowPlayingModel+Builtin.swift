/// Built-in command handlers: what `bindDefaultCommands` binds, acting on the session's players.
extension NowPlayingModel {
    /// Runs one built-in target. Transport fans out to every bound player (multi-view).
    mutating func runBuiltin(_ event: CommandEvent, session: SessionID, players indices: [Int],
                             at t: MonotonicInstant) -> CommandStatus {
        guard let s = sessions[session] else { return .deviceNotFound }
        let bound = indices.compactMap { s.playerIDs.indices.contains($0) ? s.playerIDs[$0] : nil }
        guard !bound.isEmpty else { return .deviceNotFound }
        // Modes are settings, not playback: they apply to an empty queue too.
        switch event.command {
        case .changeRepeatMode:
            guard let mode = event.payload.repeatType else { return .commandFailed }
            for pid in bound { players[pid]?.timeline.setRepeat(mode) }
            return .success
        case .changeShuffleMode:
            guard let mode = event.payload.shuffleType else { return .commandFailed }
            for pid in bound {
                guard var p = players[pid] else { continue }
                p.timeline.setShuffle(mode, rng: &rng)
                players[pid] = p
            }
            return .success
        case .changeVolume:
            // Validated against maximumVolume when the event was made; a setting, like the modes.
            for pid in bound {
                guard var p = players[pid] else { continue }
                do { try p.timeline.setVolume(event.volume, muted: event.muted) } catch { return .commandFailed }
                players[pid] = p
            }
            return .success
        default:
            break
        }
        let loaded = bound.filter { players[$0]?.timeline.currentItem != nil }
        guard !loaded.isEmpty else { return .noActionableNowPlayingItem }

        func each(_ f: (inout PlayerTimeline) throws -> Void) -> CommandStatus {
            var failed = false
            for pid in loaded {
                guard var p = players[pid] else { continue }
                do { try f(&p.timeline) } catch { failed = true }
                players[pid] = p
            }
            return failed ? .commandFailed : .success
        }

        switch event.command {
        case .play:
            return each { _ = try $0.play(at: t) }
        case .pause:
            return each { _ = $0.pause(at: t) }
        case .togglePlayPause:
            let anyPlaying = loaded.contains { players[$0]?.timeline.isPlaying == true }
            return anyPlaying ? each { _ = $0.pause(at: t) } : each { _ = try $0.play(at: t) }
        case .stop:
            return each { $0.stop(at: t) }
        case .nextTrack:
            var moved = false
            for pid in loaded {
                if (try? players[pid]!.timeline.next(at: t)) != nil { moved = true }
            }
            return moved ? .success : .noSuchContent
        case .previousTrack:
            return each { try $0.previous(at: t) }
        case .skipForward, .skipBackward:
            // The event's interval, never a hard-coded one (filled from preferredIntervals[0]).
            let step = (event.interval ?? 15) * (event.command == .skipForward ? 1 : -1)
            return each { try $0.seek(to: $0.elapsed(at: t) + step, at: t) }
        case .changePlaybackPosition:
            // Remote UIs show content time; with ads, map back to the item's media time.
            let position = event.position ?? 0
            return each { tl in
                let ads = adSchedule(s, tl)
                try tl.seek(to: ads.mediaTime(position), at: t)
            }
        case .changePlaybackRate:
            let rate = event.rate ?? 1
            return each { tl in
                try tl.setDefaultRate(rate)
                if tl.isPlaying { try tl.setRate(rate, at: t) }
            }
        default:
            return .commandFailed
        }
    }
}
