import Testing
@testable import PlayerHost
@testable import PlayerHostModel

/// The arbiter's rules as tables, on the value type alone: no model, no sockets.
@Suite struct ArbiterRuleTests {
    /// One step of a table: what changes, then what the arbiter must decide.
    enum Step {
        case app(AppID, order: UInt64, start: UInt64? = nil, held: UInt64? = nil, preferred: SessionID? = nil)
        case session(SessionID, app: AppID, order: UInt64, eligible: Bool = true, playing: Bool = false)
        case close(SessionID)
        case removeApp(AppID)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var steps: [Step]
        var active: [AppID: SessionID?]
        var nowPlaying: SessionID?
        var move: Arbiter.SlotMove
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "the first eligible session of an app is its active one",
            steps: [.app("a", order: 1), .session("a1", app: "a", order: 1, eligible: false),
                    .session("a2", app: "a", order: 2), .session("a3", app: "a", order: 3)],
            active: ["a": "a2"], nowPlaying: "a2", move: .filled),
        Row(name: "the preferred session wins while eligible",
            steps: [.app("a", order: 1, preferred: "a3"), .session("a2", app: "a", order: 2), .session("a3", app: "a", order: 3)],
            active: ["a": "a3"], nowPlaying: "a3", move: .filled),
        Row(name: "an ineligible preferred session falls back to the first eligible",
            steps: [.app("a", order: 1, preferred: "a3"), .session("a2", app: "a", order: 2),
                    .session("a3", app: "a", order: 3, eligible: false)],
            active: ["a": "a2"], nowPlaying: "a2", move: .filled),
        Row(name: "no eligible session: no active session, empty slot",
            steps: [.app("a", order: 1), .session("a1", app: "a", order: 1, eligible: false)],
            active: ["a": nil], nowPlaying: nil, move: .kept),
        Row(name: "the most recent playback start takes the slot",
            steps: [.app("a", order: 1, start: 5), .app("b", order: 2, start: 9),
                    .session("a1", app: "a", order: 1, playing: true), .session("b1", app: "b", order: 2, playing: true)],
            active: ["a": "a1", "b": "b1"], nowPlaying: "b1", move: .tookOver),
        Row(name: "a paused app does not challenge, however recent",
            steps: [.app("a", order: 1, start: 5), .app("b", order: 2, start: 9),
                    .session("a1", app: "a", order: 1, playing: true), .session("b1", app: "b", order: 2, playing: false)],
            active: ["a": "a1", "b": "b1"], nowPlaying: "a1", move: .tookOver),
        Row(name: "the holder closes: the most recently active candidate takes the slot",
            steps: [.app("a", order: 1, start: 3), .app("b", order: 2, held: 7), .app("c", order: 3, start: 9),
                    .session("a1", app: "a", order: 1), .session("b1", app: "b", order: 2),
                    .session("c1", app: "c", order: 3, playing: true), .close("c1")],
            active: ["a": "a1", "b": "b1", "c": nil], nowPlaying: "b1", move: .filled),
        Row(name: "equal recency goes to the older app",
            steps: [.app("b", order: 2), .app("a", order: 1), .session("b1", app: "b", order: 2), .session("a1", app: "a", order: 1)],
            active: ["a": "a1", "b": "b1"], nowPlaying: "a1", move: .filled),
        Row(name: "a removed app leaves the slot to the others",
            steps: [.app("a", order: 1, start: 9), .app("b", order: 2, start: 3),
                    .session("a1", app: "a", order: 1, playing: true), .session("b1", app: "b", order: 2),
                    .close("a1"), .removeApp("a")],
            active: ["b": "b1"], nowPlaying: "b1", move: .filled),
    ]

    @Test(arguments: rows)
    func rule(_ row: Row) {
        var a = Arbiter()
        for step in row.steps {
            switch step {
            case .app(let id, let order, let start, let held, let preferred):
                a.updateApp(id, .init(order: order, preferred: preferred, lastPlaybackStart: start, lastHeldSlot: held))
            case .session(let id, let app, let order, let eligible, let playing):
                a.updateSession(id, .init(app: app, order: order, eligible: eligible, playing: playing))
            case .close(let id):
                a.removeSession(id)
            case .removeApp(let id):
                a.removeApp(id)
            }
        }
        let r = a.resolve()
        for (app, session) in row.active { #expect(a.active(of: app) == session, "active of \(app)") }
        #expect(a.nowPlaying == row.nowPlaying)
        #expect(r.move == row.move)
    }

    /// Resolving again with nothing new changes nothing, and a paused holder keeps the slot
    /// until another app starts playback later than it did.
    @Test func aPausedHolderKeepsTheSlotUntilALaterStart() {
        var a = Arbiter()
        a.updateApp("a", .init(order: 1, lastPlaybackStart: 5))
        a.updateApp("b", .init(order: 2))
        a.updateSession("a1", .init(app: "a", order: 1, eligible: true, playing: true))
        a.updateSession("b1", .init(app: "b", order: 2, eligible: true, playing: false))
        _ = a.resolve()
        #expect(a.nowPlaying == "a1")
        a.updateSession("a1", .init(app: "a", order: 1, eligible: true, playing: false))
        #expect(a.resolve().newHolder == nil)
        #expect(a.nowPlaying == "a1", "paused, it keeps the slot")
        a.updateApp("b", .init(order: 2, lastPlaybackStart: 6))
        a.updateSession("b1", .init(app: "b", order: 2, eligible: true, playing: true))
        let r = a.resolve()
        #expect(r.newHolder == "b" && r.move == .tookOver)
        #expect(a.nowPlaying == "b1")
    }

    /// Thousands of updates leave the heaps no larger than a bounded multiple of what is live.
    @Test func staleEntriesDoNotAccumulate() {
        var a = Arbiter()
        a.updateApp("a", .init(order: 1))
        a.updateApp("b", .init(order: 2))
        for i in 0..<5_000 {
            a.updateApp("a", .init(order: 1, lastPlaybackStart: UInt64(2 * i + 1)))
            a.updateSession("a1", .init(app: "a", order: 1, eligible: true, playing: i % 2 == 0))
            a.updateApp("b", .init(order: 2, lastPlaybackStart: UInt64(2 * i + 2)))
            a.updateSession("b1", .init(app: "b", order: 2, eligible: i % 3 != 0, playing: true))
            _ = a.resolve()
        }
        #expect(a.heapSizes.reduce(0, +) < 200)
    }
}
