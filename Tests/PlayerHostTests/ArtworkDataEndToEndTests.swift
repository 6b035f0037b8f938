import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostHost
@testable import PlayerHostModel

/// The real daemon on the artwork sources of issue 22: `data:` covers as MPRIS importers pass
/// them (the URI as id and as source), and media files and covers reached through symlinks.
@Suite(.serialized, .enabled(if: ArtworkFixture.toolsAvailable, "needs ffmpeg and python3"))
struct ArtworkDataEndToEndTests {
    @Test func aDataCoverResolvesToACachedFileUnderAShortId() throws {
        let f = try ArtworkFixture()
        defer { f.close() }
        _ = try f.client.call("events.subscribe", ["topics": ["artwork"]])
        _ = try f.client.call("session.create", ["id": "d", "kind": "main", "automaticallyPublishes": false])
        let uri = ArtworkHelperInputTests.dataURI(f.cover, type: "image/jpeg")
        #expect(uri.utf8.count > 10_000)
        try f.show("d", title: "Data", id: uri, sources: [uri])
        let id = ArtworkDataURI.normalisedID(uri)
        #expect(id.hasPrefix("data:") && id.utf8.count == 37)
        let event = try f.settled("d", id: id)
        #expect(event["image"]?["from"] == "data", "\(event)")
        let image = try #require(try f.image("d"))
        #expect(image["width"] == 1000 && image["height"] == 1000 && image["type"] == "image/jpeg")
        let path = try #require(image["url"]?.stringValue.flatMap(ArtworkSource.localPath))
        #expect(image["url"]?.stringValue?.hasPrefix("file://" + f.daemon.directory + "/cache/playerhost/artwork/") == true)
        #expect(ArtworkCache.read(path, limit: 1 << 22) == ArtworkCache.read(f.cover, limit: 1 << 22), "the cover, decoded")
        let info = try f.client.call("info.get", ["session": "d"])["info"]
        #expect(info?["artwork"]?["id"] == .string(id), "the published id is the short one")

        // The same cover for another session: by content, from the cache, not decoded again.
        _ = try f.client.call("session.create", ["id": "d2", "kind": "main", "automaticallyPublishes": false])
        try f.show("d2", title: "Data again", id: uri, sources: [uri])
        #expect(try f.settled("d2", id: id)["image"]?["from"] == "cache")
    }

    @Test func oversizedMalformedAndBombDataSourcesAreFaults() throws {
        let f = try ArtworkFixture()
        defer { f.close() }
        try ArtworkHelperLimitsTests.makeImages(in: f.daemon.directory)
        _ = try f.client.call("events.subscribe", ["topics": ["artwork"]])
        // artwork_max_kb = 256 in the fixture: at most 349 784 characters of data: URI.
        let cases: [(String, String)] = [
            ("data:image/jpeg;base64," + String(repeating: "A", count: 400_000), "over the 349784-byte bound (artwork_max_kb = 256"),
            ("data:image/jpeg;base64,!!!!", "malformed"),
            ("data:image/jpeg;base64", "malformed"),
            (ArtworkHelperInputTests.dataURI(f.daemon.directory + "/bomb.png"), "100000000-pixel limit"),
        ]
        for (i, (uri, reason)) in cases.enumerated() {
            let s = "bad\(i)"
            _ = try f.client.call("session.create", ["id": .string(s), "kind": "main", "automaticallyPublishes": false])
            try f.show(s, title: "Bad", id: uri, sources: [uri])
            let id = ArtworkDataURI.normalisedID(uri)
            let event = try f.settled(s, id: id)
            #expect(event["error"]?.stringValue?.contains(reason) == true, "\(s): \(event)")
            #expect(try f.image(s) == nil, "\(s): nothing published")
            let doctor = try f.client.call("arbiter.doctor", ["session": .string(s)])
            let faults = doctor.arrayValue?.first?["faults"]?.arrayValue ?? []
            #expect(faults.contains { $0["code"] == "artworkFailed" && $0["message"]?.stringValue?.contains(reason) == true }, "\(s): \(faults)")
            #expect(faults.allSatisfy { ($0["message"]?.stringValue?.utf8.count ?? 0) < 1000 }, "the fault names the short id")
        }
        #expect(try f.client.call("host.ping") == "pong")
    }

    @Test func symlinkedMediaFilesAndCoversResolve() throws {
        let f = try ArtworkFixture()
        defer { f.close() }
        let d = f.daemon.directory
        let linked = try runShell("""
            cd '\(d)' && mkdir library && ln -s ../song.mp3 library/song.mp3 && ln -s cover.jpg link.jpg && \
            mkfifo fifo && ln -s fifo fifo.jpg && echo ok
            """)
        #expect(linked.output.contains("ok"))
        _ = try f.client.call("events.subscribe", ["topics": ["artwork"]])
        _ = try f.client.call("session.create", ["id": "m", "kind": "main", "automaticallyPublishes": false])
        _ = try f.client.call("info.update", ["session": "m", "info": ["title": "Linked", "assetURL": .string(d + "/library/song.mp3")]])
        let media = try f.settled("m", id: "embedded:" + d + "/library/song.mp3")
        #expect(media["image"]?["from"] == "embedded" && media["image"]?["width"] == 1000, "\(media)")

        _ = try f.client.call("session.create", ["id": "c", "kind": "main", "automaticallyPublishes": false])
        try f.show("c", title: "Linked cover", id: "linked-cover", sources: ["file://" + d + "/link.jpg"])
        #expect(try f.settled("c", id: "linked-cover")["image"]?["width"] == 1000)

        // A link to something that is not a regular file stays refused, at once.
        _ = try f.client.call("session.create", ["id": "p", "kind": "main", "automaticallyPublishes": false])
        try f.show("p", title: "Pipe", id: "fifo-cover", sources: [d + "/fifo.jpg"])
        #expect(try f.settled("p", id: "fifo-cover")["error"]?.stringValue?.contains("not a regular file") == true)
    }
}
