import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostHost
@testable import PlayerHostLoop

/// The real artwork helper on the inputs of issue 22: `data:` URIs (decoded there, bounded, a
/// bomb refused by the pixel bound, a line far over 64 KiB), and files the user names reached
/// through symlinks (followed to a regular file) while the cache's own files never are.
@Suite(.serialized, .enabled(if: ArtworkFixture.toolsAvailable, "needs ffmpeg and python3"))
struct ArtworkHelperInputTests {
    typealias Limits = ArtworkHelperLimitsTests

    static func dataURI(_ path: String, type: String = "image/png") -> String {
        let bytes = ArtworkCache.read(path, limit: 64 << 20) ?? []
        return "data:\(type);base64," + base64(bytes)
    }

    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var v = UInt32(bytes[i]) << 16
            if n > 1 { v |= UInt32(bytes[i + 1]) << 8 }
            if n > 2 { v |= UInt32(bytes[i + 2]) }
            for k in 0..<4 { out.append(k <= n ? alphabet[Int(v >> UInt32(18 - 6 * k) & 63)] : UInt8(ascii: "=")) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test func dataURIsAreDecodedBoundedAndPixelChecked() throws {
        let loop = try makeLoop()
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        try Limits.makeImages(in: dir)
        let helper = ArtworkHelper(loop: loop, executable: Limits.helperPath, logger: .init(label: "test"))
        func data(_ uri: String, maxBytes: Int = 16 << 20) throws -> Result<ArtworkHelper.Reply, ArtworkHelper.Failure>? {
            unlink(dir + "/out")
            return try Limits.ask(helper, loop, ["op": "data", "uri": .string(uri), "out": .string(dir + "/out"),
                                                 "maxBytes": .int(Int64(maxBytes)), "maxPixels": 100_000_000], timeoutMilliseconds: 10_000)
        }
        let ok = try data(Self.dataURI(dir + "/small.png"))
        guard case .success(.file(let info))? = ok else { Issue.record("a small PNG: \(Limits.error(ok))"); return }
        #expect(info.width == 4 && info.height == 4 && info.type == "image/png")
        #expect(ArtworkCache.read(dir + "/out", limit: 1 << 20) == ArtworkCache.read(dir + "/small.png", limit: 1 << 20), "the bytes themselves")

        // The bomb declares 10001×10000 in 13 KB: refused from its header.
        #expect(Limits.error(try data(Self.dataURI(dir + "/bomb.png"))).contains("100000000-pixel limit"))
        #expect(Limits.error(try data(Self.dataURI(dir + "/bomb.jpg", type: "image/jpeg"))).contains("pixel limit"))
        #expect(access(dir + "/out", F_OK) != 0, "nothing written")
        #expect(Limits.error(try data("data:image/png;base64,@@@@")).contains("malformed"))
        #expect(Limits.error(try data("data:image/png;base64")).contains("malformed"))
        #expect(Limits.error(try data("data:image/png;base64,QUJDRA=x")).contains("malformed"))
        #expect(Limits.error(try data(Self.dataURI(dir + "/small.png"), maxBytes: 20)).contains("20-byte limit"))
        // 3 MiB of text on one line (the helper read at most 64 KiB a line): not an image, but
        // it arrives and is answered; the helper lives on.
        let long = "data:image/png;base64," + String(repeating: "QUJD", count: 3 << 18)
        let longError = Limits.error(try data(long))
        #expect(longError.contains("not an image"), "\(longError)")
        #expect(helper.restarts == 0)
        helper.close()
        closeLoop(loop)
    }

    @Test func userFilesAreFollowedThroughLinksCacheFilesNever() throws {
        let loop = try makeLoop()
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        try Limits.makeImages(in: dir)
        let made = try runShell("""
            cd '\(dir)' && ffmpeg -loglevel error -f lavfi -i 'sine=duration=1' -i small.png -map 0 -map 1 \
              -c:a libmp3lame -c:v copy -disposition:v attached_pic song.mp3 && mkdir lib && \
              ln -s ../song.mp3 lib/song.mp3 && ln -s lib/song.mp3 chain.mp3 && ln -s small.png link.png && \
              mkfifo fifo && ln -s fifo fifo-link && ln -s missing dangling && echo ok
            """)
        #expect(made.output.contains("ok"), "\(made.output)")
        let helper = ArtworkHelper(loop: loop, executable: Limits.helperPath, logger: .init(label: "test"))
        func ask(_ params: [String: JSON]) throws -> String {
            var p = params
            p["out"] = .string(dir + "/out")
            unlink(dir + "/out")
            let r = try Limits.ask(helper, loop, p, timeoutMilliseconds: 5000)
            if case .success(.file(let info))? = r { return "\(info.width)x\(info.height)" }
            return Limits.error(r)
        }
        #expect(try ask(["op": "embedded", "media": .string(dir + "/lib/song.mp3")]) == "4x4", "a symlinked media file")
        #expect(try ask(["op": "embedded", "media": .string(dir + "/chain.mp3")]) == "4x4", "a chain of links")
        #expect(try ask(["op": "image", "in": .string(dir + "/link.png")]) == "4x4", "a symlinked cover")
        #expect(try ask(["op": "image", "in": .string(dir + "/fifo-link")]).contains("not a regular file"), "a link to a FIFO")
        #expect(try ask(["op": "embedded", "media": .string(dir + "/fifo-link")]).contains("not a regular file"))
        #expect(try ask(["op": "image", "in": .string(dir + "/dangling")]).contains("cannot open"))
        // The cache's own files: a link in their place is never followed.
        #expect(try ask(["op": "thumbnail", "in": .string(dir + "/link.png"), "width": 2, "height": 2]).contains("symbolic link"))
        let bytes = try #require(ArtworkCache.read(dir + "/small.png", limit: 1 << 20))
        let verify = try Limits.ask(helper, loop, ["op": "verify", "in": .string(dir + "/link.png"), "bytes": .int(Int64(bytes.count)),
                                                   "checksum": .int(Int64(bytes.withUnsafeBytes(ArtworkCache.fnv32)))], timeoutMilliseconds: 5000)
        #expect(Limits.error(verify) == ArtworkResolver.verifyMismatch)
        #expect(helper.restarts == 0, "no request hung the helper")
        helper.close()
        closeLoop(loop)
    }
}
