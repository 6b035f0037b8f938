import Testing
@testable import PlayerHost
@testable import PlayerHostClient

/// `--follow`'s rules without processes: which player is followed (playerctl's player manager,
/// `FollowedPlayers`) and which changes print (`FollowRule`, `PlayerChange`).
@Suite struct NpctlFollowLogicTests {
    @Test func allPlayersFollowTheMostRecentlyActive() {
        var f = FollowedPlayers(selection: PlayerSelection(), allPlayers: true)
        // Managed one by one in -l's order, each put first: the last listed is asked first.
        f.start(with: ["playerhost", "a", "b"])
        #expect(f.order == ["b", "a", "playerhost"])
        f.touch("a")
        #expect(f.order == ["a", "b", "playerhost"])
        f.touch("playerhost")
        #expect(f.order == ["playerhost", "a", "b"])
        // A player that appears later goes first; one that goes away is dropped.
        f.appear("c")
        #expect(f.order == ["c", "playerhost", "a", "b"])
        f.appear("c")
        #expect(f.order == ["c", "playerhost", "a", "b"])
        f.vanish("playerhost")
        #expect(f.order == ["c", "a", "b"])
        f.touch("nope")
        #expect(f.order == ["c", "a", "b"])
    }

    @Test func aPlayerListKeepsItsPreferenceAndRecencyOnlyAmongEquals() {
        // -p b,%any,a: b first, then anything else (recency among them), a last.
        var f = FollowedPlayers(selection: PlayerSelection(player: "b,%any,a"), allPlayers: false)
        f.start(with: ["a", "b", "x", "y"])
        #expect(f.order == ["b", "y", "x", "a"])
        f.touch("a")
        #expect(f.order == ["b", "y", "x", "a"])
        f.touch("x")
        #expect(f.order == ["b", "x", "y", "a"])
        f.appear("z")
        #expect(f.order == ["b", "z", "x", "y", "a"])
        f.vanish("b")
        #expect(f.order == ["z", "x", "y", "a"])
        f.appear("b")
        #expect(f.order == ["b", "z", "x", "y", "a"])
        // -a with -p: the list selects, recency alone orders.
        var all = FollowedPlayers(selection: PlayerSelection(player: "b,a"), allPlayers: true)
        all.start(with: ["a", "b", "x"])
        #expect(all.order == ["a", "b"])
        all.touch("b")
        #expect(all.order == ["b", "a"])
        all.appear("x")
        #expect(all.order == ["b", "a"])
        // Instances of one name are equals: the most recent first.
        var mpv = FollowedPlayers(selection: PlayerSelection(player: "mpv,vlc", ignore: "mpv.bad"), allPlayers: false)
        mpv.start(with: ["vlc", "mpv.1", "mpv.2", "mpv.bad"])
        #expect(mpv.order == ["mpv.2", "mpv.1", "vlc"])
        mpv.touch("mpv.1")
        #expect(mpv.order == ["mpv.1", "mpv.2", "vlc"])
    }

    @Test func eachVerbFollowsPlayerctlsSignalAndTheTemplateAddsItsOwn() throws {
        #expect(FollowRule(verb: "status", template: nil) == FollowRule(triggers: .status))
        #expect(FollowRule(verb: "metadata", template: nil) == FollowRule(triggers: .metadata))
        // position follows seeks only: no status changes, no clock.
        #expect(FollowRule(verb: "position", template: nil) == FollowRule(triggers: .seeked))
        #expect(FollowRule(verb: "volume", template: nil) == FollowRule(triggers: .volume))
        #expect(FollowRule(verb: "loop", template: nil).needsCommands)
        // A template adds status, position, volume, loop, shuffle (never the metadata), and
        // naming position (anywhere, in a function too) redoes the line every second.
        let t = try FormatTemplate("{{title}} {{status}} {{duration(position)}}")
        #expect(FollowRule(verb: "metadata", template: t) == FollowRule(triggers: [.metadata, .status, .seeked], ticks: true))
        #expect(FollowRule(verb: "status", template: try FormatTemplate("{{title}}")) == FollowRule(triggers: .status))
        #expect(FollowRule(verb: "position", template: try FormatTemplate("{{position}}")) == FollowRule(triggers: .seeked, ticks: true))
        #expect(FollowRule(verb: "status", template: try FormatTemplate("{{shuffle}}")).needsCommands)
        #expect(FollowRule(verb: "now", template: nil) == FollowRule(triggers: .all))
    }

    static func reply(_ state: String, elapsed: Double, at t: Double, rate: Double, title: String = "One", session: String = "main") -> JSON {
        ["session": .string(session), "playbackState": .string(state), "timestamp": .double(t),
         "info": ["title": .string(title), "duration": 300.0, "elapsed": .double(elapsed), "rate": .double(rate)]]
    }

    static func changes(_ a: JSON, _ b: JSON) -> PlayerChange {
        PlayerChange.between(PlayerctlView(raw: a), PlayerctlView(raw: b), commandsKnown: false, now: 1000)
    }

    @Test func aSeekIsAJumpNotAPauseNorTheClock() {
        let playing = Self.reply("playing", elapsed: 10, at: 100, rate: 1)
        // Paused 5 s later where it was heading: a status change, no seek.
        #expect(Self.changes(playing, Self.reply("paused", elapsed: 15, at: 105, rate: 0)) == .status)
        // Resumed where it was: no seek.
        #expect(Self.changes(Self.reply("paused", elapsed: 15, at: 105, rate: 0), Self.reply("playing", elapsed: 15, at: 200, rate: 1)) == .status)
        // Moved to 30: a seek.
        #expect(Self.changes(playing, Self.reply("playing", elapsed: 30, at: 101, rate: 1)) == .seeked)
        // A small drift is not one.
        #expect(Self.changes(playing, Self.reply("playing", elapsed: 11.1, at: 101, rate: 1)) == [])
        // A new track from its start: metadata only; from its middle: a seek too.
        #expect(Self.changes(playing, Self.reply("playing", elapsed: 0, at: 101, rate: 1, title: "Two")) == .metadata)
        #expect(Self.changes(playing, Self.reply("playing", elapsed: 50, at: 101, rate: 1, title: "Two")) == [.metadata, .seeked])
        // Nothing shown any more: stopped, no metadata, no seek.
        #expect(Self.changes(playing, .null) == [.status, .metadata])
    }
}
