import Testing
@testable import PlayerHost
@testable import PlayerHostClient
@testable import PlayerHostHost
@testable import PlayerHostModel

/// Issue 22, volume end to end: player state like rate, set through `changeVolume`, reported
/// by `player.sync`, published with the session, mapped to MPRIS `Volume`, kept across a
/// restart. Pure layers: no daemon here.
@Suite struct VolumeTests {
    func eligible() throws -> NowPlayingModel {
        var m = NowPlayingModel()
        try m.makeEligible("s")
        return m
    }

    func send(_ m: inout NowPlayingModel, _ payload: [String: JSON], session: SessionID = "s",
              at t: Double = 1) throws -> ModelResult<CommandProgress> {
        try m.sendCommand(.changeVolume, session: session, payload: payload, now: at(t))
    }

    func status(_ r: ModelResult<CommandProgress>) -> CommandStatus? {
        if case .finished(let o) = r.value { return o.status }
        return nil
    }

    // MARK: The model

    @Test func aFreshPlayerIsAtFullVolumeUnmuted() throws {
        let m = try eligible()
        #expect(m.timeline("s").volume == PlayerVolume())
        #expect(m.timeline("s").volume.level == 1 && !m.timeline("s").volume.isMuted)
        let c = m.sessions["s"]!.commandCenter[.changeVolume]
        #expect(c.isAvailable, "bindDefaults binds changeVolume like the other settings")
        #expect(c.configuration.maximumVolume == 1)
    }

    @Test func changeVolumeSetsTheLevelAndTheMuteOfTheBoundPlayers() throws {
        var m = try eligible()
        #expect(status(try send(&m, ["volume": 0.25])) == .success)
        #expect(m.timeline("s").volume.level == 0.25)
        #expect(status(try send(&m, ["muted": true])) == .success)
        #expect(m.timeline("s").volume.level == 0.25 && m.timeline("s").volume.isMuted, "mute keeps the level")
        #expect(m.timeline("s").volume.effective == 0)
        _ = try send(&m, ["muted": false])
        #expect(m.timeline("s").volume.effective == 0.25)
        _ = try send(&m, ["volume": 0, "muted": true])
        #expect(m.timeline("s").volume == (try PlayerVolume(level: 0, isMuted: true)))
        // Multi-view: every player follows.
        var mv = NowPlayingModel()
        try mv.makeEligible("mv", kind: .multiview)
        _ = try send(&mv, ["volume": 0.5], session: "mv")
        #expect((0..<4).allSatisfy { mv.timeline("mv", $0).volume.level == 0.5 })
    }

    /// Out-of-range and malformed payloads are refused before any target runs and change nothing.
    @Test(arguments: [
        ["volume": -0.01], ["volume": 1.01], ["volume": 1.6], ["volume": .double(.infinity)], ["volume": .double(.nan)],
        ["volume": "loud"], ["muted": "yes"], [:], ["volume": nil, "muted": nil],
    ] as [[String: JSON]])
    func badPayloadsAreRefusedAndChangeNothing(_ payload: [String: JSON]) throws {
        var m = try eligible()
        _ = try send(&m, ["volume": 0.4])
        let before = m
        expectModelError(.invalidArgument) { _ = try send(&m, payload, at: 2) }
        #expect(m == before)
    }

    @Test func maximumVolumeBoundsWhatRemotesMayAsk() throws {
        var m = try eligible()
        expectModelError(.invalidArgument) { _ = try send(&m, ["volume": 1.3]) }
        _ = try m.configureCommand(session: "s", .changeVolume, properties: ["maximumVolume": 1.3], now: at(1))
        #expect(status(try send(&m, ["volume": 1.3])) == .success)
        #expect(m.timeline("s").volume.level == 1.3)
        expectModelError(.invalidArgument) { _ = try send(&m, ["volume": 1.31]) }
        for bad: JSON in [0, -1, 1.51, "x"] {
            let before = m
            expectModelError(.invalidArgument) {
                _ = try m.configureCommand(session: "s", .changeVolume, properties: ["maximumVolume": bad], now: at(2))
            }
            #expect(m == before)
        }
        _ = try m.configureCommand(session: "s", .changeVolume, properties: ["maximumVolume": 1.5], now: at(1))
        #expect(m.sessions["s"]!.commandCenter[.changeVolume].toJSON()["maximumVolume"] == 1.5)
    }

    @Test func playerSetVolumeIsTheHostsOwnSettingWithinTheHardBound() throws {
        var m = try eligible()
        _ = try m.setVolume(session: "s", volume: 1.5, muted: nil, now: at(1))
        #expect(m.timeline("s").volume.level == 1.5)
        let before = m
        expectModelError(.invalidArgument) { _ = try m.setVolume(session: "s", volume: 1.51, muted: true, now: at(2)) }
        expectModelError(.invalidArgument) { _ = try m.setVolume(session: "s", volume: nil, muted: nil, now: at(2)) }
        #expect(m == before)
    }

    /// An external engine's volume is what its backend reports; a report out of range is refused whole.
    @Test func anExternalPlayersVolumeIsWhatItsBackendReports() throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "x", kind: .main, driver: .external, now: at(0))
        _ = try m.bindDefaultCommands(session: "x", now: at(0))
        #expect(m.sessions["x"]!.commandCenter[.changeVolume].isEnabled)
        #expect(m.sessions["x"]!.commandCenter[.changeVolume].targets.isEmpty, "the backend adds its own target")
        _ = try m.syncPlayer(session: "x", state: PlayerSync(items: [song("A", 10)], volume: 1.3, muted: true), now: at(1))
        #expect(m.timeline("x").volume == (try PlayerVolume(level: 1.3, isMuted: true)))
        let before = m
        for bad in [-0.1, 1.51, Double.infinity] {
            expectModelError(.invalidArgument) {
                _ = try m.syncPlayer(session: "x", state: PlayerSync(index: 0, volume: bad, muted: false), now: at(2))
            }
            #expect(m == before)
        }
        // Nothing else in the report: the volume is kept.
        _ = try m.syncPlayer(session: "x", state: PlayerSync(elapsed: 3), now: at(3))
        #expect(m.timeline("x").volume.level == 1.3)
        // The host does not set an external player's volume itself.
        expectModelError(.invalidState) { _ = try m.setVolume(session: "x", volume: 0.5, muted: nil, now: at(4)) }
    }

    // MARK: Events and JSON

    @Test func aVolumeChangeIsPublishedOnceAndAnEqualOneNotAtAll() throws {
        var m = try eligible()
        let r = try send(&m, ["volume": 0.5])
        let players = r.events.compactMap { if case .playerChanged(_, _, let p) = $0 { return p } else { return nil } }
        #expect(players.map(\.timeline.volume.level) == [0.5])
        let infos = infoEvents(r.events)
        #expect(infos.map(\.volume.level) == [0.5])
        let json = try #require(r.events.first { if case .infoChanged = $0 { true } else { false } }).toJSON()
        #expect(json["volume"] == 0.5 && json["muted"] == false)
        let again = try send(&m, ["volume": 0.5], at: 2)
        #expect(!again.events.contains { if case .playerChanged = $0 { true } else { false } })
        #expect(infoEvents(again.events).isEmpty)
    }

    @Test func repliesCarryVolumeAndMuted() throws {
        var m = try eligible()
        _ = try send(&m, ["volume": 0.75, "muted": true])
        let np = m.nowPlayingJSON(now: at(2))
        #expect(np["volume"] == 0.75 && np["muted"] == true)
        let info = try m.infoJSON(session: "s", now: at(2))
        #expect(info["volume"] == 0.75 && info["muted"] == true)
        let player = try m.playerJSON(session: "s", now: at(2))
        #expect(player["volume"] == 0.75 && player["muted"] == true)
        #expect(try m.publishedInfo(session: "s").toJSON()["volume"] == 0.75)
    }

    /// A manual session shows its player 0's volume too: volume is not info an app writes.
    @Test func aManualSessionPublishesItsPlayersVolume() throws {
        var m = NowPlayingModel()
        _ = try m.createSession(id: "radio", kind: .main, automaticallyPublishes: false, now: at(0))
        _ = try m.setVolume(session: "radio", volume: 0.2, muted: nil, now: at(1))
        #expect(try m.publishedInfo(session: "radio").volume.level == 0.2)
    }

    /// The gate sends a value that differs only in volume: a display must show it.
    @Test func theGateDoesNotSwallowAVolumeChange() {
        let a = NowPlayingSnapshot(session: "s", info: NowPlayingInfo(), playbackState: .paused, timestamp: at(0))
        var b = a
        b.volume = try! PlayerVolume(level: 0.5)
        #expect(NowPlayingGate.rendersSame(a, a))
        #expect(!NowPlayingGate.rendersSame(a, b))
    }

    // MARK: MPRIS

    func props(_ m: NowPlayingModel, _ t: Double = 2) -> MPRISProperties {
        MPRISProperties(MPRISNowPlaying.current(m, now: at(t)))
    }

    @Test func mprisVolumeIsWhatIsHeard() throws {
        var m = try eligible()
        #expect(MPRISProperties(nil).volume == 1 && MPRISProperties(nil).playerProperties["Volume"] == .double(1))
        let full = props(m)
        #expect(full.playerProperties["Volume"] == .double(1))
        _ = try send(&m, ["volume": 0.4])
        let quieter = props(m)
        #expect(quieter.playerProperties["Volume"] == .double(0.4))
        #expect(quieter.changedPlayerProperties(since: full) == ["Volume"], "a PropertiesChanged for Volume, nothing else")
        _ = try send(&m, ["muted": true])
        #expect(props(m).playerProperties["Volume"] == .double(0), "muted: MPRIS has no mute, so Volume shows silence")
        #expect(props(m).maximumVolume == 1)
    }

    @Test func mprisVolumeWritesBecomeChangeVolumeWithinMaximumVolume() throws {
        var m = try eligible()
        _ = try m.configureCommand(session: "s", .changeVolume, properties: ["maximumVolume": 1.3], now: at(1))
        let p = props(m)
        func set(_ v: DBusValue) -> MPRISRequest { MPRISRequest.set("Volume", interface: .player, value: v, properties: p) }
        #expect(set(.double(0.3)) == .send(.changeVolume, payload: ["volume": 0.3, "muted": false]))
        #expect(set(.double(-1)) == .send(.changeVolume, payload: ["volume": .double(0), "muted": false]), "the spec: negative is 0")
        #expect(set(.double(2)) == .send(.changeVolume, payload: ["volume": 1.3, "muted": false]), "clamped to maximumVolume")
        if case .fail(let e) = set(.double(.nan)) { #expect(e.name == "org.freedesktop.DBus.Error.InvalidArgs") } else {
            Issue.record("a NaN Volume must be a D-Bus error")
        }
        if case .fail = set(.string("loud")) {} else { Issue.record("a string Volume must be a D-Bus error") }
        // What the write sends is accepted by the model as is.
        guard case .send(let kind, let payload) = set(.double(2)) else { return }
        _ = try m.sendCommand(kind, session: nil, payload: payload, now: at(2))
        #expect(props(m, 3).playerProperties["Volume"] == .double(1.3))
    }

    // MARK: npctl

    @Test func npctlVolumeSpeaksPlayerctlsSyntax() throws {
        let commands: [JSON] = [["command": "changeVolume", "isAvailable": true, "maximumVolume": 1.3]]
        let v = PlayerctlView(raw: ["session": "s", "playbackState": "paused", "timestamp": 0, "info": [:], "volume": 0.5, "muted": false],
                              commands: commands)
        #expect(v.volume == 0.5 && v.level == 0.5 && !v.muted && v.maximumVolume == 1.3)
        #expect(v.volumeTarget("0.25") == 0.25)
        #expect(v.volumeTarget("0.1+") == 0.6)
        #expect(v.volumeTarget("0.1-") == 0.4)
        #expect(v.volumeTarget("1-") == 0, "never below 0")
        #expect(v.volumeTarget("5") == 1.3, "never above maximumVolume")
        #expect(v.volumeTarget("2+") == 1.3)
        for bad in ["abc", "0.1*", "+", "", "inf", "nan", "0.1++"] { #expect(v.volumeTarget(bad) == nil, "\(bad)") }
        let muted = PlayerctlView(raw: ["session": "s", "playbackState": "paused", "timestamp": 0, "info": [:], "volume": 0.5, "muted": true])
        #expect(muted.volume == 0 && muted.level == 0.5, "MPRIS shows silence; the level is kept")
        #expect(muted.volumeTarget("0.1+") == 0.1, "relative to what is heard, as playerctl reads Volume")
        #expect(muted.maximumVolume == 1)
        #expect(try FormatTemplate("{{volume}}").render(muted.context(player: "p", instance: "p", withMetadata: false, at: 0)) == "0.0")
        // Nothing Now Playing: the export's 1.0.
        #expect(PlayerctlView(raw: .null).volume == 1)
        // mute [on|off|toggle].
        #expect(v.muteTarget(nil) == true && muted.muteTarget(nil) == false)
        #expect(v.muteTarget("toggle") == true && v.muteTarget("on") == true && muted.muteTarget("off") == false)
        #expect(v.muteTarget("ON") == true && v.muteTarget("sideways") == nil)
    }

    // MARK: Restart

    func roundTrip(_ m: NowPlayingModel) throws -> NowPlayingModel {
        let snap = HostSnapshot(of: m, now: at(5), configSessions: [])
        let parsed = try StateFile.parse(StateFile.render(snap, savedAt: 0))
        #expect(parsed == snap)
        var fresh = NowPlayingModel()
        let r = parsed.restore(into: &fresh, now: at(1000))
        #expect(r.value.isEmpty, "\(r.value)")
        return fresh
    }

    @Test func volumeMuteAndMaximumVolumeSurviveARestart() throws {
        var m = try eligible()
        _ = try m.configureCommand(session: "s", .changeVolume, properties: ["maximumVolume": 1.2], now: at(1))
        _ = try send(&m, ["volume": 1.1, "muted": true])
        _ = try m.createSession(id: "x", kind: .main, driver: .external, now: at(1))
        _ = try m.syncPlayer(session: "x", state: PlayerSync(items: [song("A", 10)], volume: 0.3, muted: true), now: at(1))
        let back = try roundTrip(m)
        #expect(back.timeline("s").volume == (try PlayerVolume(level: 1.1, isMuted: true)))
        #expect(back.sessions["s"]!.commandCenter[.changeVolume].configuration.maximumVolume == 1.2)
        #expect(back.timeline("x").volume == (try PlayerVolume(level: 0.3, isMuted: true)))
        // An untouched player stays at the default, and an older file (no volume keys) reads as it.
        let file = StateFile.render(HostSnapshot(of: try eligible(), now: at(5), configSessions: []), savedAt: 0)
        #expect(String(decoding: file, as: UTF8.self).contains(#""volume":1"#))
        #expect(try StateFile.player(["items": []]).volume == 1)
        #expect(try StateFile.player(["items": []]).isMuted == false)
    }
}
