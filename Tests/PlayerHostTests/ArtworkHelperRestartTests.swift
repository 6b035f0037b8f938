import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostHost
@testable import PlayerHostLoop

/// The artwork helper is restarted by the `RestartPolicy`: a helper that keeps dying at once is
/// started again after a doubling backoff, and requests meanwhile fail at once without starting
/// it. A real child (a script that exits at once), events waited on with deadlines.
@Suite struct ArtworkHelperRestartTests {
    @Test func aHelperThatKeepsDyingIsRestartedAfterADoublingBackoff() throws {
        let loop = try makeLoop()
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let script = dir + "/dies"
        try runShell("printf '#!/bin/sh\\nexit 3\\n' > '\(script)' && chmod +x '\(script)'")
        let helper = ArtworkHelper(loop: loop, executable: script, logger: .init(label: "test"))
        helper.restartPolicy = RestartPolicy(initialBackoffMS: 20, maxBackoffMS: 1000, stableAfterMS: 10_000, startLimit: nil)

        var first: Result<ArtworkHelper.Reply, ArtworkHelper.Failure>?
        helper.request(["path": "/nonexistent"]) { first = $0 }
        try runLoop(loop) { first != nil && helper.lastRestartDelayMS != nil }
        guard case .failure = first else { Issue.record("a dead helper answered"); return }
        #expect(helper.lastRestartDelayMS == 20)
        #expect(helper.restarts == 0)

        // Within the backoff: a request starts nothing; it goes to the helper once it started
        // again (which dies again, so it fails with that reason).
        var during: Result<ArtworkHelper.Reply, ArtworkHelper.Failure>?
        helper.request(["path": "/nonexistent"]) { during = $0 }
        #expect(helper.restarts == 0 && helper.pid == nil)
        try runLoop(loop) { during != nil }
        guard case .failure(let why) = during else { Issue.record("a dead helper answered"); return }
        #expect(why.description.contains("exited with status 3"), "\(why)")
        #expect(helper.restarts == 1)

        // Each quick death in a row doubles the wait before the next start.
        try runLoop(loop) { helper.lastRestartDelayMS == 40 }
        try runLoop(loop) { helper.restarts == 2 && helper.lastRestartDelayMS == 80 }
        try runLoop(loop) { helper.restarts == 3 && helper.lastRestartDelayMS == 160 }
        helper.close()
        // (The loop's own next-turn handle, used by the pipes' write failures, is the loop's to close.)
        closeLoop(loop)
    }
}
