import Testing
@testable import PlayerHost

/// An instant `seconds` after the origin of the manual clock.
func at(_ seconds: Double) -> MonotonicInstant { MonotonicInstant(seconds: seconds) }

func song(_ title: String, _ duration: Double, artist: String = "Artist", info: NowPlayingInfo = NowPlayingInfo()) -> MediaItem {
    MediaItem(title: title, artist: artist, duration: duration, info: info)
}

extension NowPlayingModel {
    /// A session that can become active: playback category, active audio, default commands,
    /// a queue on every player. Returns every event the setup produced.
    @discardableResult
    mutating func makeEligible(_ id: SessionID, kind: SessionKind = .main, caller: Caller = .host,
                               items: [MediaItem] = [song("A", 100), song("B", 50)],
                               backgroundAudio: Bool = false, now: MonotonicInstant = .zero) throws -> [ModelEvent] {
        var events: [ModelEvent] = []
        events += try createSession(id: id, kind: kind, backgroundAudio: backgroundAudio, caller: caller, now: now).events
        events += try configureAudio(session: id, category: .playback, now: now).events
        events += try activateAudio(session: id, now: now).events
        events += try bindDefaultCommands(session: id, now: now).events
        for i in sessions[id]!.playerIDs.indices {
            events += try load(session: id, player: i, items: items, now: now).events
        }
        return events
    }

    func timeline(_ session: SessionID, _ player: Int = 0) -> PlayerTimeline {
        players[sessions[session]!.playerIDs[player]]!.timeline
    }
}

/// The `nowPlayingChanged` events, as (from, to, reason).
func slotChanges(_ events: [ModelEvent]) -> [(SessionID?, SessionID?, NowPlayingChangeReason)] {
    events.compactMap { if case .nowPlayingChanged(let f, let t, let r) = $0 { return (f, t, r) } else { return nil } }
}

/// The external call a sent command waits for (the dispatch's `awaiting`).
func invocations(_ sent: ModelResult<CommandProgress>) -> [ExternalInvocation] {
    guard case .awaiting(let d) = sent.value, let call = d.awaiting else { return [] }
    return [call]
}

/// Asserts `body` throws a `ModelError` with `code`.
func expectModelError(_ code: ModelError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                      _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected \(code.name), nothing thrown", sourceLocation: sourceLocation)
    } catch let e as ModelError {
        #expect(e.code == code, "got \(e)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
}
