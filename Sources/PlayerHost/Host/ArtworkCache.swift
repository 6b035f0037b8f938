import Glibc
import PlayerHostConfig

/// The on-disk artwork cache: `$XDG_CACHE_HOME/playerhost/artwork/` (directory 0700, files 0600),
/// keyed by artwork id, bounded (least recently used files go first), surviving restarts.
///
/// Each file's name carries what the daemon needs without decoding it — the hashed id, whether it
/// is the original or a rendition, its pixel size, byte count and checksum:
/// `<id hash>.o.<w>x<h>.<bytes>.<fnv32>.<ext>`. A file whose bytes disagree with its name
/// (truncated, corrupt) is deleted on first use and resolved again. Recency is the file's mtime,
/// so the LRU order survives a restart too.
public final class ArtworkCache {
    /// One cached file.
    public struct Entry: Sendable, Hashable {
        public var name: String
        public var keyHash: String
        public var isOriginal: Bool
        public var width: Int
        public var height: Int
        public var bytes: Int
        public var checksum: UInt32
        public var type: String
        /// Recency: larger is more recent.
        var lastUse: UInt64
    }

    /// What the decoder helper reports about a file it wrote.
    public struct FileInfo: Sendable, Hashable {
        public var width: Int
        public var height: Int
        public var type: String
        public var bytes: Int
        public var checksum: UInt32
    }

    public let directory: String
    public var limitBytes: Int
    private var entries: [String: Entry] = [:]
    /// Names checked against their bytes since start (checked once per run).
    private var verified: Set<String> = []
    private var clock: UInt64 = 0
    private var tempCounter = 0
    /// Bytes of every cached file.
    public private(set) var totalBytes = 0
    /// Files evicted and corrupt files discarded since start.
    public private(set) var evictions = 0
    public private(set) var discarded = 0

    /// `$XDG_CACHE_HOME/playerhost/artwork`, else `~/.cache/playerhost/artwork`.
    public static func defaultDirectory(environment: [String: String]) -> String {
        if let x = environment["XDG_CACHE_HOME"], x.hasPrefix("/") { return x + "/playerhost/artwork" }
        return (environment["HOME"] ?? "/tmp") + "/.cache/playerhost/artwork"
    }

    /// Opens (creating, 0700) the directory and indexes what a previous run left; leftover
    /// temporary files are removed.
    public init(directory: String, limitBytes: Int) throws(HostError) {
        self.directory = directory
        self.limitBytes = limitBytes
        if let e = Directories.make(directory) {
            throw .config("cannot create the artwork cache \(directory): \(String(cString: strerror(e)))")
        }
        chmod(directory, 0o700)
        guard let dir = opendir(directory) else {
            throw .config("cannot read the artwork cache \(directory): \(String(cString: strerror(errno)))")
        }
        defer { closedir(dir) }
        while let ent = readdir(dir) {
            let name = withUnsafeBytes(of: ent.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name.hasPrefix("tmp.") { unlink(directory + "/" + name); continue }
            guard var e = Self.parse(name) else { continue }
            // The size is stat's, never the name's (a name can say anything): a file that is not
            // a regular file, is larger than any file the cache stores, or disagrees with its name
            // is discarded now, so every sum below is of real, capped sizes.
            var st = stat()
            guard lstat(directory + "/" + name, &st) == 0 else { continue }
            guard st.st_mode & S_IFMT == S_IFREG, st.st_size >= 0, st.st_size <= Self.maxFileBytes,
                  Int(st.st_size) == e.bytes else {
                unlink(directory + "/" + name)
                discarded += 1
                continue
            }
            e.bytes = Int(st.st_size)
            e.lastUse = Self.nanoseconds(st.st_mtim)
            clock = max(clock, e.lastUse)
            entries[name] = e
            totalBytes = Self.add(totalBytes, e.bytes)
        }
        evict()
    }

    /// The path of a cached file.
    public func path(_ e: Entry) -> String { directory + "/" + e.name }

    /// A fresh path inside the cache for the helper to write to (removed on the next start if
    /// never adopted).
    public func temporaryPath(_ suffix: String = "") -> String {
        tempCounter += 1
        return "\(directory)/tmp.\(getpid()).\(tempCounter)\(suffix)"
    }

    /// The 64-bit FNV-1a of an artwork id, in hex: file names never carry ids themselves.
    public static func keyHash(_ id: String) -> String {
        var h: UInt64 = 14_695_981_039_346_656_037
        for b in id.utf8 { h = (h ^ UInt64(b)) &* 1_099_511_628_211 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `id`'s cached original, not yet checked against its name: the daemon has the helper
    /// check it (`needsCheck`, `confirm`), so its loop never reads a cached file.
    public func originalCandidate(for id: String) -> Entry? {
        let key = Self.keyHash(id)
        return entries.values.first { $0.keyHash == key && $0.isOriginal }
    }

    /// `id`'s cached renditions, smallest first, not yet checked (see `originalCandidate`).
    public func renditionCandidates(for id: String) -> [Entry] {
        let key = Self.keyHash(id)
        return entries.values.filter { $0.keyHash == key && !$0.isOriginal }
            .sorted { ($0.width * $0.height, $0.name) < ($1.width * $1.height, $1.name) }
    }

    /// Whether `e` is still cached and not yet checked in this run.
    public func needsCheck(_ e: Entry) -> Bool { entries[e.name] != nil && !verified.contains(e.name) }

    /// Whether `e` is still cached and checked in this run.
    public func isIntact(_ e: Entry) -> Bool { entries[e.name] != nil && verified.contains(e.name) }

    /// Records the helper's check of `e`: intact, or discarded (deleted, to be resolved again).
    public func confirm(_ e: Entry, intact: Bool) {
        guard entries[e.name] != nil else { return }
        if intact {
            verified.insert(e.name)
        } else {
            remove(e)
            discarded += 1
        }
    }

    /// The cached original of `id`, checked against its name here (it reads the file: tests and
    /// tools; the daemon uses `originalCandidate` and the helper); nil when absent or discarded.
    public func original(for id: String) -> Entry? {
        let key = Self.keyHash(id)
        guard let e = entries.values.first(where: { $0.keyHash == key && $0.isOriginal }), check(e) else { return nil }
        touch(e)
        return entries[e.name]
    }

    /// The cached renditions of `id` (checked here, reading them: tests and tools), smallest first.
    public func renditions(for id: String) -> [Entry] {
        let key = Self.keyHash(id)
        return entries.values.filter { $0.keyHash == key && !$0.isOriginal }
            .sorted { ($0.width * $0.height, $0.name) < ($1.width * $1.height, $1.name) }
            .filter(check)
    }

    /// Adopts the file the helper wrote at `temporary` as `id`'s original (replacing any older
    /// one and its renditions) or as one more rendition; then evicts past the bound.
    @discardableResult
    public func insert(id: String, original: Bool, temporary: String, info: FileInfo) -> Entry? {
        let key = Self.keyHash(id)
        // The helper parses untrusted bytes, so its report is checked like one: sizes in bounds,
        // and the byte count is the file's own.
        var st = stat()
        guard (1...Self.maxDimension).contains(info.width), (1...Self.maxDimension).contains(info.height),
              lstat(temporary, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size >= 0,
              st.st_size <= Self.maxFileBytes, Int(st.st_size) == info.bytes else {
            unlink(temporary)
            return nil
        }
        if original {
            for e in entries.values where e.keyHash == key { remove(e) }
        }
        let ext = Self.extensions[info.type] ?? "img"
        let name = "\(key).\(original ? "o" : "r").\(info.width)x\(info.height).\(info.bytes).\(String(info.checksum, radix: 16)).\(ext)"
        if let old = entries[name] { remove(old) }
        guard rename(temporary, directory + "/" + name) == 0 else {
            unlink(temporary)
            return nil
        }
        chmod(directory + "/" + name, 0o600)
        clock &+= 1
        let e = Entry(name: name, keyHash: key, isOriginal: original, width: info.width, height: info.height,
                      bytes: info.bytes, checksum: info.checksum, type: info.type, lastUse: clock)
        entries[name] = e
        verified.insert(name)
        totalBytes = Self.add(totalBytes, e.bytes)
        touch(e)
        evict(keeping: name)
        return entries[name]
    }

    /// Marks a file used now (its mtime too, so the order survives a restart).
    public func touch(_ e: Entry) {
        guard entries[e.name] != nil else { return }
        clock = max(clock &+ 1, Self.nowNanoseconds())
        entries[e.name]?.lastUse = clock
        // UTIME_NOW (glibc does not export the macro to Swift).
        var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 1), timespec(tv_sec: 0, tv_nsec: (1 << 30) - 1)]
        utimensat(AT_FDCWD, directory + "/" + e.name, &times, 0)
    }

    /// Every cached file, most recently used first (tests and `artwork.status`).
    public var files: [Entry] { entries.values.sorted { $0.lastUse > $1.lastUse } }

    /// Removes least recently used files until the cache fits its bound (never `keeping`).
    func evict(keeping: String? = nil) {
        guard totalBytes > limitBytes else { return }
        for e in entries.values.sorted(by: { $0.lastUse < $1.lastUse }) where totalBytes > limitBytes {
            if e.name == keeping { continue }
            remove(e)
            evictions += 1
        }
    }

    private func remove(_ e: Entry) {
        unlink(directory + "/" + e.name)
        if entries.removeValue(forKey: e.name) != nil { totalBytes = max(0, totalBytes - e.bytes) }
        verified.remove(e.name)
    }

    /// Whether the file still holds the bytes its name promises (once per run); a file that
    /// does not is deleted.
    private func check(_ e: Entry) -> Bool {
        if verified.contains(e.name) { return true }
        guard let bytes = Self.read(path(e), limit: e.bytes + 1), bytes.count == e.bytes,
              bytes.withUnsafeBytes(Self.fnv32) == e.checksum else {
            remove(e)
            discarded += 1
            return false
        }
        verified.insert(e.name)
        return true
    }

    static func fnv32(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var h: UInt32 = 2_166_136_261
        for b in bytes { h = (h ^ UInt32(b)) &* 16_777_619 }
        return h
    }

    static let extensions = ["image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/gif": "gif"]

    /// Parses a cache file name; nil for anything else.
    static func parse(_ name: String) -> Entry? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 6, parts[0].count == 16, parts[1] == "o" || parts[1] == "r" else { return nil }
        let size = parts[2].split(separator: "x")
        // Bounded here so that no arithmetic on them (areas, scaling) can overflow.
        guard size.count == 2, let w = Int(size[0]), let h = Int(size[1]), (1...maxDimension).contains(w),
              (1...maxDimension).contains(h), let bytes = Int(parts[3]), (0...maxFileBytes).contains(bytes),
              let sum = UInt32(parts[4], radix: 16),
              let type = extensions.first(where: { $0.value == parts[5] })?.key else { return nil }
        return Entry(name: name, keyHash: parts[0], isOriginal: parts[1] == "o", width: w, height: h,
                     bytes: bytes, checksum: sum, type: type, lastUse: 0)
    }

    /// At most `limit` bytes of the regular file at `path` (links not followed, a FIFO never
    /// waited on); nil when it is missing or not a regular file.
    static func read(_ path: String, limit: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        let limit = max(0, min(limit, Int(clamping: st.st_size) &+ 1))
        var out = [UInt8](repeating: 0, count: limit)
        var count = 0
        while count < limit {
            let n = out.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, limit - count) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { break }
            count += n
        }
        out.removeSubrange(count...)
        return out
    }

    /// Writes `bytes` to a new file (0600); false on failure.
    static func write(_ path: String, _ bytes: [UInt8]) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 { if errno == EINTR { continue }; return false }
            offset += n
        }
        return true
    }

    private static func nowNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return nanoseconds(ts)
    }

    /// A file time in ns since the epoch, saturating (an mtime is whatever the file system says).
    static func nanoseconds(_ ts: timespec) -> UInt64 {
        guard ts.tv_sec > 0 else { return 0 }
        let (s, o1) = UInt64(ts.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, o2) = s.addingReportingOverflow(UInt64(max(0, min(ts.tv_nsec, 999_999_999))))
        return o1 || o2 ? .max : sum
    }

    /// A saturating sum of byte counts.
    static func add(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    /// The largest file the cache holds (the helper reads no larger input) — a bound on every
    /// size, so sums and reads stay small.
    static let maxFileBytes = 64 << 20
    /// The largest width or height a cache file's name may carry.
    static let maxDimension = Int(Int32.max)
}
