import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostServer

/// Issue 21: a daemon whose runtime directory is removed stops (in order, state written) rather
/// than run on unreachable while a second daemon takes the same socket path.
@Suite(.serialized) struct InstanceLockEndToEndTests {
    @Test func aDaemonWhoseRuntimeDirectoryIsRemovedStopsAndASecondOneStarts() throws {
        let first = try DaemonHarness(socketName: "run/control.sock")
        defer { first.close() }
        #expect(try first.start())
        try first.client().call("session.create", ["id": "kept", "kind": "main"])
        _ = try runShell("rm -rf '\(first.directory)/run'")
        let exit = first.waitForExit(deadline: 10)
        #expect(exit?.status == 71, "the first daemon did not stop: \(String(describing: exit))")
        #expect(first.stderrText.contains("control.sock.lock: it was removed while the daemon ran"), "\(first.stderrText)")
        // The second starts on the same path, with what the first kept.
        let second = try DaemonHarness(directory: first.directory, socketName: "run/control.sock")
        defer { second.close() }
        #expect(try second.start())
        #expect(try second.client().call("session.list").arrayValue?.compactMap { $0["id"]?.stringValue } == ["kept"])
    }

    /// A link planted at the lock path (a socket in a shared directory the user named) is not
    /// followed: the lock was opened through it and its target truncated for the pid.
    @Test func aLinkAtTheLockPathIsRefusedAndItsTargetLeftAlone() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        _ = try runShell("printf 'precious\\n' > '\(dir)/victim'")
        #expect(symlink(dir + "/victim", dir + "/c.sock.lock") == 0)
        #expect(throws: ServerError.self) { _ = try InstanceLock(socketPath: dir + "/c.sock") }
        #expect(try runShell("cat '\(dir)/victim'").output == "precious\n")
    }

    /// `--daemon` does not append its log through a link planted at `playerhostd.log`.
    @Test func aLinkAtTheDaemonLogIsRefused() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("'\(DaemonHarness.npctl)' daemon stop --socket '\(dir)/c.sock' >/dev/null 2>&1; rm -rf '\(dir)'") }
        _ = try runShell("printf 'precious\\n' > '\(dir)/victim'")
        #expect(symlink(dir + "/victim", dir + "/playerhostd.log") == 0)
        let r = try runShell("env -u DBUS_SESSION_BUS_ADDRESS XDG_CONFIG_HOME='\(dir)/config' '\(DaemonHarness.playerhostd)' --daemon --socket '\(dir)/c.sock' --state-dir '\(dir)/state' 2>&1; echo \"exit=$?\"", deadline: 30)
        #expect(r.output.hasSuffix("exit=71\n"), "\(r.output)")
        #expect(try runShell("cat '\(dir)/victim'").output == "precious\n")
    }
}
