import Testing
@testable import PlayerHost
@testable import PlayerHostHost
@testable import PlayerHostModel

/// The MPRIS export's reconnect backoff is the host's `RestartPolicy`, with the waits it always
/// had: 100 ms doubling to 5 s while the bus stays away, never giving up, from 100 ms again once
/// the name is ours. (The reconnect itself: `MPRISEndToEndTests`.)
@Suite struct MPRISReconnectBackoffTests {
    @Test func waitsDoubleFrom100MillisecondsTo5SecondsAndStartOverOnceConnected() {
        var policy = MPRISBridge.reconnectBackoff
        var waits: [UInt64] = []
        for _ in 0..<100 {
            guard case .restart(let ms) = policy.died(ranForMS: 0) else { Issue.record("gave up after \(waits.count)"); return }
            waits.append(ms)
        }
        #expect(Array(waits.prefix(8)) == [100, 200, 400, 800, 1600, 3200, 5000, 5000])
        #expect(waits.allSatisfy { $0 <= 5000 }, "never more than 5 s, never gives up")
        policy.reset()
        #expect(policy.died(ranForMS: 0) == .restart(afterMS: 100))
    }
}
