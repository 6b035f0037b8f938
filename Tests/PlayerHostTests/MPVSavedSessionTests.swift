import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import Plugins

/// What the mpv plugin keeps across a daemon restart: its JSON round trip, what is refused, and
/// the position it reopens at. Pure values, no mpv.
@Suite struct MPVSavedSessionTests {
    func sample() -> MPVSavedSession {
        var s = MPVSavedSession(session: "m", urls: ["/a.ogg", "/b.ogg", "https://example.org/c.mp3"], index: 1,
                                elapsed: 20, rate: 1, at: 1000)
        s.duration = 30
        s.loopPlaylist = true
        s.shuffle = "items"
        s.audioOutput = "pulse"
        return s
    }

    @Test func roundTrip() {
        let state = MPVSavedSession.stateJSON([sample()])
        #expect(MPVSavedSession.sessions(in: state) == [sample()])
    }

    @Test func positionIsExtrapolatedToTheFilesWriteWithinTheItem() {
        let s = sample()
        #expect(s.position(savedAt: 1004.5) == 24.5, "playing: up to the instant the host wrote its file")
        #expect(s.position(savedAt: 2000) == 30, "never past the item's end")
        #expect(s.position(savedAt: nil) == 20)
        #expect(s.position(savedAt: 900) == 20, "a clock that went back extrapolates nothing")
        var paused = s
        paused.rate = 0
        #expect(paused.position(savedAt: 1004.5) == 20)
    }

    @Test func whatCannotBeReopenedIsSkipped() {
        let state: JSON = ["version": 1, "sessions": [
            ["urls": ["/a.ogg"]],                      // no session id
            ["session": "e", "urls": []],              // nothing to play
            ["session": "n", "urls": ["/a.ogg", 5]],   // not a list of strings
            ["session": "ok", "urls": ["/a.ogg"], "index": 7],
        ]]
        let kept = MPVSavedSession.sessions(in: state)
        #expect(kept.map(\.session) == ["ok"])
        #expect(kept.first?.index == 0, "an index out of range is clamped")
        #expect(MPVSavedSession.sessions(in: ["version": 2, "sessions": state["sessions"] ?? []]).isEmpty, "a newer version is not guessed at")
        #expect(MPVSavedSession.sessions(in: nil).isEmpty)
    }
}
