import Glibc
import Logging
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostHost
@testable import PlayerHostLoop
@testable import PlayerHostPlugin
@testable import PlayerHostRPC
@testable import PlayerHostServer
@testable import Plugins

/// Issue 21: what a built-in plugin runs never outlives its connection, and what `mpv.status`
/// says of mpv is true. On a loop driven by the test, no daemon.
@Suite struct BuiltinPluginLifetimeTests {
    /// Counts its attaches and detaches.
    final class Recorder: SessionPlugin {
        let name = "recorder"
        var actsForHost: Bool { true }
        var attached = 0
        var detached = 0
        var context: PluginContext?
        func attach(_ context: PluginContext) {
            attached += 1
            self.context = context
        }
        func detach() { detached += 1 }
    }

    /// Item 8: the host end of a built-in plugin's connection closes (cut off, a failed write):
    /// the plugin is detached at once — the mpv plugin stops its mpv then, which once played on
    /// with nobody controlling it — and attached again on a fresh connection after the backoff.
    /// On an embedded host: the core's own connection, on manual time.
    @Test func aBuiltinPluginWhoseConnectionClosesIsDetachedAndAttachedAgain() throws {
        let host = EmbeddedHost()
        defer { host.close() }
        var logged: [String] = []
        host.core.inProcess.log = { logged.append($0) }
        let recorder = Recorder()
        host.attach([recorder])
        #expect(recorder.attached == 1 && recorder.detached == 0)
        let first = try #require(recorder.context)

        host.core.cutPluginConnections()
        host.runUntilIdle()
        #expect(recorder.detached == 1, "the plugin was not detached when its connection closed")
        #expect(first.isClosed)
        #expect(host.core.inProcess.listJSON.first?["state"] == "restarting")
        // The backoff (250 ms): not before it, at it.
        host.advance(byMilliseconds: 249)
        #expect(recorder.attached == 1)
        host.advance(byMilliseconds: 1)
        #expect(recorder.attached == 2, "the plugin was not attached again")
        #expect(recorder.context !== first && recorder.context?.isClosed == false)
        #expect(host.core.inProcess.listJSON.first?["restarts"] == 1 && host.core.inProcess.listJSON.first?["state"] == "running")
        #expect(logged.contains { $0.contains("lost its connection") }, "\(logged)")

        // At shutdown the plugin is detached once, and not attached again.
        host.core.inProcess.detachAll()
        #expect(recorder.detached == 2)
        host.advance(byMilliseconds: 10_000)
        #expect(recorder.attached == 2)
    }

    /// The "mpv.status reported the pid of an mpv that no longer existed" of the fault probes:
    /// between mpv's exit and the loop's reaping it (SIGCHLD is handled turns later under load)
    /// the pid was still reported. Here the loop does not run at all between the two.
    @Test func statusNamesNoPidOnceMpvExitedEvenBeforeItIsReaped() throws {
        let loop = try makeLoop()
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let fake = dir + "/mpv"
        try writeTestFile(fake, "#!/bin/sh\nexec sleep 60\n")
        chmod(fake, 0o755)
        let ctl = MPVController(session: "s", loop: loop, options: MPVOptions(executable: fake), socketPath: dir + "/1.sock")
        ctl.start()
        let pid = try #require(ctl.pid)
        #expect(ctl.statusJSON["pid"] == .int(Int64(pid)))
        #expect(kill(pid, SIGKILL) == 0)
        // Wait for the exit without reaping it (WNOWAIT): the loop's SIGCHLD handling still has to.
        var info = siginfo_t()
        #expect(waitid(P_PID, id_t(bitPattern: pid), &info, WEXITED | WNOWAIT) == 0)
        #expect(ctl.pid == nil)
        #expect(ctl.statusJSON["pid"] == nil, "\(ctl.statusJSON)")
        // Stopped and reaped, nothing is left on the loop at once: the attempts to reach mpv's
        // socket end with mpv (they went on for their whole 5 s when both were released).
        ctl.stop()
        let stopped = EventLoop.hrtime()
        _ = loop.run()
        #expect((EventLoop.hrtime() - stopped) / 1_000_000 < 1500, "the loop stayed busy after mpv was gone")
        closeLoop(loop)
    }
}
