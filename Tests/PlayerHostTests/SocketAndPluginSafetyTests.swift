import Glibc
import Testing
@testable import PlayerHost

/// Sockets and plugin files (issue 16, item 5): a live listener's socket is never taken over,
/// and plugin files others could write are refused (sshd's StrictModes).
@Suite(.serialized) struct SocketAndPluginSafetyTests {
    /// A listening Unix socket made by "another program" (this test process).
    func listen(at path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { dst in
            for (i, b) in path.utf8.enumerated() { dst[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(rc == 0)
        #expect(Glibc.listen(fd, 4) == 0)
        return fd
    }

    func inode(_ path: String) -> UInt64? {
        var st = stat()
        return lstat(path, &st) == 0 ? UInt64(st.st_ino) : nil
    }

    @Test func aLiveForeignSocketIsNeitherUnlinkedNorTaken() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let foreign = listen(at: d.socketPath)
        defer { Glibc.close(foreign) }
        let before = inode(d.socketPath)
        #expect(try d.start() == false, "the daemon refuses the path")
        #expect(d.waitForExit()?.status != 0)
        #expect(d.stderrText.contains("another program is listening"))
        #expect(inode(d.socketPath) == before, "the foreign socket is untouched")
    }

    @Test func aStaleSocketIsReplaced() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let stale = listen(at: d.socketPath)
        Glibc.close(stale)  // nothing listens any more: stale
        #expect(try d.start())
        #expect(try d.client().call("host.ping") == "pong")
        #expect(d.stop()?.status == 0)
        #expect(inode(d.socketPath) == nil, "our own socket is removed at exit")
    }

    @Test func aSocketAnotherProgramBoundAtOurPathSurvivesOurShutdown() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        // Our socket file goes (the runtime directory cleaned under us) and another listener
        // takes the path while we still run.
        #expect(unlink(d.socketPath) == 0)
        let other = listen(at: d.socketPath)
        defer { Glibc.close(other) }
        let theirs = inode(d.socketPath)
        #expect(d.stop()?.status == 0)
        #expect(d.stderrText.contains("not removing"))
        // Neither our inode check nor libuv (which unlinks a path it bound when the handle
        // closes: we bind the socket ourselves) removed it.
        #expect(theirs != nil && inode(d.socketPath) == theirs, "the other listener's socket is still there")
        guard case .success(let fd) = UnixSocketConnector.connect(path: d.socketPath) else {
            Issue.record("the other listener no longer accepts")
            return
        }
        Glibc.close(fd)
    }

    @Test func pluginFilesOthersCanWriteAreRefused() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let exe = dir + "/plugin"
        _ = try runShell("printf '#!/bin/sh\\nexit 0\\n' > '\(exe)'; chmod 755 '\(exe)'")
        #expect(PluginSupervisor.unsafeReason(path: exe) == nil)
        chmod(exe, 0o777)
        #expect(PluginSupervisor.unsafeReason(path: exe)?.contains("writable by others") == true)
        chmod(exe, 0o755)
        chmod(dir, 0o777)  // a world-writable directory without the sticky bit: anyone may swap the file
        #expect(PluginSupervisor.unsafeReason(path: exe)?.contains("\(dir) is writable by others") == true)
        chmod(dir, 0o1777)  // sticky, like /tmp: files stay their owners'
        #expect(PluginSupervisor.unsafeReason(path: exe) == nil)
        chmod(dir, 0o700)
    }
}
