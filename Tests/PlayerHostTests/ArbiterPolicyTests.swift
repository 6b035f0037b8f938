import Testing
@testable import PlayerHost
@testable import PlayerHostModel

/// The user's choices on the arbiter (pin, `[arbiter] priority`, `ignore`) as tables on the value
/// type, then through the model (names resolved, the pin followed across a restart).
@Suite struct ArbiterPolicyTests {
    enum Step {
        case app(AppID, order: UInt64, start: UInt64? = nil, preferred: SessionID? = nil)
        case session(SessionID, app: AppID, order: UInt64, eligible: Bool = true, playing: Bool = false,
                     ignored: Bool = false, rank: UInt64 = 0)
        case pin(SessionID?)
        case resolve
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var steps: [Step]
        var nowPlaying: SessionID?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "a pinned paused session beats a playing one",
            steps: [.app("a", order: 1, start: 1), .app("b", order: 2, start: 9),
                    .session("a1", app: "a", order: 1), .session("b1", app: "b", order: 2, playing: true), .pin("a1")],
            nowPlaying: "a1"),
        Row(name: "a pinned session is its app's active one over the preferred",
            steps: [.app("a", order: 1, preferred: "a1"), .session("a1", app: "a", order: 1),
                    .session("a2", app: "a", order: 2), .pin("a2")],
            nowPlaying: "a2"),
        Row(name: "a pinned but ineligible session: the ordinary rules decide",
            steps: [.app("a", order: 1), .app("b", order: 2, start: 9),
                    .session("a1", app: "a", order: 1, eligible: false), .session("b1", app: "b", order: 2, playing: true), .pin("a1")],
            nowPlaying: "b1"),
        Row(name: "a pin taken from the holder's playing rival once both were settled",
            steps: [.app("a", order: 1, start: 1), .app("b", order: 2, start: 9),
                    .session("a1", app: "a", order: 1), .session("b1", app: "b", order: 2, playing: true), .resolve, .pin("a1")],
            nowPlaying: "a1"),
        Row(name: "unpinned, a playing session that started after the pinned one takes over",
            steps: [.app("a", order: 1, start: 1), .app("b", order: 2, start: 9),
                    .session("a1", app: "a", order: 1), .session("b1", app: "b", order: 2, playing: true),
                    .pin("a1"), .resolve, .pin(nil)],
            nowPlaying: "b1"),
        Row(name: "an ignored session is never Now Playing, even alone and playing",
            steps: [.app("a", order: 1, start: 9), .session("a1", app: "a", order: 1, playing: true, ignored: true)],
            nowPlaying: nil),
        Row(name: "an ignored session's playback does not take the slot from a paused holder",
            steps: [.app("a", order: 1, start: 1), .session("a1", app: "a", order: 1), .resolve,
                    .app("b", order: 2, start: 9), .session("b1", app: "b", order: 2, playing: true, ignored: true)],
            nowPlaying: "a1"),
        Row(name: "an ignored session leaves its app's other session active",
            steps: [.app("a", order: 1), .session("a1", app: "a", order: 1, ignored: true), .session("a2", app: "a", order: 2)],
            nowPlaying: "a2"),
        Row(name: "priority breaks the tie between playing sessions: an older start with priority wins",
            steps: [.app("a", order: 1, start: 1), .app("b", order: 2, start: 9),
                    .session("a1", app: "a", order: 1, playing: true, rank: 2), .session("b1", app: "b", order: 2, playing: true, rank: 1)],
            nowPlaying: "a1"),
        Row(name: "a listed player outranks an unlisted one while both play",
            steps: [.app("a", order: 1, start: 1), .app("b", order: 2, start: 9),
                    .session("a1", app: "a", order: 1, playing: true, rank: 1), .session("b1", app: "b", order: 2, playing: true)],
            nowPlaying: "a1"),
        Row(name: "equal priority: the most recent start wins",
            steps: [.app("a", order: 1, start: 1), .app("b", order: 2, start: 9),
                    .session("a1", app: "a", order: 1, playing: true, rank: 1), .session("b1", app: "b", order: 2, playing: true, rank: 1)],
            nowPlaying: "b1"),
        Row(name: "priority does not beat playback: a paused priority player does not take the slot",
            steps: [.app("a", order: 1, start: 1), .app("b", order: 2, start: 9),
                    .session("a1", app: "a", order: 1, rank: 5), .session("b1", app: "b", order: 2, playing: true)],
            nowPlaying: "b1"),
        Row(name: "a paused holder keeps the slot from a priority player that started before it",
            steps: [.app("a", order: 1, start: 1), .app("b", order: 2, start: 9),
                    .session("a1", app: "a", order: 1, playing: true, rank: 5), .session("b1", app: "b", order: 2), .resolve],
            nowPlaying: "a1"),
        Row(name: "a playing holder without priority yields to a playing priority player",
            steps: [.app("a", order: 1, start: 1), .app("b", order: 2, start: 9),
                    .session("b1", app: "b", order: 2, playing: true), .resolve,
                    .session("a1", app: "a", order: 1, playing: true, rank: 1)],
            nowPlaying: "a1"),
    ]

    @Test(arguments: rows)
    func rule(_ row: Row) {
        var a = Arbiter()
        for step in row.steps {
            switch step {
            case .app(let id, let order, let start, let preferred):
                a.updateApp(id, .init(order: order, preferred: preferred, lastPlaybackStart: start))
            case .session(let id, let app, let order, let eligible, let playing, let ignored, let rank):
                a.updateSession(id, .init(app: app, order: order, eligible: eligible, playing: playing, ignored: ignored, rank: rank))
            case .pin(let id):
                a.setPinned(id)
            case .resolve:
                _ = a.resolve()
            }
        }
        _ = a.resolve()
        #expect(a.nowPlaying == row.nowPlaying)
    }

    /// Names resolve as `npctl -p` does: the session id, or an imported player's MPRIS instance.
    @Test func namesMatchLikeDashP() {
        #expect(ArbiterPolicy.names("spotify", "mpris-spotify"))
        #expect(ArbiterPolicy.names("mpv", "mpris-mpv.instance42"))
        #expect(ArbiterPolicy.names("mpris-mpv", "mpris-mpv"))
        #expect(ArbiterPolicy.names("main", "main"))
        #expect(!ArbiterPolicy.names("mp", "mpris-mpv"))
        #expect(!ArbiterPolicy.names("mpris", "mpris-mpv"))
        #expect(!ArbiterPolicy.names("", "main"))
        let p = ArbiterPolicy(priority: ["spotify", "mpv"], ignore: ["chromium"])
        #expect(p.priorityMatch("mpris-spotify")?.rank == 2)
        #expect(p.priorityMatch("mpris-mpv.instance7")?.rank == 1)
        #expect(p.priorityMatch("main") == nil)
        #expect(p.isIgnored("mpris-chromium.instance3") && !p.isIgnored("mpris-spotify"))
    }
}
