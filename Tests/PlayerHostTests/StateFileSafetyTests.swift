import Glibc
import Logging
import Testing
@testable import PlayerHost
@testable import PlayerHostClient
@testable import PlayerHostHost
@testable import PlayerHostLoop
@testable import PlayerHostModel

/// Issue 21 items 16 and 17: the state file and its directory as someone else may have left
/// them — a link planted at the temp path, a directory others can write, a link, a FIFO or a
/// 100 MiB sparse file at `state.json`. Each is refused (the daemon keeps running), never
/// followed, never blocks, never read whole.
@Suite(.serialized) struct StateFileSafetyTests {
    /// A store on a loop of its own, for `load` (closed at the end of `body`).
    func withStore(_ dir: String, _ body: (StateStore) throws -> Void) throws {
        let loop = try makeLoop()
        defer { closeLoopExpectingNoLeaks(loop) }
        try body(StateStore(loop: loop, directory: dir, logger: .init(label: "test")))
    }

    /// A valid state file with one session, as bytes.
    var validFile: [UInt8] {
        var m = NowPlayingModel()
        _ = try? m.createSession(id: "kept", kind: .main, now: at(0))
        return StateFile.render(HostSnapshot(of: m, now: at(0), configSessions: []), savedAt: 0)
    }

    func contents(_ path: String) -> String? {
        guard let f = fopen(path, "r") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buf, 1, buf.count, f)
            if n <= 0 { break }
            out += buf[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    func put(_ bytes: [UInt8], at path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Item 16: a link planted at `state.json.tmp` is replaced, not written through.
    @Test func aLinkAtTheTempPathIsNotFollowed() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let victim = dir + "/victim"
        try put(Array("precious\n".utf8), at: victim)
        #expect(symlink(victim, dir + "/state.json.tmp") == 0)
        #expect(AtomicFile.write(Array("{}\n".utf8), directory: dir, name: "state.json") == nil)
        #expect(contents(victim) == "precious\n", "the link's target was overwritten")
        #expect(contents(dir + "/state.json") == "{}\n")
        var st = stat()
        #expect(lstat(dir + "/state.json", &st) == 0 && st.st_mode & S_IFMT == S_IFREG)
    }

    /// Item 16: `state.json` itself a link is not read (and is set aside).
    @Test func aStateFileThatIsALinkIsNotRead() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        try put(validFile, at: dir + "/elsewhere.json")
        #expect(symlink(dir + "/elsewhere.json", dir + "/state.json") == 0)
        try withStore(dir) { s in
            #expect(s.load() == nil)
            #expect(s.loadResult.contains("symbolic link"), "\(s.loadResult)")
            #expect(s.setAsidePath != nil)
        }
        #expect(contents(dir + "/elsewhere.json") != nil, "the target is left alone")
    }

    /// Item 16: a state directory others can write is not read from nor written to; the fault
    /// says so and `host.doctor`'s fix is the `chmod` to run. Fixed, the next change writes.
    @Test func aDirectoryOthersCanWriteIsRefusedWithTheFix() throws {
        let rig = try StateStoreTests.Rig()
        defer { rig.close() }
        try put(validFile, at: rig.dir + "/state.json")
        #expect(chmod(rig.dir, 0o777) == 0)
        #expect(rig.store.load() == nil, "a file in a directory others can write was restored")
        let d = rig.store.diagnostics
        #expect(d.map(\.diagnostic.code) == ["stateDirectoryUnsafe"], "\(d)")
        #expect(d.first?.diagnostic.fix.contains("chmod 700 '\(rig.dir)'") == true, "\(d)")
        #expect(d.first?.diagnostic.message.contains("writable by its group and others (mode 777)") == true, "\(d)")
        // Kept running, writing nothing.
        rig.publish(try rig.model.makeEligible("new"))
        try rig.write()
        #expect(rig.store.writes == 0)
        #expect(try StateFile.parse(Array((contents(rig.dir + "/state.json") ?? "").utf8)).sessions.map(\.id) == ["kept"])
        // Fixed: the next change writes, and the fault is gone.
        #expect(chmod(rig.dir, 0o700) == 0)
        rig.publish(try rig.model.seek(session: "new", to: 3, now: at(1)).events)
        try rig.write()
        #expect(rig.store.writes == 1)
        #expect(rig.store.diagnostics.isEmpty)
    }

    /// Item 16: a directory owned by someone else: the fix is the `chown`. (Root only: making a
    /// directory another user's takes it.)
    @Test(.enabled(if: geteuid() == 0)) func aDirectoryOwnedBySomeoneElseIsRefused() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        try put(validFile, at: dir + "/state.json")
        #expect(chown(dir, 65534, 65534) == 0)
        try withStore(dir) { s in
            #expect(s.load() == nil)
            let fix = s.diagnostics.first?.diagnostic.fix ?? ""
            #expect(fix.contains("chown 0 '\(dir)'") && !fix.contains("chmod"), "\(fix)")
        }
    }

    /// The judgement itself, on owners and modes.
    @Test func theDirectoryRuleIsStrictModes() {
        #expect(StateDirectory.problem(uid: 1000, mode: S_IFDIR | 0o700, me: 1000, directory: "/d") == nil)
        #expect(StateDirectory.problem(uid: 1000, mode: S_IFDIR | 0o755, me: 1000, directory: "/d") == nil)
        #expect(StateDirectory.problem(uid: 1000, mode: S_IFDIR | 0o770, me: 1000, directory: "/d")?.fix == "chmod 700 '/d'")
        let both = StateDirectory.problem(uid: 0, mode: S_IFDIR | 0o1777, me: 1000, directory: "/it's")
        #expect(both?.fix == #"sudo chown 1000 '/it'\''s' && chmod 700 '/it'\''s'"#)
        // A quote a combining mark follows still ends nothing (one Character, but a quote to the shell).
        #expect(StateDirectory.problem(uid: 1000, mode: S_IFDIR | 0o770, me: 1000, directory: "/a'\u{301}b")?.fix
                == "chmod 700 '/a'\\''\u{301}b'")
        #expect(both?.message == "is owned by uid 0, not by this user (uid 1000) and is writable by its group and others (mode 1777)")
    }

    /// Item 17: a 100 MiB sparse `state.json` (over the 64 MiB default) is refused by its size,
    /// before a byte is read, and set aside.
    @Test func aGiantSparseStateFileIsRefusedUnread() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let fd = open(dir + "/state.json", O_WRONLY | O_CREAT, 0o600)
        #expect(ftruncate(fd, 100 << 20) == 0)
        close(fd)
        try withStore(dir) { s in
            #expect(s.load() == nil)
            #expect(s.loadResult == "set aside: it is 100 MiB, over the limit of 64 MiB", "\(s.loadResult)")
            #expect(s.setAsidePath != nil)
        }
    }

    /// Item 17: a FIFO at `state.json` neither blocks the start nor is read. (The watchdog
    /// opens the FIFO's other end if the load is still blocked after 5 s, so a regression
    /// fails instead of hanging the suite.)
    @Test func aFIFOStateFileDoesNotBlock() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let path = dir + "/state.json"
        #expect(mkfifo(path, 0o600) == 0)
        let watchdog = FIFOWatchdog(path: path)
        try withStore(dir) { s in
            let t0 = ControlClient.now()
            #expect(s.load() == nil)
            watchdog.done()
            #expect(ControlClient.now() - t0 < 2, "the load blocked on the FIFO")
            #expect(s.loadResult == "set aside: it is a FIFO, not a regular file", "\(s.loadResult)")
        }
    }

    /// Item 17: a write that would make a file over the limit is a fault; the previous file stays.
    @Test func aWriteOverTheLimitIsAFaultAndKeepsThePreviousFile() throws {
        let rig = try StateStoreTests.Rig()
        defer { rig.close() }
        rig.publish(try rig.model.makeEligible("a"))
        try rig.write()
        #expect(rig.store.writes == 1)
        rig.store.maxBytes = 4096
        rig.publish(try rig.model.makeEligible("b", items: (0..<200).map { song("Song \($0)", 60) }))
        try rig.write()
        #expect(rig.store.writes == 1)
        #expect(rig.store.fault?.contains("over max_state_file_mb (4096 bytes)") == true, "\(rig.store.fault ?? "no fault")")
        #expect(try rig.file().sessions.map(\.id) == ["a"])
    }
}

/// Opens the write end of a FIFO after a few seconds unless told the test is done: a reader
/// blocked in `open` (the bug) is released, so the test fails rather than hangs.
final class FIFOWatchdog: @unchecked Sendable {
    private var finished = false
    private let lock = Mutex()

    init(path: String, seconds: UInt32 = 5) {
        Thread.detach { [self] in
            sleep(seconds)
            guard !lock.withLock({ finished }) else { return }
            let fd = open(path, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
        }
    }

    func done() { lock.withLock { finished = true } }

    /// A pthread mutex (the test target has no Synchronization import to spare).
    final class Mutex: @unchecked Sendable {
        private var m = pthread_mutex_t()
        init() { pthread_mutex_init(&m, nil) }
        func withLock<T>(_ body: () -> T) -> T {
            pthread_mutex_lock(&m)
            defer { pthread_mutex_unlock(&m) }
            return body()
        }
    }

    /// A detached pthread running `body`.
    enum Thread {
        static func detach(_ body: @escaping @Sendable () -> Void) {
            let box = Unmanaged.passRetained(Box(body)).toOpaque()
            var t = pthread_t()
            pthread_create(&t, nil, { arg in
                guard let arg else { return nil }
                Unmanaged<Box>.fromOpaque(arg).takeRetainedValue().body()
                return nil
            }, box)
            pthread_detach(t)
        }

        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
    }
}
