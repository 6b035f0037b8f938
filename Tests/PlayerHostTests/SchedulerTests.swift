import Testing
@testable import PlayerHost

/// The manual scheduler (the embedded host's clock) and the one request-with-timeout.
@Suite struct SchedulerTests {
    @Test func timersFireInDeadlineOrderAtTheirOwnInstant() {
        let s = ManualScheduler(nanoseconds: 0)
        var fired: [(String, UInt64)] = []
        let a = s.makeTimer(), b = s.makeTimer(), c = s.makeTimer()
        a?.start(after: 30) { fired.append(("a", s.nowNanoseconds)) }
        b?.start(after: 10) { fired.append(("b", s.nowNanoseconds)) }
        c?.start(after: 10) { fired.append(("c", s.nowNanoseconds)) }
        s.advance(byMilliseconds: 9)
        #expect(fired.isEmpty)
        s.advance(byMilliseconds: 100)
        #expect(fired.map(\.0) == ["b", "c", "a"], "deadline order, ties in arming order")
        #expect(fired.map(\.1) == [10_000_000, 10_000_000, 30_000_000], "now is each timer's deadline inside it")
        #expect(s.nowNanoseconds == 109_000_000)
        #expect(s.armedTimerCount == 0)
    }

    @Test func repeatingStoppedReArmedAndClosedTimers() {
        let s = ManualScheduler(nanoseconds: 0)
        var ticks = 0
        let t = s.makeTimer()
        t?.start(after: 5, repeat: 10) { ticks += 1 }
        s.advance(byMilliseconds: 36)
        #expect(ticks == 4, "at 5, 15, 25, 35")
        #expect(t?.dueIn == 9)
        t?.stop()
        s.advance(byMilliseconds: 100)
        #expect(ticks == 4)
        var other = 0
        t?.start(after: 1) { other += 1 }
        t?.close()
        s.advance(byMilliseconds: 10)
        #expect(other == 0, "a closed timer never fires")
        t?.start(after: 1) { other += 1 }
        s.advance(byMilliseconds: 10)
        #expect(other == 0, "and cannot be re-armed")
    }

    @Test func timersArmedByACallbackFireInTheSameAdvance() {
        let s = ManualScheduler(nanoseconds: 0)
        var order: [Int] = []
        let t1 = s.makeTimer(), t2 = s.makeTimer()
        t1?.start(after: 10) {
            order.append(1)
            t2?.start(after: 5) { order.append(2) }
            s.onNextTurn { order.append(3) }
        }
        s.advance(byMilliseconds: 20)
        #expect(order == [1, 3, 2], "the turn queue runs after the callback, before the next timer")
    }

    @Test func aPendingRequestSettlesExactlyOnce() {
        let s = ManualScheduler()
        let pending = PendingRequests<Int, String>(scheduler: s)
        var outcomes: [String] = []
        func record(_ o: PendingOutcome<String>) {
            switch o {
            case .reply(let r): outcomes.append("reply " + r)
            case .timedOut: outcomes.append("timeout")
            case .cancelled(let why): outcomes.append("cancelled " + why)
            }
        }
        #expect(pending.add(1, timeoutMilliseconds: 100, completion: record))
        #expect(!pending.add(1, timeoutMilliseconds: 100, completion: record), "one id waits once")
        #expect(pending.add(2, timeoutMilliseconds: 50, completion: record))
        #expect(pending.add(3, timeoutMilliseconds: nil, completion: record))
        #expect(pending.complete(1, with: "one"))
        #expect(!pending.complete(1, with: "again"), "a second answer is dropped")
        s.advance(byMilliseconds: 60)
        #expect(outcomes == ["reply one", "timeout"])
        #expect(!pending.complete(2, with: "late"), "a late answer after the deadline is dropped")
        s.advance(byMilliseconds: 10_000)
        #expect(pending.count == 1, "no deadline: still waiting")
        pending.cancelAll(reason: "closed")
        #expect(outcomes == ["reply one", "timeout", "cancelled closed"])
        #expect(pending.count == 0 && s.armedTimerCount == 0, "nothing left armed")
    }

    @Test func cancelAllDoesNotCancelRequestsItsCompletionsAdd() {
        let s = ManualScheduler()
        let pending = PendingRequests<Int, Int>(scheduler: s)
        var retried = false
        pending.add(1, timeoutMilliseconds: 10) { outcome in
            if case .cancelled = outcome { retried = pending.add(2, timeoutMilliseconds: 10) { _ in } }
        }
        pending.cancelAll(reason: "reconnect")
        #expect(retried && pending.contains(2))
    }
}
