import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostClient
@testable import PlayerHostHost
@testable import PlayerHostLoop
@testable import PlayerHostModel

/// The real artwork helper against hostile inputs made here (issue 21): decompression bombs are
/// refused from their header, a FIFO is never opened as an image nor a symlink as a cache file
/// (links the user names are followed: `ArtworkHelperInputTests`), and an oversized
/// file is refused before it is read. Each request goes through the daemon's `ArtworkHelper`.
@Suite(.serialized, .enabled(if: ArtworkFixture.toolsAvailable, "needs ffmpeg and python3"))
struct ArtworkHelperLimitsTests {
    static var helperPath: String { DaemonHarness.binDirectory + "/playerhost-artwork" }

    /// Writes the test images into `dir`: `bomb.png` (10001×10000, 1-bit, all zeros: 13 KB that
    /// decode to 100 010 000 pixels, one row over the 100 MP bound), `bomb.jpg` (a 16×16 JPEG
    /// whose SOF declares 65500×65500) and `small.png` (4×4).
    static func makeImages(in dir: String) throws {
        let script = """
            import struct, subprocess, sys, zlib
            d = sys.argv[1]
            def chunk(k, b): return struct.pack('>I', len(b)) + k + b + struct.pack('>I', zlib.crc32(k + b) & 0xffffffff)
            def png(w, h, depth, color, row):
                raw = (b'\\x00' + row) * h
                return (b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, color, 0, 0, 0))
                        + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))
            open(d + '/bomb.png', 'wb').write(png(10001, 10000, 1, 0, b'\\x00' * ((10001 + 7) // 8)))
            open(d + '/small.png', 'wb').write(png(4, 4, 8, 2, b'\\x80' * 12))
            subprocess.check_call(['ffmpeg', '-loglevel', 'error', '-f', 'lavfi', '-i', 'color=c=gray:s=16x16',
                                   '-frames:v', '1', '-pix_fmt', 'gray', d + '/j.jpg'])
            j = bytearray(open(d + '/j.jpg', 'rb').read())
            sof = j.index(b'\\xff\\xc0')
            j[sof + 5:sof + 9] = struct.pack('>HH', 65500, 65500)
            open(d + '/bomb.jpg', 'wb').write(bytes(j))
            print('made')
            """
        #expect(ArtworkCache.write(dir + "/make.py", Array(script.utf8)))
        let r = try runShell("python3 '\(dir)/make.py' '\(dir)'")
        guard r.output.contains("made") else { throw ArtworkFixture.Failed("could not make the images: \(r.output)") }
    }

    /// One request to `helper`, waited for with a deadline.
    static func ask(_ helper: ArtworkHelper, _ loop: EventLoop, _ params: [String: JSON],
                    timeoutMilliseconds: UInt64? = nil) throws -> Result<ArtworkHelper.Reply, ArtworkHelper.Failure>? {
        var result: Result<ArtworkHelper.Reply, ArtworkHelper.Failure>?
        helper.request(params, timeoutMilliseconds: timeoutMilliseconds) { result = $0 }
        try runLoop(loop, timeout: 20_000) { result != nil }
        return result
    }

    static func error(_ result: Result<ArtworkHelper.Reply, ArtworkHelper.Failure>?) -> String {
        if case .failure(let f) = result { return f.description }
        return "accepted"
    }

    @Test func decompressionBombsAreRefusedFromTheirHeader() throws {
        let loop = try makeLoop()
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        try Self.makeImages(in: dir)
        let helper = ArtworkHelper(loop: loop, executable: Self.helperPath, logger: .init(label: "test"))
        // A small image first: the helper is started, so the timings below are the bombs' own.
        let ok = try Self.ask(helper, loop, ["op": "image", "in": .string(dir + "/small.png"), "out": .string(dir + "/out")])
        guard case .success(.file(let info))? = ok else { Issue.record("a small PNG: \(Self.error(ok))"); return }
        #expect(info.width == 4 && info.height == 4 && info.type == "image/png")
        unlink(dir + "/out")
        for name in ["bomb.png", "bomb.jpg"] {
            let started = ControlClient.now()
            let r = try Self.ask(helper, loop, ["op": "image", "in": .string(dir + "/" + name), "out": .string(dir + "/out"),
                                                "maxPixels": 100_000_000])
            #expect(Self.error(r).contains("100000000-pixel limit"), "\(name): \(Self.error(r))")
            // (Decoding them took 2 s and 12 s of helper CPU before the bound.)
            #expect(ControlClient.now() - started < 5, "\(name): refused without decoding")
            #expect(access(dir + "/out", F_OK) != 0, "\(name): nothing written")
            let t = try Self.ask(helper, loop, ["op": "thumbnail", "in": .string(dir + "/" + name), "out": .string(dir + "/t.png"),
                                                "width": 300, "height": 300, "maxPixels": 100_000_000])
            #expect(Self.error(t).contains("pixel limit"), "\(name) rendition: \(Self.error(t))")
        }
        helper.close()
        closeLoop(loop)
    }

    @Test func aFIFOASymlinkAndAnOversizedFileAreRefusedAtOnce() throws {
        let loop = try makeLoop()
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        try Self.makeImages(in: dir)
        #expect(mkfifo(dir + "/fifo", 0o600) == 0)
        #expect(symlink(dir + "/small.png", dir + "/link.png") == 0)
        let helper = ArtworkHelper(loop: loop, executable: Self.helperPath, logger: .init(label: "test"))
        let cases: [(String, [String: JSON], String)] = [
            ("fifo", ["op": "image", "in": .string(dir + "/fifo")], "not a regular file"),
            ("link.png as a cache file", ["op": "thumbnail", "in": .string(dir + "/link.png"), "width": 2, "height": 2], "symbolic link"),
            ("embedded fifo", ["op": "embedded", "media": .string(dir + "/fifo")], "not a regular file"),
            ("over maxBytes", ["op": "image", "in": .string(dir + "/small.png"), "maxBytes": 10], "10-byte limit"),
        ]
        for (what, params, reason) in cases {
            var p = params
            p["out"] = .string(dir + "/out")
            // A deadline far above the answer: a helper blocked on the FIFO would be killed at it,
            // and fail with "did not answer" instead.
            let r = try Self.ask(helper, loop, p, timeoutMilliseconds: 5000)
            #expect(Self.error(r).contains(reason), "\(what): \(Self.error(r))")
        }
        #expect(helper.restarts == 0, "no request hung the helper")
        helper.close()
        closeLoop(loop)
    }
}

extension ArtworkHelperLimitsTests {
    /// Cached files are checked against their names by the helper (the daemon's loop never
    /// reads them): intact, changed, truncated, or a FIFO in the file's place.
    @Test func theHelperChecksCachedFiles() throws {
        let loop = try makeLoop()
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let bytes = [UInt8](repeating: 7, count: 1000)
        let sum = Int64(bytes.withUnsafeBytes(ArtworkCache.fnv32))
        #expect(ArtworkCache.write(dir + "/a", bytes) && mkfifo(dir + "/fifo", 0o600) == 0)
        let helper = ArtworkHelper(loop: loop, executable: Self.helperPath, logger: .init(label: "test"))
        func verify(_ path: String, bytes: Int64 = 1000) throws -> String {
            let r = try Self.ask(helper, loop, ["op": "verify", "in": .string(path), "bytes": .int(bytes), "checksum": .int(sum)],
                                 timeoutMilliseconds: 5000)
            if case .success(.none)? = r { return "intact" }
            return Self.error(r)
        }
        #expect(try verify(dir + "/a") == "intact")
        #expect(try verify(dir + "/a", bytes: 999) == ArtworkResolver.verifyMismatch)
        #expect(try verify(dir + "/fifo") == ArtworkResolver.verifyMismatch)
        #expect(ArtworkCache.write(dir + "/a", [UInt8](repeating: 8, count: 1000)))
        #expect(try verify(dir + "/a") == ArtworkResolver.verifyMismatch)
        helper.close()
        closeLoop(loop)
    }
}

/// A helper that hangs or dies on one request fails that request only: the requests waiting
/// behind it go to the restarted helper (issue 21: an innocent session's cover used to fail
/// with the hang's reason and never be retried). A fake helper script, real processes.
@Suite struct ArtworkHelperIsolationTests {
    @Test func onlyTheRequestThatHangsOrKillsTheHelperFails() throws {
        let loop = try makeLoop()
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let script = dir + "/helper.py"
        let source = """
            #!/usr/bin/env python3
            import json, sys, time
            for line in sys.stdin:
                r = json.loads(line)
                if r.get('op') == 'hang': time.sleep(3600)
                if r.get('op') == 'die': sys.exit(3)
                print(json.dumps({'id': r['id'], 'ok': True, 'none': True}), flush=True)
            """
        #expect(ArtworkCache.write(script, Array(source.utf8)))
        #expect(chmod(script, 0o755) == 0)
        let helper = ArtworkHelper(loop: loop, executable: script, logger: .init(label: "test"))
        // Generous for the others (a loaded machine starts Python slowly), short for the hang:
        // its deadline runs from when it is sent, after good1's answer.
        helper.requestTimeoutMilliseconds = 20_000
        helper.restartPolicy = RestartPolicy(initialBackoffMS: 10, maxBackoffMS: 100, stableAfterMS: 10_000, startLimit: nil)
        var results: [String: Result<ArtworkHelper.Reply, ArtworkHelper.Failure>] = [:]
        for op in ["good1", "hang", "good2", "good3", "die", "good4"] {
            helper.request(["op": .string(op)], timeoutMilliseconds: op == "hang" ? 500 : nil) { results[op] = $0 }
        }
        try runLoop(loop, timeout: 60_000) { results.count == 6 }
        for op in ["good1", "good2", "good3", "good4"] {
            guard case .success(.none)? = results[op] else {
                Issue.record("\(op) failed with another request's reason: \(String(describing: results[op]))")
                continue
            }
        }
        #expect(ArtworkHelperLimitsTests.error(results["hang"]).contains("did not answer within 500 ms"))
        #expect(ArtworkHelperLimitsTests.error(results["die"]).contains("exited with status 3"))
        #expect(helper.restarts == 2)
        helper.close()
        closeLoop(loop)
    }

    /// A fetch helper idle past its limit exits (its memory goes with it) and the next request
    /// starts a fresh one, without counting a restart or waiting a backoff.
    @Test func anIdleHelperExitsAndStartsAgainOnDemand() throws {
        let loop = try makeLoop()
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let script = dir + "/helper.py"
        let source = """
            #!/usr/bin/env python3
            import json, sys
            for line in sys.stdin:
                print(json.dumps({'id': json.loads(line)['id'], 'ok': True, 'none': True}), flush=True)
            """
        #expect(ArtworkCache.write(script, Array(source.utf8)) && chmod(script, 0o755) == 0)
        let helper = ArtworkHelper(loop: loop, executable: script, logger: .init(label: "test"))
        helper.idleExitMilliseconds = 50
        var first: Result<ArtworkHelper.Reply, ArtworkHelper.Failure>?
        helper.request(["op": "a"]) { first = $0 }
        try runLoop(loop) { first != nil }
        let pid = try #require(helper.pid)
        try runLoop(loop) { helper.pid == nil }
        var second: Result<ArtworkHelper.Reply, ArtworkHelper.Failure>?
        helper.request(["op": "b"]) { second = $0 }
        try runLoop(loop) { second != nil }
        guard case .success(.none)? = second else { Issue.record("after idling: \(String(describing: second))"); return }
        #expect(helper.pid != nil && helper.pid != pid)
        #expect(helper.restarts == 0 && helper.lastExit == nil, "an idle exit is not a death")
        helper.close()
        closeLoop(loop)
    }
}
