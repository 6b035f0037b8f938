import Glibc
import Testing
@testable import PlayerHost

/// `remote.toml` (`npctl remote enable` / `disable`): how it merges over the config's
/// `[remote]`, what a hostile one does to loading, and how it is written into a folder that is a
/// link, another user's, writable by others, or not a folder at all.
@Suite struct RemoteOverlayTests {
    /// A fresh folder with `playerhost.toml` in it (its text), removed at the end.
    final class Folder {
        let path = DaemonHarness.makeTempDirectory()
        var config: String { path + "/playerhost.toml" }
        var overlay: String { path + "/remote.toml" }
        func write(_ text: String, to file: String) throws { #expect(try runShell("printf '%s' '\(text)' > '\(file)'").status == 0) }
        deinit { _ = try? runShell("chmod -R u+rwx '\(path)'; rm -rf '\(path)'") }
    }

    static let userRemote = "[remote]\nlisten = \"127.0.0.1:9000\"\ncertificate = \"c.pem\"\nkey = \"k.pem\"\n"

    @Test func noOverlayLeavesTheConfigsRemote() throws {
        let f = Folder()
        try f.write(Self.userRemote, to: f.config)
        let c = try HostConfig.load(path: f.config, required: true)
        #expect(c.remote?.listen == "127.0.0.1:9000")
        #expect(c.remote?.source == nil)
    }

    @Test func theOverlaysListenWinsAndTheConfigsOtherKeysStay() throws {
        let f = Folder()
        try f.write(Self.userRemote, to: f.config)
        #expect(RemoteOverlay(listen: "0.0.0.0:8470").write(besideConfig: f.config) == nil)
        let c = try HostConfig.load(path: f.config, required: true)
        #expect(c.remote?.listen == "0.0.0.0:8470")
        #expect(c.remote?.certificate == "c.pem")
        #expect(c.remote?.source == f.overlay)
        // The user's file is untouched.
        #expect(try runShell("cat '\(f.config)'").output == Self.userRemote)
    }

    @Test func disabledTurnsTheConfigsListenOff() throws {
        let f = Folder()
        try f.write(Self.userRemote, to: f.config)
        #expect(RemoteOverlay(enabled: false).write(besideConfig: f.config) == nil)
        let c = try HostConfig.load(path: f.config, required: true)
        #expect(c.remote?.listen == nil)
        #expect(c.remote?.source == f.overlay)
    }

    @Test func anOverlayWithoutAConfigFileApplies() throws {
        let f = Folder()
        #expect(RemoteOverlay(listen: "127.0.0.1:8470").write(besideConfig: f.config) == nil)
        let c = try HostConfig.load(path: f.config, required: false)
        #expect(c.remote?.listen == "127.0.0.1:8470")
    }

    /// No config folder and no parent of it yet (`$XDG_CONFIG_HOME` missing on a fresh account):
    /// the folders are made, 0700, and the overlay applies.
    @Test func theConfigFoldersAreMadeWhenMissing() throws {
        let f = Folder()
        let config = f.path + "/home/.config/playerhost/playerhost.toml"
        #expect(RemoteOverlay(listen: "127.0.0.1:8470").write(besideConfig: config) == nil)
        #expect(try HostConfig.load(path: config, required: false).remote?.listen == "127.0.0.1:8470")
        var st = stat()
        #expect(stat(f.path + "/home/.config", &st) == 0 && st.st_mode & 0o777 == 0o700)
    }

    /// Garbage, unknown keys, a bad address, a NUL, an oversized file, a link: each is one error
    /// naming the overlay, as for the config itself.
    @Test(arguments: [
        ("[remote\nlisten = 1", "remote.toml:1"),
        ("[remote]\nlisten = \"127.0.0.1:1\"\nport = 3\n", "port"),
        ("[remote]\nlisten = \"phone:80\"\n", "ADDRESS:PORT"),
        ("[remote]\nenabled = \"yes\"\n", "enabled"),
        ("x = 1\n", "x"),
    ])
    func aHostileOverlayIsRefusedNamingIt(_ text: String, _ mention: String) throws {
        let f = Folder()
        try f.write(text, to: f.overlay)
        #expect(throws: ConfigError.self) { try HostConfig.load(path: f.config, required: false) }
        do {
            _ = try HostConfig.load(path: f.config, required: false)
        } catch {
            #expect(error.message.contains("remote.toml"), "\(error.message)")
            #expect(error.message.contains(mention), "\(error.message)")
        }
    }

    @Test func aHugeOverlayIsRefusedBeforeItIsRead() throws {
        let f = Folder()
        #expect(try runShell("truncate -s 1G '\(f.overlay)'").status == 0)
        do {
            _ = try HostConfig.load(path: f.config, required: false)
            Issue.record("a 1 GiB remote.toml was taken")
        } catch {
            #expect(error.message.contains("over the limit of 16384 bytes"), "\(error.message)")
        }
    }

    @Test func aNULByteIsRefused() throws {
        let f = Folder()
        #expect(try runShell("printf '[remote]\\nlisten = \"127.0.0.1:1\"\\n\\0' > '\(f.overlay)'").status == 0)
        #expect(throws: ConfigError.self) { try HostConfig.load(path: f.config, required: false) }
    }

    @Test func aLinkAtTheOverlayIsNotFollowedWhenReadAndReplacedWhenWritten() throws {
        let f = Folder()
        let elsewhere = f.path + "/elsewhere.toml"
        try f.write("[remote]\nlisten = \"0.0.0.0:1\"\n", to: elsewhere)
        #expect(symlink(elsewhere, f.overlay) == 0)
        do {
            _ = try HostConfig.load(path: f.config, required: false)
            Issue.record("a link at remote.toml was followed")
        } catch {
            #expect(error.message.contains("symbolic link"), "\(error.message)")
        }
        #expect(RemoteOverlay(listen: "127.0.0.1:2").write(besideConfig: f.config) == nil)
        var st = stat()
        #expect(lstat(f.overlay, &st) == 0 && st.st_mode & S_IFMT == S_IFREG)
        #expect(st.st_mode & 0o777 == 0o600)
        #expect(try runShell("cat '\(elsewhere)'").output == "[remote]\nlisten = \"0.0.0.0:1\"\n")
        #expect(try HostConfig.load(path: f.config, required: false).remote?.listen == "127.0.0.1:2")
    }

    /// A config folder that is a link (dotfile managers) is written through; the file lands in
    /// its target.
    @Test func aLinkedConfigFolderIsWrittenThrough() throws {
        let f = Folder()
        let real = f.path + "/real", linked = f.path + "/linked"
        #expect(mkdir(real, 0o700) == 0 && symlink(real, linked) == 0)
        #expect(RemoteOverlay(listen: "127.0.0.1:3").write(besideConfig: linked + "/playerhost.toml") == nil)
        #expect(access(real + "/remote.toml", R_OK) == 0)
        #expect(try HostConfig.load(path: linked + "/playerhost.toml", required: false).remote?.listen == "127.0.0.1:3")
    }

    @Test func aMissingConfigFolderIsMade() throws {
        let f = Folder()
        #expect(RemoteOverlay(listen: "127.0.0.1:4").write(besideConfig: f.path + "/new/playerhost.toml") == nil)
        var st = stat()
        #expect(stat(f.path + "/new", &st) == 0 && st.st_mode & 0o777 == 0o700)
    }

    /// Folders it must not write in: writable by others, another user's, not a folder. (Tests
    /// run as root, which no mode bit stops; the owner and mode checks are what refuse.)
    @Test func foldersItMustNotWriteInAreRefused() throws {
        let f = Folder()
        let open = f.path + "/open", foreign = f.path + "/foreign", file = f.path + "/file"
        #expect(mkdir(open, 0o700) == 0 && chmod(open, 0o777) == 0)
        #expect(RemoteOverlay(listen: "127.0.0.1:5").write(besideConfig: open + "/playerhost.toml")?.contains("others can write") == true)
        #expect(mkdir(foreign, 0o700) == 0 && chown(foreign, 65534, 65534) == 0)
        #expect(RemoteOverlay(listen: "127.0.0.1:5").write(besideConfig: foreign + "/playerhost.toml")?.contains("another user") == true)
        try f.write("x", to: file)
        #expect(RemoteOverlay(listen: "127.0.0.1:5").write(besideConfig: file + "/playerhost.toml") != nil)
        // Nothing was left behind: no remote.toml, no temporary file.
        #expect(try runShell("ls -A '\(open)' '\(foreign)'").output.contains("remote") == false)
    }

    /// Writers racing (the daemon serializes its own, but two daemons or a person may not):
    /// each write is whole, and no temporary file is left.
    @Test func concurrentWritesLeaveOneWholeFile() async throws {
        let f = Folder()
        let config = f.config
        await withTaskGroup(of: String?.self) { group in
            for port in 1...16 { group.addTask { RemoteOverlay(listen: "127.0.0.1:\(port)").write(besideConfig: config) } }
            for await error in group { #expect(error == nil) }
        }
        let listen = try HostConfig.load(path: f.config, required: false).remote?.listen ?? ""
        #expect(listen.hasPrefix("127.0.0.1:"))
        #expect(try runShell("ls -A '\(f.path)'").output == "remote.toml\n")
    }
}
