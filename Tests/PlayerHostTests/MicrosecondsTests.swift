import Testing
@testable import PlayerHost

/// The one checked seconds ↔ µs conversion: every edge a peer can send, none of which may trap.
@Suite struct MicrosecondsTests {
    @Test func secondsToMicrosecondsRoundsAndSaturates() {
        #expect(Microseconds.from(seconds: 1.5) == 1_500_000)
        #expect(Microseconds.from(seconds: 0.0000004) == 0)
        #expect(Microseconds.from(seconds: -2) == -2_000_000)
        // Values whose product overflows Int64 (the crashes of issue 21) saturate.
        #expect(Microseconds.from(seconds: 1e12) == 1_000_000_000_000_000_000)
        #expect(Microseconds.from(seconds: 1e13) == .max)
        #expect(Microseconds.from(seconds: 1e300) == .max)
        #expect(Microseconds.from(seconds: 9.3e12) == .max)
        #expect(Microseconds.from(seconds: -1e300) == .min)
        #expect(Microseconds.from(seconds: .infinity) == .max)
        #expect(Microseconds.from(seconds: -.infinity) == .min)
        #expect(Microseconds.from(seconds: .nan) == 0)
        // 2⁶³ µs exactly: Double(Int64.max) rounds up to it, and Int64(2⁶³) would trap.
        #expect(Microseconds.from(seconds: 9_223_372_036_854.775808) == .max)
    }

    @Test func boundsAreTheDocumentedBillionSeconds() {
        #expect(Microseconds.isInBounds(1e9))
        #expect(Microseconds.isInBounds(-1e9))
        #expect(!Microseconds.isInBounds(1e9.nextUp))
        #expect(!Microseconds.isInBounds(.infinity))
        #expect(!Microseconds.isInBounds(.nan))
        #expect(Microseconds.boundedSeconds(Microseconds.maxMicroseconds) == 1e9)
        #expect(Microseconds.boundedSeconds(Microseconds.maxMicroseconds + 1) == nil)
        #expect(Microseconds.boundedSeconds(.max) == nil)
        #expect(Microseconds.boundedSeconds(-1) == nil)
        #expect(Microseconds.boundedSeconds(2_500_000) == 2.5)
    }

    @Test func differenceSaturatesInsteadOfTrapping() {
        #expect(Microseconds.difference(5, 3) == 2)
        #expect(Microseconds.difference(5_000_000, .min) == .max)
        #expect(Microseconds.difference(.min, 1) == .min)
        #expect(Microseconds.difference(.max, -1) == .max)
        #expect(Microseconds.difference(0, .min) == .max)
    }
}
