import Testing
@testable import PlayerHost
@testable import PlayerHostModel

/// Issue 23's player selection through the model: names resolved as `-p` does, the pin followed
/// across a player's restart, an ignored player's audio interrupting no one, priority among the
/// playing. (The ordering rules themselves: `ArbiterPolicyTests`.)
@Suite struct ModelPolicyTests {
    /// Three imported-like players, each its own app: `mpris-spotify`, `mpris-mpv.instance4`,
    /// `mpris-chromium`, all paused; each activation interrupted the ones before (only chromium
    /// is eligible).
    func players() throws -> NowPlayingModel {
        var m = NowPlayingModel()
        for (n, (name, id)) in [("spotify", "mpris-spotify"), ("mpv", "mpris-mpv.instance4"), ("chromium", "mpris-chromium")].enumerated() {
            let app = try m.registerApp(name: name, client: ClientID(n + 1), now: .zero).value
            try m.makeEligible(id, caller: .app(app.id))
        }
        return m
    }

    @Test func thePinFollowsItsNameAcrossAPlayersRestart() throws {
        var m = try players()
        _ = m.setArbiterPolicy(ArbiterPolicy(pinned: "spotify"), now: at(1))
        _ = try m.activateAudio(session: "mpris-mpv.instance4", now: at(2))
        _ = try m.play(session: "mpris-mpv.instance4", now: at(2))
        #expect(m.sessions["mpris-spotify"]?.audio.isInterrupted == true)
        #expect(m.nowPlayingSession == "mpris-spotify", "pinned, paused and interrupted, it keeps the slot from a playing player")
        _ = try m.deactivateAudio(session: "mpris-spotify", now: at(3))
        let ineligible = m.explain(now: at(3)).first { $0.session == "mpris-spotify" }
        #expect(ineligible?.nowPlayingReason.hasPrefix("not Now Playing: pinned, but not eligible") == true)
        _ = try m.closeSession("mpris-spotify", now: at(3))
        #expect(m.nowPlayingSession == "mpris-mpv.instance4")
        let spotify = try #require(m.apps.values.first { $0.name == "spotify" })
        let back = try m.makeEligible("mpris-spotify", caller: .app(spotify.id), now: at(4))
        #expect(m.nowPlayingSession == "mpris-spotify", "the same name is pinned again")
        #expect(slotChanges(back).last?.2 == .pinned)
        let why = m.explain(now: at(4)).first { $0.session == "mpris-spotify" }
        #expect(why?.nowPlayingReason.contains("pinned") == true)
    }

    @Test func anIgnoredPlayerNeitherTakesTheSlotNorInterrupts() throws {
        var m = try players()
        _ = m.setArbiterPolicy(ArbiterPolicy(ignore: ["chromium"]), now: at(1))
        _ = try m.activateAudio(session: "mpris-mpv.instance4", now: at(2))
        _ = try m.play(session: "mpris-mpv.instance4", now: at(2))
        #expect(m.nowPlayingSession == "mpris-mpv.instance4")
        _ = try m.activateAudio(session: "mpris-chromium", now: at(3))
        _ = try m.play(session: "mpris-chromium", now: at(4))
        #expect(m.nowPlayingSession == "mpris-mpv.instance4")
        #expect(m.sessions["mpris-mpv.instance4"]?.audio.isInterrupted == false, "an ignored player's audio interrupts no one")
        #expect(m.timeline("mpris-mpv.instance4").isPlaying)
        let why = m.explain(now: at(4)).first { $0.session == "mpris-chromium" }
        #expect(why?.nowPlayingReason.contains("ignored") == true)
    }

    @Test func priorityPicksAmongThePlaying() throws {
        var m = try players()
        _ = m.setArbiterPolicy(ArbiterPolicy(priority: ["spotify", "mpv"]), now: at(1))
        _ = try m.activateAudio(session: "mpris-spotify", now: at(2))
        _ = try m.play(session: "mpris-spotify", now: at(2))
        _ = try m.activateAudio(session: "mpris-mpv.instance4", now: at(3))
        _ = try m.play(session: "mpris-mpv.instance4", now: at(3))
        #expect(m.sessions["mpris-spotify"]?.audio.isInterrupted == false, "a lower priority does not interrupt a playing higher one")
        #expect(m.nowPlayingSession == "mpris-spotify", "both play: the first listed wins over the later start")
        let why = m.explain(now: at(3)).first { $0.session == "mpris-mpv.instance4" }
        #expect(why?.nowPlayingReason.contains("priority") == true)
    }

    /// `doctor` says why: the pin and the ignore list are the user's own choices, with the way
    /// back as the fix.
    @Test func doctorNamesThePinAndTheIgnoreList() throws {
        var m = try players()
        _ = m.setArbiterPolicy(ArbiterPolicy(pinned: "spotify", ignore: ["chromium"]), now: at(1))
        let pinned = try m.diagnostics(session: "mpris-spotify", now: at(1)).first { $0.code == "pinned" }
        #expect(pinned?.message == "pinned: mpris-spotify is Now Playing whenever it can be, paused too, because `npctl pin spotify` pins it")
        #expect(pinned?.fix == "npctl unpin")
        let ignored = try m.diagnostics(session: "mpris-chromium", now: at(1)).first { $0.code == "ignored" }
        #expect(ignored?.message == "ignored: mpris-chromium is never Now Playing and interrupts no one ([arbiter] ignore names 'chromium')")
        #expect(try m.diagnostics(session: "mpris-mpv.instance4", now: at(1)).allSatisfy { $0.code != "pinned" && $0.code != "ignored" })
    }
}
