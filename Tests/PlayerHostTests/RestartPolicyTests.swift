import Testing
@testable import PlayerHost

/// The one restart rule the plugin supervisor, the mpv plugin and the plugin runner share.
@Suite struct RestartPolicyTests {
    /// Runs of the given lengths (ms), one death each, and the decisions the standard policy makes.
    static let cases: [(runs: [UInt64], decisions: [RestartPolicy.Decision])] = [
        // Quick deaths in a row: doubling backoff, the fifth gives up.
        ([0, 0, 0, 0, 0], [.restart(afterMS: 250), .restart(afterMS: 500), .restart(afterMS: 1000),
                           .restart(afterMS: 2000), .giveUp(quickDeaths: 5)]),
        // A stable run starts over: the count and the backoff.
        ([0, 0, 0, 10_000, 0, 0, 0, 0],
         [.restart(afterMS: 250), .restart(afterMS: 500), .restart(afterMS: 1000), .restart(afterMS: 250),
          .restart(afterMS: 250), .restart(afterMS: 500), .restart(afterMS: 1000), .restart(afterMS: 2000)]),
        // Just under stable is quick.
        ([9_999, 9_999], [.restart(afterMS: 250), .restart(afterMS: 500)]),
        // Always stable: always the first delay, never gives up.
        ([60_000, 60_000, 60_000, 60_000, 60_000, 60_000],
         Array(repeating: .restart(afterMS: 250), count: 6)),
    ]

    @Test(arguments: cases.indices) func decisions(_ i: Int) {
        var p = RestartPolicy.standard
        #expect(Self.cases[i].runs.map { p.died(ranForMS: $0) } == Self.cases[i].decisions)
    }

    @Test func theBackoffStopsAtItsMaximumAndNoLimitNeverGivesUp() {
        var p = RestartPolicy(initialBackoffMS: 100, maxBackoffMS: 5000, stableAfterMS: 10_000, startLimit: nil)
        let delays = (0..<80).map { _ in p.died(ranForMS: 0) }
        #expect(Array(delays.prefix(8)) == [100, 200, 400, 800, 1600, 3200, 5000, 5000].map { RestartPolicy.Decision.restart(afterMS: $0) })
        #expect(delays.last == .restart(afterMS: 5000))
        #expect(p.quickDeaths == 80)
    }

    @Test func resetStartsOverAfterGivingUp() {
        var p = RestartPolicy.standard
        for _ in 0..<5 { _ = p.died(ranForMS: 0) }
        #expect(p.quickDeaths == 5)
        p.reset()
        #expect(p.died(ranForMS: 0) == .restart(afterMS: 250))
    }
}
