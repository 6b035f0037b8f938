import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostHost

/// The on-disk cache without a daemon: bound, LRU order across reopen, corrupt files discarded.
@Suite struct ArtworkCacheTests {
    func put(_ cache: ArtworkCache, _ id: String, size: Int, fill: UInt8 = 7) -> ArtworkCache.Entry? {
        let bytes = [UInt8](repeating: fill, count: size)
        let tmp = cache.temporaryPath()
        #expect(ArtworkCache.write(tmp, bytes))
        let sum = bytes.withUnsafeBytes(ArtworkCache.fnv32)
        return cache.insert(id: id, original: true, temporary: tmp,
                            info: .init(width: 10, height: 10, type: "image/jpeg", bytes: size, checksum: sum))
    }

    @Test func fillingPastTheBoundEvictsTheLeastRecentlyUsed() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let cache = try ArtworkCache(directory: dir + "/a/b", limitBytes: 3000)
        var st = stat()
        #expect(stat(dir + "/a/b", &st) == 0 && st.st_mode & 0o777 == 0o700)
        _ = put(cache, "one", size: 1000)
        _ = put(cache, "two", size: 1000)
        _ = put(cache, "three", size: 1000)
        #expect(cache.original(for: "one") != nil, "one is now the most recently used")
        let four = try #require(put(cache, "four", size: 1000))
        #expect(stat(cache.path(four), &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(cache.totalBytes <= 3000 && cache.evictions == 1)
        #expect(cache.original(for: "two") == nil, "two was the least recently used")
        #expect(cache.original(for: "one") != nil && cache.original(for: "three") != nil && cache.original(for: "four") != nil)

        let reopened = try ArtworkCache(directory: dir + "/a/b", limitBytes: 3000)
        #expect(reopened.files.count == 3 && reopened.original(for: "four")?.bytes == 1000, "the cache survives a restart")
    }

    @Test func aTruncatedOrCorruptFileIsDiscarded() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        var cache = try ArtworkCache(directory: dir, limitBytes: 1 << 20)
        let a = try #require(put(cache, "a", size: 500))
        let b = try #require(put(cache, "b", size: 500))
        truncate(cache.path(a), 100)
        #expect(ArtworkCache.write(cache.path(b), [UInt8](repeating: 9, count: 500)))
        cache = try ArtworkCache(directory: dir, limitBytes: 1 << 20)
        #expect(cache.original(for: "a") == nil && cache.original(for: "b") == nil)
        #expect(cache.discarded == 2 && cache.files.isEmpty && access(cache.path(a), F_OK) != 0)
    }

    /// Issue 21 item 5: two files whose names claim Int.max bytes made `totalBytes` overflow and
    /// the daemon trap at every start; a rendition claiming Int.max pixels a side trapped the
    /// area sort. Sizes are stat's and bounded; such names are not cache files.
    @Test func namesClaimingHugeSizesNeitherOverflowNorCount() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let key = ArtworkCache.keyHash("huge")
        let tiny: [UInt8] = [1, 2, 3]
        let sum = String(tiny.withUnsafeBytes(ArtworkCache.fnv32), radix: 16)
        #expect(ArtworkCache.write("\(dir)/0123456789abcdef.o.64x48.9223372036854775807.0.png", tiny))
        #expect(ArtworkCache.write("\(dir)/fedcba9876543210.o.64x48.9223372036854775807.0.png", tiny))
        #expect(ArtworkCache.write("\(dir)/\(key).o.64x48.3.\(sum).png", tiny))
        #expect(ArtworkCache.write("\(dir)/\(key).r.9223372036854775807x9223372036854775807.3.\(sum).png", tiny))
        #expect(ArtworkCache.write("\(dir)/\(key).r.4611686018427387904x2.3.\(sum).png", tiny))
        let cache = try ArtworkCache(directory: dir, limitBytes: 1 << 20)
        #expect(cache.totalBytes == 3, "only the honest file counts, by its real size")
        #expect(cache.files.count == 1, "names with sizes out of bounds are not cache files")
        #expect(cache.renditions(for: "huge").isEmpty)
        #expect(cache.original(for: "huge")?.bytes == 3)
    }

    /// The helper's report is checked too: a byte count that is not the file's is refused.
    @Test func aReportThatDisagreesWithTheFileIsRefused() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let cache = try ArtworkCache(directory: dir, limitBytes: 1 << 20)
        let tmp = cache.temporaryPath()
        #expect(ArtworkCache.write(tmp, [1, 2, 3]))
        #expect(cache.insert(id: "x", original: true, temporary: tmp,
                             info: .init(width: 1, height: 1, type: "image/png", bytes: .max, checksum: 0)) == nil)
        #expect(cache.totalBytes == 0 && access(tmp, F_OK) != 0)
    }
}
