import Testing
@testable import PlayerHost

/// The pure artwork resolution: order, generations, at most one publication per track, and the
/// resolved image in published info only while it answers the current track.
@Suite struct ArtworkResolutionTests {
    let image = ArtworkImage(url: "file:///c/a.jpg", width: 10, height: 10, type: "image/jpeg", from: .remote)

    func info(_ json: JSON) throws -> NowPlayingInfo { try NowPlayingInfo(json: json) }

    @Test func requestOrdersEmbeddedThenCacheThenTheRest() throws {
        let r = try #require(ArtworkRequest(info: try info([
            "assetURL": "file:///music/a%20b.mp3",
            "artwork": ["id": "x", "sources": ["https://h/a.jpg", "embedded", "/img/b.png", "ftp://no"]],
        ])))
        #expect(r.id == "x" && !r.isImplicit)
        #expect(r.steps == [.embedded("/music/a b.mp3"), .cache, .remote("https://h/a.jpg"), .file("/img/b.png")])
    }

    @Test func localMediaWithoutArtworkGetsEmbeddedImplicitly() throws {
        let r = try #require(ArtworkRequest(info: try info(["assetURL": "/music/a.mp3", "title": "A"])))
        #expect(r.isImplicit && r.id == "embedded:/music/a.mp3" && r.steps == [.embedded("/music/a.mp3")])
        #expect(ArtworkRequest(info: try info(["assetURL": "https://radio/stream"])) == nil, "a stream has no embedded picture to read")
        #expect(ArtworkRequest(info: try info(["title": "A"])) == nil)
    }

    @Test func aNewTrackCancelsTheOldGenerationAndDropsItsResult() {
        var r = ArtworkResolution()
        let one = ArtworkRequest(id: "1", sources: [.remote("http://h/slow")])
        let two = ArtworkRequest(id: "2", sources: [.remote("http://h/fast")])
        let start1 = r.observe("s", request: one)
        #expect(start1 == [.start("s", generation: 1, step: .cache, request: one)])
        #expect(r.failed("s", generation: 1, reason: nil) == [.start("s", generation: 1, step: .remote("http://h/slow"), request: one)])
        let start2 = r.observe("s", request: two)
        #expect(start2 == [.cancel("s", generation: 1), .start("s", generation: 2, step: .cache, request: two)])
        #expect(r.succeeded("s", generation: 1, image: image) == [], "track 1's late result is dropped")
        #expect(r.staleDropped == 1)
        #expect(r.succeeded("s", generation: 2, image: image) == [.settle("s", .resolved(two, image))])
        #expect(r.observe("s", request: two) == [], "the same track resolves and publishes once")
        #expect(r.succeeded("s", generation: 2, image: image) == [], "a second result for the track is dropped")
    }

    @Test func failuresSettleWithEveryReasonAndAbsenceIsNoFault() {
        var r = ArtworkResolution()
        let req = ArtworkRequest(id: "x", sources: [.remote("http://h/a"), .file("/b")])
        _ = r.observe("s", request: req)
        _ = r.failed("s", generation: 1, reason: nil)  // not cached
        _ = r.failed("s", generation: 1, reason: "http://h/a: HTTP 404")
        #expect(r.failed("s", generation: 1, reason: "/b: not an image")
            == [.settle("s", .failed(req, reason: "http://h/a: HTTP 404; /b: not an image"))])
        let implicit = ArtworkRequest(id: "embedded:/m.ogg", sources: [.embedded(mediaPath: "/m.ogg")], isImplicit: true)
        _ = r.observe("t", request: implicit)
        #expect(r.failed("t", generation: 2, reason: nil) == [], "a file without a picture is not a fault")
        #expect(r.closed("t") == [])
    }

    @Test func theImageShowsOnlyOnTheTrackItWasResolvedFor() throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "s", kind: .main, automaticallyPublishes: false, now: .zero)
        _ = try m.setInfo(session: "s", info: ["title": "One", "artwork": ["id": "one", "sources": ["http://h/1"]]], now: at(0))
        let req = try #require(ArtworkRequest(info: m.publishedInfo(session: "s").info))
        let settled = try m.settleArtwork(session: "s", .resolved(req, image), now: at(1))
        #expect(settled.events.count == 1, "one publication: the image")
        guard case .artwork(let a)? = try m.publishedInfo(session: "s").info[.artwork] else { Issue.record("no artwork"); return }
        #expect(a.image == image)
        #expect(ArtworkRequest(info: try m.publishedInfo(session: "s").info) == req, "the image does not change the request")
        _ = try m.updateInfo(session: "s", info: ["title": "Two", "artwork": ["id": "two", "sources": ["http://h/2"]]], now: at(2))
        guard case .artwork(let b)? = try m.publishedInfo(session: "s").info[.artwork] else { Issue.record("no artwork"); return }
        #expect(b.image == nil, "never the old art on a new title")
        _ = try m.settleArtwork(session: "s", .failed(try #require(ArtworkRequest(info: m.publishedInfo(session: "s").info)), reason: "HTTP 404"), now: at(3))
        let faults = try m.diagnostics(session: "s", now: at(3))
        #expect(faults.contains { $0.code == "artworkFailed" && $0.message.contains("HTTP 404") })
    }

    @Test func implicitArtworkAppearsResolvedAndKeepsItsRequest() throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "s", kind: .main, automaticallyPublishes: false, now: .zero)
        _ = try m.setInfo(session: "s", info: ["title": "One", "assetURL": "/m/a.mp3"], now: at(0))
        #expect(try m.publishedInfo(session: "s").info[.artwork] == nil, "nothing before it is resolved")
        let req = try #require(ArtworkRequest(info: m.publishedInfo(session: "s").info))
        _ = try m.settleArtwork(session: "s", .resolved(req, image), now: at(1))
        let published = try m.publishedInfo(session: "s").info
        #expect(published[.artwork]?.toJSON()["image"]?["url"] == "file:///c/a.jpg")
        #expect(ArtworkRequest(info: published) == req)
    }
}
