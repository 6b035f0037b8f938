import Testing
@testable import PlayerHost
@testable import PlayerHostModel

/// Issue 21 ("Never dies, part two"), the MPRIS export and the model's time bound, on the pure
/// layers: what a bus peer or a socket client sends that used to trap (`Int64(s * 1e6)` on a
/// huge position or length) or to leak (an unresolved artwork source as `mpris:artUrl`).
@Suite struct MPRISHostileTests {
    static let maxUs = Microseconds.maxMicroseconds

    /// Session "s" Now Playing and playing from 0, its one item `item`.
    func playing(_ item: MediaItem) throws -> NowPlayingModel {
        var m = NowPlayingModel()
        try m.makeEligible("s", items: [item])
        _ = try m.play(session: "s", now: at(0))
        return m
    }

    func props(_ m: NowPlayingModel, _ t: Double) -> MPRISProperties {
        MPRISProperties(MPRISNowPlaying.current(m, now: at(t)))
    }

    /// A Now Playing value straight from info (what an imported player or a socket app publishes).
    func props(_ info: NowPlayingInfo, _ state: PlaybackState = .playing) -> MPRISProperties {
        MPRISProperties(MPRISNowPlaying(session: "x", info: info, playbackState: state, timestamp: at(1)))
    }

    func code(_ body: () throws -> Void) -> RPCErrorCode? {
        do { try body() } catch let e as ModelError { return e.code } catch { return nil }
        return nil
    }

    // MARK: - Item 1: Seek / SetPosition by INT64_MAX on an item without a duration

    @Test func seekByInt64MaxOnALiveItemSaturatesAtTheBoundAndTheExportHoldsIt() throws {
        var m = try playing(MediaItem(title: "Live"))
        let p = props(m, 10)
        #expect(p.duration == nil)
        let request = MPRISRequest.call("Seek", interface: .player, arguments: [.int64(.max)], properties: p, now: at(10))
        #expect(request == .send(.changePlaybackPosition, payload: ["position": .double(Microseconds.maxSeconds)]))
        // Carried out as the bridge does, the model takes it, and the export reads it back.
        guard case .send(let kind, let payload) = request else { return }
        _ = try m.sendCommand(kind, payload: payload, now: at(10))
        let after = props(m, 10)
        #expect(after.positionMicroseconds(at: at(10)) == Self.maxUs)
        #expect(after.positionMicroseconds(at: at(1e6)) == Self.maxUs, "playing on does not pass the bound")
        #expect(after.seekedPosition(since: p) == Self.maxUs)
        // The other end: INT64_MIN is "before the start".
        #expect(MPRISRequest.call("Seek", interface: .player, arguments: [.int64(.min)], properties: after, now: at(10))
                == .send(.changePlaybackPosition, payload: ["position": .double(0)]))
    }

    @Test func setPositionByInt64MaxOnALiveItemSaturatesAndWithALengthIsIgnored() throws {
        let live = props(try playing(MediaItem(title: "Live")), 10)
        func set(_ p: MPRISProperties, _ us: Int64) -> MPRISRequest {
            MPRISRequest.call("SetPosition", interface: .player, arguments: [.objectPath(p.trackID), .int64(us)], properties: p, now: at(10))
        }
        #expect(set(live, .max) == .send(.changePlaybackPosition, payload: ["position": .double(Microseconds.maxSeconds)]))
        #expect(set(live, .min) == .ignore)
        #expect(set(live, 5_000_000) == .send(.changePlaybackPosition, payload: ["position": .double(5)]))
        // With a length, the spec's rule stands: beyond it is ignored.
        let song = props(try playing(song("A", 100)), 10)
        #expect(set(song, .max) == .ignore)
        #expect(MPRISRequest.call("Seek", interface: .player, arguments: [.int64(.max)], properties: song, now: at(10))
                == .send(.nextTrack, payload: [:]))
    }

    // MARK: - Item 2: seconds → µs with no range check (length, Position, Seeked)

    @Test func aHugeLengthIsAbsentAndPositionAndSeekedSaturate() {
        // An item longer than the bound (an imported player's, or one published before the bound).
        let long = props(NowPlayingInfo([.title: .text("Long"), .duration: .number(1e13), .elapsed: .number(1e13), .rate: .number(1)]))
        #expect(long.metadata["xesam:title"] == .string("Long"), "the title stays")
        #expect(long.metadata["mpris:length"] == nil, "a length beyond 10⁹ s is treated as absent")
        #expect(long.positionMicroseconds(at: at(1)) == Self.maxUs)
        #expect(long.seekedPosition(since: MPRISProperties()) == Self.maxUs)

        // A session without a duration emitting Seeked from far out, and rates that overflow.
        let live = props(NowPlayingInfo([.title: .text("Live"), .elapsed: .number(1e300), .rate: .number(1e300)]))
        #expect(live.positionMicroseconds(at: at(1e9)) == Self.maxUs)
        #expect(live.seekedPosition(since: MPRISProperties()) == Self.maxUs)

        // At the bound exactly, the length is exported.
        let edge = props(NowPlayingInfo([.title: .text("Edge"), .duration: .number(Microseconds.maxSeconds)]))
        #expect(edge.metadata["mpris:length"] == .int64(Self.maxUs))
    }

    @Test func npctlsMprisLengthSaturatesInsteadOfTrapping() {
        let s = InfoSnapshot(["session": "x", "info": ["duration": .double(1e300)], "playbackState": "playing"])
        #expect(s.value("mpris:length", at: 0) == .int(.max))
        let ok = InfoSnapshot(["session": "x", "info": ["duration": .double(1.5)], "playbackState": "playing"])
        #expect(ok.value("mpris:length", at: 0) == .int(1_500_000))
    }

    // MARK: - Item 3 (and 2's socket side): the model refuses times beyond 10⁹ s with −32602

    @Test func commandPositionsAndIntervalsBeyondTheBoundAreInvalidParamsAndChangeNothing() throws {
        var m = try playing(song("A", 100))
        _ = try m.seek(session: "s", to: 7, now: at(1))
        let before = m
        for (kind, payload) in [(RemoteCommandKind.changePlaybackPosition, ["position": JSON.double(1e300)]),
                                (.changePlaybackPosition, ["position": .double(Microseconds.maxSeconds.nextUp)]),
                                (.skipForward, ["interval": .double(1e300)]),
                                (.skipBackward, ["interval": .double(1e13)])] {
            #expect(code { _ = try m.sendCommand(kind, session: "s", payload: payload, now: at(2)) } == .invalidParams, "\(kind) \(payload)")
        }
        #expect(m.players == before.players, "nothing changed")
        // At the bound, accepted (and clamped to the item by the player).
        _ = try m.sendCommand(.changePlaybackPosition, session: "s", payload: ["position": .double(Microseconds.maxSeconds)], now: at(2))
        #expect(code { _ = try m.configureCommand(session: "s", .skipForward, properties: ["preferredIntervals": [15, 1e300]], now: at(2)) } == .invalidParams)
    }

    @Test func durationsElapsedAndSeeksBeyondTheBoundAreInvalidParams() throws {
        #expect(code { _ = try MediaItem(json: ["title": "Far", "duration": .double(1e13)]) } == .invalidParams)
        #expect(try MediaItem(json: ["title": "Edge", "duration": .double(1e9)]).duration == 1e9)
        #expect(code { _ = try NowPlayingInfo(json: ["duration": .double(1e300)]) } == .invalidParams)
        #expect(code { _ = try NowPlayingInfo(json: ["elapsed": .double(1e10)]) } == .invalidParams)
        #expect(code { _ = try NowPlayingInfo(json: ["adTimeRanges": [["start": 0, "duration": .double(1e300)]]]) } == .invalidParams)
        #expect(code { try PlayerSync(elapsed: 1e300).validate() } == .invalidParams)
        #expect(code { try PlayerSync(duration: 1e13).validate() } == .invalidParams)
        var m = try playing(MediaItem(title: "Live"))
        #expect(code { _ = try m.seek(session: "s", to: 1e300, now: at(1)) } == .invalidParams)
        #expect(code { _ = try m.seek(session: "s", to: -1e300, now: at(1)) } == .invalidParams)
        // A skip from near the bound on an item without a length saturates at it.
        _ = try m.seek(session: "s", to: Microseconds.maxSeconds - 1, now: at(1))
        _ = try m.sendCommand(.skipForward, session: "s", payload: ["interval": 15], now: at(1))
        #expect(props(m, 1).positionMicroseconds(at: at(1)) == Self.maxUs)
    }

    // MARK: - Found by the D-Bus fuzz: OpenUri's string goes to a plugin and the log

    @Test func openUriIsBoundedBeforeItReachesAPluginOrTheLog() {
        func open(_ uri: String) -> MPRISRequest {
            MPRISRequest.call("OpenUri", interface: .player, arguments: [.string(uri)], properties: MPRISProperties(), now: .zero)
        }
        let edge = "file:///" + String(repeating: "a", count: MPRISRequest.maxURIBytes - 8)
        #expect(open(edge) == .open(edge))
        guard case .fail(let e) = open(edge + "a") else { Issue.record("a longer URI is refused"); return }
        #expect(e.name == "org.freedesktop.DBus.Error.LimitsExceeded")
        #expect(e.message.contains("8192"))
    }

    // MARK: - Item 13: artUrl is only ever the resolved cache file

    @Test func unresolvedOrFailedArtworkSourcesAreNeverExported() {
        for sources in [["file:///etc/shadow"], ["/dev/zero"], ["/tmp/a-fifo", "https://example.org/a.jpg"], ["embedded"]] {
            let p = props(NowPlayingInfo([.title: .text("T"), .artwork: .artwork(Artwork(id: "a", sources: sources))]))
            #expect(p.metadata["mpris:artUrl"] == nil, "\(sources) is not resolved")
            #expect(p.metadata["xesam:title"] == .string("T"))
        }
        let image = ArtworkImage(url: "file:///cache/ab.png", width: 1, height: 1, type: "png", from: .cache)
        let resolved = props(NowPlayingInfo([.artwork: .artwork(Artwork(id: "a", sources: ["/etc/shadow"], image: image))]))
        #expect(resolved.metadata["mpris:artUrl"] == .string("file:///cache/ab.png"))
    }

    @Test func aFailedResolutionThroughTheModelExportsNoArtUrl() throws {
        let art = NowPlayingInfo([.artwork: .artwork(Artwork(id: "cover", sources: ["file:///etc/shadow"]))])
        var m = try playing(song("A", 100, info: art))
        guard let request = ArtworkRequest(info: art) else { Issue.record("no request"); return }
        _ = try m.settleArtwork(session: "s", .failed(request, reason: "not a regular file"), now: at(1))
        #expect(props(m, 1).metadata["mpris:artUrl"] == nil)
    }
}
