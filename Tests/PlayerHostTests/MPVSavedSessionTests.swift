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
        s.volume = 0.45
        s.muted = true
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

    /// Times from the file outside the host's bounds are none: the item's start, no extrapolation.
    @Test func absurdTimesInTheFileAreNone() {
        let j: JSON = ["session": "m", "urls": ["/a.ogg"], "elapsed": 1e300, "rate": 1e300, "at": -1e300, "duration": -3]
        let s = MPVSavedSession(json: j)
        #expect(s?.elapsed == 0 && s?.rate == 0 && s?.at == -1e300 && s?.duration == nil)
        #expect(s?.position(savedAt: 2e9) == 0)
        var far = sample()
        far.elapsed = 5e8
        far.rate = 100
        far.duration = nil
        #expect(far.position(savedAt: 1e12) == Microseconds.maxSeconds, "extrapolation stays within the host's bounds")
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
        #expect(kept.first?.volume == 1 && kept.first?.muted == false, "no volume kept: mpv's default")
        #expect(MPVSavedSession.sessions(in: ["version": 2, "sessions": state["sessions"] ?? []]).isEmpty, "a newer version is not guessed at")
        #expect(MPVSavedSession.sessions(in: nil).isEmpty)
    }

    /// Issue 22 (volume): the level and mute are kept (in the host's units), and a level from a
    /// file is bounded to what changeVolume may reach.
    @Test func volumeAndMuteAreKeptWithinBounds() {
        let j = sample().json
        #expect(j["volume"] == 0.45 && j["muted"] == true)
        func volume(_ v: JSON) -> Double? {
            MPVSavedSession.sessions(in: ["version": 1, "sessions": [["session": "m", "urls": ["/a.ogg"], "volume": v]]]).first?.volume
        }
        #expect(volume(5) == 1.3 && volume(-1) == 0 && volume("x") == 1 && volume(0.2) == 0.2)
    }
}
