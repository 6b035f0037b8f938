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
}
