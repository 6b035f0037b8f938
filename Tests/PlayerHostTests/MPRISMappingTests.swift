import Testing
@testable import PlayerHost

/// The pure MPRIS mapping: now-playing value → properties, the diff that decides the signals,
/// and D-Bus requests → commands. No D-Bus here.
@Suite struct MPRISMappingTests {
    /// A model with session "s" (and "t") eligible, "s" Now Playing and playing from 0.
    func playing(_ items: [MediaItem] = [song("A", 100, info: NowPlayingInfo([.albumTitle: .text("Album")])), song("B", 50)]) throws -> NowPlayingModel {
        var m = NowPlayingModel()
        try m.makeEligible("s", items: items)
        _ = try m.play(session: "s", now: at(0))
        return m
    }

    func props(_ m: NowPlayingModel, _ t: Double) -> MPRISProperties {
        MPRISProperties(MPRISNowPlaying.current(m, now: at(t)))
    }

    @Test func nothingNowPlayingIsStoppedEmptyAndCannotPlay() {
        let p = MPRISProperties(nil)
        #expect(p.playbackStatus == "Stopped")
        #expect(p.metadata.isEmpty)
        #expect(!p.canPlay && !p.canPause && !p.canGoNext && !p.canGoPrevious && !p.canSeek)
        #expect(p.rate == 1)
        #expect(p.positionMicroseconds(at: at(5)) == 0)
    }

    @Test func metadataTable() throws {
        let p = props(try playing(), 1)
        #expect(p.metadata["xesam:title"] == .string("A"))
        #expect(p.metadata["xesam:album"] == .string("Album"))
        #expect(p.metadata["xesam:artist"] == .strings(["Artist"]))
        #expect(p.metadata["mpris:length"] == .int64(100_000_000))
        guard case .objectPath(let track)? = p.metadata["mpris:trackid"] else {
            Issue.record("no trackid")
            return
        }
        #expect(track == p.trackID)
        #expect(track.hasPrefix("/org/playerhost/track/s"))
        #expect(!track.hasPrefix("/org/mpris"))
        let legal = track.split(separator: "/").allSatisfy { $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") } }
        #expect(legal, "a valid object path")
    }

    @Test func artworkAndLiveStreams() {
        let art = Artwork(id: "cover", sources: ["data:xyz", "/tmp/cover.png"])
        let info = NowPlayingInfo([.title: .text("Radio"), .duration: .number(30), .isLiveStream: .flag(true), .artwork: .artwork(art)])
        let p = MPRISProperties(MPRISNowPlaying(session: "r", info: info, playbackState: .playing, timestamp: .zero))
        // Issue 21: a source the resolver has not resolved is never exported (it may be a file
        // that failed); only `artwork.image.url`, the cache file, is.
        #expect(p.metadata["mpris:artUrl"] == nil)
        #expect(p.metadata["mpris:length"] == nil, "a live stream has no length")
    }

    @Test func artUrlIsTheResolvedCoverAndRemoteSourcesWaitForIt() {
        func artUrl(_ art: Artwork) -> DBusValue? {
            let info = NowPlayingInfo([.title: .text("T"), .artwork: .artwork(art)])
            return MPRISProperties(MPRISNowPlaying(session: "s", info: info, playbackState: .playing, timestamp: .zero)).metadata["mpris:artUrl"]
        }
        #expect(artUrl(Artwork(id: "a", sources: ["https://example.org/a.jpg"])) == nil, "remote: wait for the cached file")
        let resolved = ArtworkImage(url: "file:///cache/a.jpg", width: 10, height: 10, type: "jpeg", from: .remote)
        #expect(artUrl(Artwork(id: "a", sources: ["https://example.org/a.jpg"], image: resolved)) == .string("file:///cache/a.jpg"))
        #expect(artUrl(Artwork(id: "a", sources: ["/tmp/a.png"], image: resolved)) == .string("file:///cache/a.jpg"), "the resolved image wins")
    }

    @Test(arguments: [
        (PlaybackState.playing, "Playing"), (.paused, "Paused"), (.interrupted, "Paused"), (.stopped, "Stopped"),
    ])
    func playbackStatus(_ state: PlaybackState, _ expected: String) {
        let info = NowPlayingInfo([.title: .text("x"), .rate: .number(0), .defaultRate: .number(1.5)])
        let p = MPRISProperties(MPRISNowPlaying(session: "x", info: info, playbackState: state, timestamp: .zero))
        #expect(p.playbackStatus == expected)
        #expect(p.rate == 1.5, "rate is never 0: paused shows in the status")
    }

    @Test func loopShuffleRatesAndCanFollowTheCommandCenter() throws {
        var m = try playing()
        _ = try m.setRepeat(session: "s", .one, now: at(1))
        _ = try m.setShuffle(session: "s", .items, now: at(1))
        _ = try m.configureCommand(session: "s", .changePlaybackRate, properties: ["supportedPlaybackRates": [0.5, 1, 2]], now: at(1))
        var p = props(m, 1)
        #expect(p.loopStatus == "Track" && p.shuffle)
        #expect(p.canPlay && p.canPause && p.canGoNext && p.canGoPrevious && p.canSeek)
        #expect(p.minimumRate == 0.5 && p.maximumRate == 2)
        let before = p
        _ = try m.enableCommand(session: "s", .nextTrack, enabled: false, now: at(2))
        p = props(m, 2)
        #expect(!p.canGoNext)
        #expect(p.changedPlayerProperties(since: before) == ["CanGoNext"])
    }

    @Test func steadyPlaybackChangesNothingAndPositionIsInferred() throws {
        let m = try playing()
        let a = props(m, 1)
        let b = props(m, 7)
        #expect(b.changedPlayerProperties(since: a).isEmpty, "no signal during steady playback")
        #expect(b.seekedPosition(since: a) == nil)
        #expect(a.positionMicroseconds(at: at(12.5)) == 12_500_000)
    }

    @Test func pauseResumeAreNotSeeksButASeekIs() throws {
        var m = try playing()
        let playing = props(m, 1)
        _ = try m.pause(session: "s", now: at(10))
        let paused = props(m, 10)
        #expect(paused.changedPlayerProperties(since: playing) == ["PlaybackStatus"])
        #expect(paused.seekedPosition(since: playing) == nil)
        #expect(paused.positionMicroseconds(at: at(20)) == 10_000_000, "paused: position holds")
        _ = try m.seek(session: "s", to: 40, now: at(11))
        let sought = props(m, 11)
        #expect(sought.seekedPosition(since: paused) == 40_000_000)
        #expect(sought.changedPlayerProperties(since: paused).isEmpty)
    }

    @Test func trackIDChangesWithTheItemAndOnAHandOff() throws {
        var m = try playing()
        let a = props(m, 1)
        _ = try m.next(session: "s", now: at(2))
        let b = props(m, 2)
        #expect(a.trackID != b.trackID)
        #expect(b.metadata["xesam:title"] == .string("B"))
        #expect(b.seekedPosition(since: a) == nil, "a new item from its start is no seek")
        #expect(b.changedPlayerProperties(since: a).contains("Metadata"))

        // The same item in another session is another track; a hand-off mid-item is a Seeked.
        let other = MPRISNowPlaying(session: "t", info: NowPlayingInfo([.title: .text("B"), .artist: .text("Artist"),
                                    .duration: .number(50), .elapsed: .number(30), .rate: .number(1), .queueIndex: .integer(1)]),
                                    playbackState: .playing, timestamp: at(3))
        let c = MPRISProperties(other)
        #expect(c.trackID != b.trackID)
        #expect(c.seekedPosition(since: b) == 30_000_000)
    }

    // MARK: - Requests

    @Test(arguments: [
        ("Play", RemoteCommandKind.play), ("Pause", .pause), ("PlayPause", .togglePlayPause), ("Stop", .stop),
        ("Next", .nextTrack), ("Previous", .previousTrack),
    ])
    func transportMethods(_ member: String, _ kind: RemoteCommandKind) {
        #expect(MPRISRequest.call(member, interface: .player, arguments: [], properties: MPRISProperties(), now: .zero)
                == .send(kind, payload: [:]))
    }

    @Test func seekIsRelativeClampedAtZeroAndPastTheEndIsNext() throws {
        let p = props(try playing(), 10)  // at 10 s of 100
        func seek(_ us: Int64) -> MPRISRequest {
            MPRISRequest.call("Seek", interface: .player, arguments: [.int64(us)], properties: p, now: at(10))
        }
        #expect(seek(5_000_000) == .send(.changePlaybackPosition, payload: ["position": .double(15)]))
        #expect(seek(-60_000_000) == .send(.changePlaybackPosition, payload: ["position": .double(0)]))
        #expect(seek(95_000_000) == .send(.nextTrack, payload: [:]))
        #expect(MPRISRequest.call("Seek", interface: .player, arguments: [.string("x")], properties: p, now: at(10))
                == .fail(.invalidArgs("Seek takes (x Offset)")))
    }

    @Test func setPositionNeedsTheCurrentTrackAndARangeInLength() throws {
        let p = props(try playing(), 10)
        func set(_ track: String, _ us: Int64) -> MPRISRequest {
            MPRISRequest.call("SetPosition", interface: .player, arguments: [.objectPath(track), .int64(us)], properties: p, now: at(10))
        }
        #expect(set(p.trackID, 30_000_000) == .send(.changePlaybackPosition, payload: ["position": .double(30)]))
        #expect(set("/org/playerhost/track/stale", 30_000_000) == .ignore)
        #expect(set(p.trackID, -1) == .ignore)
        #expect(set(p.trackID, 100_000_001) == .ignore)
    }

    @Test func propertyWrites() {
        func set(_ name: String, _ v: DBusValue) -> MPRISRequest { MPRISRequest.set(name, interface: .player, value: v) }
        #expect(set("LoopStatus", .string("Track")) == .send(.changeRepeatMode, payload: ["repeatType": "one"]))
        #expect(set("LoopStatus", .string("Playlist")) == .send(.changeRepeatMode, payload: ["repeatType": "all"]))
        #expect(set("LoopStatus", .string("None")) == .send(.changeRepeatMode, payload: ["repeatType": "off"]))
        #expect(set("Shuffle", .boolean(true)) == .send(.changeShuffleMode, payload: ["shuffleType": "items"]))
        #expect(set("Rate", .double(2)) == .send(.changePlaybackRate, payload: ["rate": .double(2)]))
        #expect(set("Rate", .double(0)) == .send(.pause, payload: [:]))
        #expect(set("Volume", .double(0.3)) == .send(.changeVolume, payload: ["volume": 0.3, "muted": false]))
        if case .fail(let e) = set("LoopStatus", .string("Sometimes")) {
            #expect(e.name == "org.freedesktop.DBus.Error.InvalidArgs")
        } else {
            Issue.record("a bad LoopStatus must be a D-Bus error")
        }
    }
}
