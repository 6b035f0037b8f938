import Testing
@testable import PlayerHostBase
@testable import PlayerHostModel

/// `data:` artwork sources in the pure layer (issue 22): recognised as a source, and a short,
/// stable content id instead of the URI itself as the artwork's id.
@Suite struct ArtworkDataURITests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }

    static func sha(_ s: String) -> String { hex(Array(s.utf8).withUnsafeBytes(ArtworkDataURI.sha256)) }

    @Test func sha256MatchesTheStandardVectors() {
        #expect(Self.sha("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.sha("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // Two blocks of padding (56 bytes), and several full blocks.
        #expect(Self.sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(Self.sha(String(repeating: "a", count: 1000))
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test func aDataURIIdBecomesAShortStableContentId() throws {
        let uri = "data:image/png;base64," + String(repeating: "QUJD", count: 50_000)
        let id = ArtworkDataURI.normalisedID(uri)
        #expect(id.hasPrefix("data:") && id.utf8.count == 37, "\(id)")
        #expect(ArtworkDataURI.normalisedID(uri) == id, "stable")
        #expect(ArtworkDataURI.normalisedID(id) == id, "normalising twice changes nothing")
        #expect(ArtworkDataURI.normalisedID(uri + "QUJD") != id, "another payload, another id")
        #expect(ArtworkDataURI.normalisedID("DATA:image/png;base64,QUJD").hasPrefix("data:"))
        #expect(ArtworkDataURI.normalisedID("cover-1") == "cover-1")
        #expect(ArtworkDataURI.normalisedID("https://example.org/a,b") == "https://example.org/a,b")

        // As the MPRIS importer gives it: the URI as id and as the one source.
        let artwork = try Artwork(json: ["id": .string(uri), "sources": [.string(uri)]])
        #expect(artwork.id == id)
        #expect(artwork.sources == [uri], "the source keeps the payload for the helper")
        var info = NowPlayingInfo()
        info[.artwork] = .artwork(artwork)
        let request = try #require(ArtworkRequest(info: info))
        #expect(request.id == id)
        #expect(request.sources == [.data(uri)])
        #expect(request.steps == [.cache, .data(uri)], "the cache (by content id) before decoding again")
    }

    @Test func theBoundOnTheTextFollowsTheImageBound() {
        // 256 KiB of image is 349 528 characters of base64 (rounded up to whole groups).
        let bound = ArtworkDataURI.maxURIBytes(forImageBytes: 256 << 10)
        #expect(bound >= (256 << 10) * 4 / 3 + 4 && bound <= (256 << 10) * 4 / 3 + 4 + ArtworkDataURI.headerAllowance)
        #expect(ArtworkDataURI.maxURIBytes(forImageBytes: Int.max) == Int.max, "saturates")
        #expect(ArtworkDataURI.isDataURI("Data:,x") && !ArtworkDataURI.isDataURI("dat") && !ArtworkDataURI.isDataURI("database:x"))
    }
}
