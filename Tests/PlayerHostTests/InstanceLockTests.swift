import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostServer

/// The instance lock in-process (issue 21): a link planted at the lock path is not followed.
/// (A daemon whose runtime directory is removed, and `--daemon`'s log, against the real daemon:
/// `DaemonEndToEndTests`.)
@Suite struct InstanceLockTests {
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
}
