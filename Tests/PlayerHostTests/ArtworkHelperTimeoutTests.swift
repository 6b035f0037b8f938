import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostHost
@testable import PlayerHostLoop

/// The artwork helper's job deadline on a manual clock: the request in the helper fails exactly
/// at its deadline and the helper is killed; the request waiting behind it goes to the helper
/// started again after the backoff (also on the manual clock). A real child (a shell script that
/// hangs on one request and answers the others); its exit is waited for with a deadline.
@Suite struct ArtworkHelperTimeoutTests {
    @Test func aJobFailsExactlyAtItsDeadlineAndTheNextGoesToTheRestartedHelper() throws {
        let loop = try makeLoop()
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let script = dir + "/helper.sh"
        let source = """
            #!/bin/sh
            while read -r line; do
              case "$line" in *hang*) exec sleep 3600;; esac
              id=$(printf '%s' "$line" | sed 's/.*"id":\\([0-9]*\\).*/\\1/')
              printf '{"id":%s,"ok":true,"none":true}\\n' "$id"
            done
            """
        #expect(ArtworkCache.write(script, Array(source.utf8)) && chmod(script, 0o755) == 0)
        let clock = ManualScheduler()
        let helper = ArtworkHelper(loop: loop, scheduler: clock, executable: script, logger: .init(label: "test"))
        helper.restartPolicy = RestartPolicy(initialBackoffMS: 10, maxBackoffMS: 100, stableAfterMS: 10_000, startLimit: nil)

        var hang: Result<ArtworkHelper.Reply, ArtworkHelper.Failure>?
        var next: Result<ArtworkHelper.Reply, ArtworkHelper.Failure>?
        helper.request(["op": "hang"], timeoutMilliseconds: 500) { hang = $0 }
        helper.request(["op": "next"]) { next = $0 }
        let pid = try #require(helper.pid, "the helper started for the first request")
        #expect(helper.load == 2)

        clock.advance(byMilliseconds: 499)
        #expect(hang == nil && helper.pid == pid)
        clock.advance(byMilliseconds: 1)
        guard case .failure(let why)? = hang else { Issue.record("no failure at 500 ms: \(String(describing: hang))"); return }
        #expect(why.description == "the artwork helper did not answer within 500 ms")
        #expect(next == nil, "the waiting request is not failed with the hang's reason")

        // Killed: once its exit is reaped the restart waits for the backoff, on the same clock.
        try runLoop(loop) { helper.pid == nil && helper.lastRestartDelayMS != nil }
        #expect(helper.lastExit == "was killed by signal \(SIGKILL)")
        #expect(helper.lastRestartDelayMS == 10 && helper.restarts == 0)
        clock.advance(byMilliseconds: 9)
        #expect(helper.restarts == 0, "not before the backoff")
        clock.advance(byMilliseconds: 1)
        #expect(helper.restarts == 1 && helper.pid != nil)
        try runLoop(loop) { next != nil }
        guard case .success(.none)? = next else { Issue.record("after the restart: \(String(describing: next))"); return }
        #expect(helper.load == 0 && clock.armedTimerCount == 0, "no deadline left armed")
        helper.close()
        closeLoop(loop)
    }
}
