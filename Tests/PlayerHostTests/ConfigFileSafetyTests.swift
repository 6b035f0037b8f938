import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostClient
@testable import PlayerHostConfig

/// Issue 21 items 17 and 18: the configuration file as it may be found — a FIFO, a link to
/// /dev/zero, a file of many MiB, a NUL byte in the middle — refused with one clear error, never
/// blocking and never read past the limit; a link to a regular file (dotfile managers) works.
@Suite(.serialized) struct ConfigFileSafetyTests {
    func write(_ text: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        _ = text.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    func loadError(_ path: String) -> String? {
        do {
            _ = try HostConfig.load(path: path, required: true)
            return nil
        } catch {
            return error.description
        }
    }

    /// Item 18: the TOML library the config once used read a C string: everything after a NUL
    /// was silently dropped (here the session, which a reload would then close).
    @Test func aNULByteIsRefusedWithItsLine() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let path = dir + "/c.toml"
        try write(Array("coalesce_ms = 100\n# x\0y\n[[session]]\nid = \"a\"\nkind = \"main\"\n".utf8), to: path)
        let e = loadError(path)
        #expect(e == "configuration: \(path):2: a NUL byte (the file is not text; nothing after it would be read)", "\(e ?? "accepted")")
        // Given as text too.
        #expect(throws: ConfigError.self) { try HostConfig.parse("coalesce_ms = 1\n\u{0}[[session]]\nid = \"a\"\nkind = \"main\"\n") }
        // And `--check-config` says so (it said ok).
        let checked = try runShell("'\(DaemonHarness.playerhostd)' --check-config '\(path)' 2>&1; echo \"exit $?\"")
        #expect(checked.output.contains("\(path):2: a NUL byte") && checked.output.hasSuffix("exit 1\n"), "\(checked.output)")
    }

    /// Item 17: a FIFO config neither blocks the start (or a reload) nor is read.
    @Test func aFIFOConfigIsRefusedAtOnce() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let path = dir + "/c.toml"
        #expect(mkfifo(path, 0o600) == 0)
        let watchdog = FIFOWatchdog(path: path)
        let t0 = ControlClient.now()
        let e = loadError(path)
        watchdog.done()
        #expect(ControlClient.now() - t0 < 2, "the load blocked on the FIFO")
        #expect(e == "configuration: refusing \(path): it is a FIFO, not a regular file", "\(e ?? "accepted")")
    }

    /// Item 17: a config linked to /dev/zero is refused (it was read until memory ran out).
    @Test func aConfigLinkedToADeviceIsRefused() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let path = dir + "/c.toml"
        #expect(symlink("/dev/zero", path) == 0)
        #expect(loadError(path) == "configuration: refusing \(path): it is a character device, not a regular file")
    }

    /// Item 17: over 4 MiB is refused by its size (this one is all comments, valid TOML).
    @Test func aConfigOverTheLimitIsRefused() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let path = dir + "/c.toml"
        let line = Array("# \(String(repeating: "x", count: 1021))\n".utf8)
        try write(Array((0..<(4 * 1024 + 1)).map { _ in line }.joined()), to: path)
        #expect(loadError(path) == "configuration: refusing \(path): it is 4.0 MiB, over the limit of 4 MiB", "\(loadError(path) ?? "accepted")")
    }

    /// A config linked (through two links) to a regular file elsewhere keeps working.
    @Test func aConfigLinkedToARegularFileWorks() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        try write(Array("[[session]]\nid = \"a\"\nkind = \"main\"\n".utf8), to: dir + "/dotfiles.toml")
        #expect(symlink(dir + "/dotfiles.toml", dir + "/middle.toml") == 0)
        #expect(symlink(dir + "/middle.toml", dir + "/c.toml") == 0)
        #expect(try HostConfig.load(path: dir + "/c.toml", required: true).sessions.map(\.id) == ["a"])
    }

    /// `max_state_file_mb`: the state file's limit, checked like the other limits.
    @Test func theStateFileLimitIsAKey() throws {
        #expect(try HostConfig.parse("max_state_file_mb = 8").maxStateFileBytes == 8 << 20)
        #expect(HostConfig().maxStateFileBytes == 64 << 20)
        #expect(throws: ConfigError.self) { try HostConfig.parse("max_state_file_mb = 0") }
    }

    /// The limit is inclusive, and any limit (Int.max too) is safe to pass.
    @Test func boundedFileReadsUpToTheLimitInclusive() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        try write([UInt8](repeating: 65, count: 70_000), to: dir + "/f")
        #expect(try BoundedFile.read(dir + "/f", maxBytes: 70_000, links: .refuse).get().count == 70_000)
        #expect(try BoundedFile.read(dir + "/f", maxBytes: .max, links: .refuse).get().count == 70_000)
        #expect(throws: BoundedFileError.tooLarge(dir + "/f", bytes: 70_000, limit: 69_999)) {
            try BoundedFile.read(dir + "/f", maxBytes: 69_999, links: .refuse).get()
        }
        #expect(throws: BoundedFileError.cannotOpen(dir + "/none", errno: ENOENT)) {
            try BoundedFile.read(dir + "/none", maxBytes: 1, links: .follow).get()
        }
    }
}
