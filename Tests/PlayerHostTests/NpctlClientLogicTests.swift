import Testing
@testable import PlayerHost
@testable import PlayerHostClient

/// npctl's logic without processes: templates, position forms, suggestions, argument
/// hoisting, languages and the watch view's text.
@Suite struct NpctlClientLogicTests {
    static let reply: JSON = [
        "session": "main", "playbackState": "playing", "timestamp": 100.0,
        "info": ["title": ["und": "Magnificent", "es": "Magnífico"], "artist": "U2", "albumTitle": "No Line",
                 "duration": 324.0, "elapsed": 60.0, "rate": 1.0, "extra": ["station": "K<&>"]],
    ]

    static let commands: [JSON] = [
        ["command": "play", "isAvailable": true], ["command": "nextTrack", "isAvailable": false],
        ["command": "changeRepeatMode", "isAvailable": true, "currentRepeatType": "all"],
        ["command": "changeShuffleMode", "isAvailable": true, "currentShuffleType": "items"],
    ]

    /// The context `metadata --format` sees, at host time 130 (30 s after the reply).
    static func context(lang: String? = nil, metadata: Bool = true) -> (String) -> PlayerValue? {
        PlayerctlView(raw: reply, commands: commands, language: lang)
            .context(player: "playerhost", instance: "playerhost", withMetadata: metadata, at: 130)
    }

    static func expand(_ t: String, lang: String? = nil, metadata: Bool = true) throws -> String {
        try FormatTemplate(t).expand(context(lang: lang, metadata: metadata))
    }

    @Test func templatesReadPlayerctlsVariablesInItsUnits() throws {
        #expect(try Self.expand("{{xesam:artist}} - {{xesam:title}} {{duration(mpris:length)}}") == "U2 - Magnificent 5:24")
        #expect(try Self.expand("{{title}}", lang: "es-MX") == "Magnífico")
        #expect(try Self.expand("{{album}}|{{xesam:album}}|{{playerName}}|{{mpris:length}}") == "No Line|No Line|playerhost|324000000")
        // position is µs, as playerctl's: duration() reads µs.
        #expect(try Self.expand("{{ duration(position) }} {{position}} {{lc(status)}} {{uc(artist)}}") == "1:30 90000000 playing U2")
        #expect(try Self.expand("{{status}} {{loop}} {{shuffle}} {{volume}}") == "Playing Playlist true 1.0")
        #expect(try Self.expand(#"{{default(xesam:genre, "no genre")}} {{default(artist, "x")}}"#) == "no genre U2")
        #expect(try Self.expand("{{markup_escape(session)}} {{markup_escape(\"<a href='x'>&\")}}") == "main &lt;a href=&apos;x&apos;&gt;&amp;")
        #expect(try Self.expand("{{emoji(status)}}{{nope}}{{emoji(volume)}}") == "▶️🔊")
        #expect(try Self.expand("{{trunc(title, 3)}}|{{trunc(title, 30)}}") == "Mag…|Magnificent")
        // Only metadata's context has the metadata (status --format '{{title}}' prints nothing).
        #expect(try Self.expand("[{{title}}] {{status}}", metadata: false) == "[] Playing")
    }

    @Test func templateArithmeticIsPlayerctls() throws {
        #expect(try Self.expand("{{mpris:length / 1000000}}") == "324.0")
        #expect(try Self.expand("{{mpris:length - position}}") == "234000000")
        #expect(try Self.expand("{{1 + 2 * 3 - 4 / 8}}") == "6.5")
        #expect(try Self.expand("{{(1 + 2) * 3}}") == "9.0")
        #expect(try Self.expand("{{-mpris:length}}") == "-324000000")
        #expect(try Self.expand("{{0.1 + 0.2}}") == "0.30000000000000004")
        #expect(throws: TemplateError("Divide by zero error")) { try Self.expand("{{1 / 0}}") }
        #expect(throws: TemplateError("Got unsupported operand types for +: 's' and 'd'")) { try Self.expand("{{title + 1}}") }
        #expect(throws: TemplateError("Got unsupported operand type for +: NULL")) { try Self.expand("{{nope + 1}}") }
        #expect(throws: TemplateError("Numeric overflow detected")) { try Self.expand("{{mpris:length * mpris:length * mpris:length}}") }
    }

    @Test func templateErrorsAreOnesPlayerctlPrints() throws {
        #expect(throws: TemplateError("unknown template function: shout")) { try Self.expand("{{shout(title)}}") }
        #expect(throws: TemplateError("function default takes exactly two arguments (got 1)")) { try Self.expand("{{default(title)}}") }
        #expect(throws: TemplateError("function uc takes exactly one argument (got 2)")) { try Self.expand("{{uc(title, artist)}}") }
        #expect(throws: TemplateError("the emoji function can only be called with a variable")) { try Self.expand(#"{{emoji("x")}}"#) }
        #expect(throws: TemplateError("function duration can only be called on track position values")) { try Self.expand("{{duration(title)}}") }
        #expect(throws: TemplateError("unexpected end of expression")) { try FormatTemplate("{{title") }
        #expect(throws: TemplateError("expecting \"}}\" (position 8)")) { try FormatTemplate("{{title x}}") }
        #expect(FormatTemplate.functions.count == 11)
        #expect(try FormatTemplate("{{duration(position)}}").contains("position"))
        #expect(try !FormatTemplate("{{title}}").contains("position"))
    }

    @Test func theMPRISViewIsTheExportsMapping() {
        let v = PlayerctlView(raw: Self.reply, commands: Self.commands)
        #expect(v.status == "Playing" && v.loop == "Playlist" && v.shuffle)
        #expect(v.canPlay && !v.canGoNext && !v.canSeek)
        #expect(v.positionText(at: 130) == "90.000000")
        #expect(v.metadata.map(\.key) == ["mpris:length", "mpris:trackid", "xesam:album", "xesam:artist", "xesam:title"])
        // The trackid is the export's: FNV-1a of the session and of the item's key.
        #expect(v.value("mpris:trackid") == .objectPath("/org/playerhost/track/s\(PlayerctlView.hex("main"))_\(PlayerctlView.hex("-\u{1F}Magnificent\u{1F}U2\u{1F}No Line\u{1F}\u{1F}324.0"))"))
        #expect(v.metadataTable(player: "playerhost")?.split(separator: "\n").first == "playerhost mpris:length              324000000")
        #expect(v.metadataValue("mpris:trackid", at: 130)?.hasPrefix("'/org/playerhost/track/s") == true)
        #expect(v.metadataValue("artist", at: 130) == "U2")
        #expect(v.metadataValue("albumTitle", at: 130) == "No Line")
        #expect(v.metadataValue("xesam:comment", at: 130) == nil)
        let nothing = PlayerctlView(raw: .null)
        #expect(nothing.status == "Stopped" && nothing.metadata.isEmpty && !nothing.canPlay && nothing.metadataTable(player: "p") == nil)
        #expect(PlayerValue.double(1).printed == "1.0" && PlayerValue.double(0.5).printed == "0.5" && PlayerValue.strings(["a", "b"]).printed == "a, b")
    }

    @Test func playerSelectionIsPlayerctls() {
        let players = ["playerhost", "mpv.instance1", "spotify", "mpv.instance2"]
        #expect(PlayerSelection().select(players) == players)
        #expect(PlayerSelection(player: "mpv").select(players) == ["mpv.instance1", "mpv.instance2"])
        #expect(PlayerSelection(player: "spotify, mpv").select(players) == ["spotify", "mpv.instance1", "mpv.instance2"])
        #expect(PlayerSelection(player: "spotify,%any").select(players) == ["spotify", "playerhost", "mpv.instance1", "mpv.instance2"])
        #expect(PlayerSelection(player: "%any,playerhost").select(players) == ["mpv.instance1", "spotify", "mpv.instance2", "playerhost"])
        #expect(PlayerSelection(player: "mpv.instance2").select(players) == ["mpv.instance2"])
        #expect(PlayerSelection(player: "mp").select(players).isEmpty)
        #expect(PlayerSelection(ignore: "mpv,spotify").select(players) == ["playerhost"])
        #expect(PlayerSelection(player: "%any", ignore: "playerhost").select(players) == ["mpv.instance1", "spotify", "mpv.instance2"])
    }

    @Test func playerctlsOptionsAreTakenAnywhere() throws {
        func extract(_ s: [String]) throws -> (PlayerctlArguments, [String]) { try PlayerctlArguments.extract(s) }
        let (a, rest) = try extract(["-p", "mpv,%any", "-s", "metadata", "--format", "{{title}}", "-F", "title", "--session", "x"])
        #expect(a.player == "mpv,%any" && a.noMessages && a.format == "{{title}}" && a.follow && !a.allPlayers)
        #expect(rest == ["metadata", "title", "--session", "x"])
        let (b, restB) = try extract(["status", "--player=spotify", "-as", "-i", "chromium", "-fX"])
        #expect(b.player == "spotify" && b.allPlayers && b.noMessages && b.ignore == "chromium" && b.format == "X" && restB == ["status"])
        let (c, restC) = try extract(["-l", "-v"])
        #expect(c.listAll && c.version && restC.isEmpty)
        // open keeps its own -s (its mpv session); call its arguments; -- ends the options.
        #expect(try extract(["open", "-s", "m", "x.ogg"]).1 == ["open", "-s", "m", "x.ogg"])
        #expect(try extract(["call", "x", "-p"]).1 == ["call", "x", "-p"])
        #expect(try extract(["position", "--", "-5"]).1 == ["position", "--", "-5"])
        #expect(try extract(["position", "-5"]).1 == ["position", "-5"])
        #expect(throws: PlayerctlArguments.Failure.missingValue("-p")) { try extract(["status", "-p"]) }
    }

    @Test func positionForms() {
        #expect(PositionRequest("90") == .absolute(90))
        #expect(PositionRequest("1:30") == .absolute(90))
        #expect(PositionRequest("1:02:03") == .absolute(3723))
        #expect(PositionRequest("0:30.5") == .absolute(30.5))
        #expect(PositionRequest("10+") == .relative(10))
        #expect(PositionRequest("10-") == .relative(-10))
        #expect(PositionRequest("+1:00") == .relative(60))
        #expect(PositionRequest("-5") == .relative(-5))
        for bad in ["", "soon", "1:60", "1::2", "1:2:3:4", "-", "1.5:00", "inf", "1e3"] { #expect(PositionRequest(bad) == nil, "\(bad)") }
        #expect(PositionRequest.relative(-30).target(from: 10, duration: 100) == 0)
        #expect(PositionRequest.relative(30).target(from: 90, duration: 100) == 100)
    }

    @Test func closestVerb() {
        let verbs = ["status", "sessions", "play", "pause", "play-pause", "toggle", "prev", "previous", "position", "stop"]
        #expect(VerbSuggestion.closest(to: "stauts", in: verbs) == "status")
        #expect(VerbSuggestion.closest(to: "plya", in: verbs) == "play")
        #expect(VerbSuggestion.closest(to: "sesions", in: verbs) == "sessions")
        #expect(VerbSuggestion.closest(to: "pos", in: verbs) == "position")
        #expect(VerbSuggestion.closest(to: "xyzzy", in: verbs) == nil)
    }

    @Test func globalOptionsMoveAfterTheVerb() {
        let verbs: [String: [String]] = ["status": [], "position": [], "daemon": ["start", "stop"], "pause": []]
        func arrange(_ s: String) -> GlobalOptionHoisting.Outcome {
            GlobalOptionHoisting.arrange(s.split(separator: " ").map(String.init), verbs: verbs)
        }
        #expect(arrange("--session pip --json status") == .arguments(["status", "--session", "pip", "--json"]))
        #expect(arrange("--socket=/x --session pip status -f x") == .arguments(["status", "--socket=/x", "--session", "pip", "-f", "x"]))
        #expect(arrange("--json daemon stop") == .arguments(["daemon", "stop", "--json"]))
        #expect(arrange("position -5 --session pip") == .arguments(["position", "--session", "pip", "--", "-5"]))
        #expect(arrange("position --session pip -1:30") == .arguments(["position", "--session", "pip", "--", "-1:30"]))
        #expect(arrange("--help") == .arguments(["--help"]))
        #expect(GlobalOptionHoisting.hasVerb(["--lang", "es"]) == false)
        #expect(GlobalOptionHoisting.hasVerb(["--json", "status"]))
        #expect(GlobalOptionHoisting.hasVerb(["--session", "pip", "--json"]) == false)
        #expect(arrange("stauts") == .unknownVerb("stauts", suggestion: "status"))
    }

    @Test func languageFromTheLocale() {
        #expect(LanguagePreference.tag(fromLocale: "es_ES.UTF-8") == "es-ES")
        #expect(LanguagePreference.tag(fromLocale: "de_DE@euro") == "de-DE")
        #expect(LanguagePreference.tag(fromLocale: "C.UTF-8") == nil)
        let env = ["LANG": "fr_FR.UTF-8", "LC_ALL": "es_MX.UTF-8"]
        #expect(LanguagePreference.resolve(explicit: nil) { env[$0] } == "es-MX")
        #expect(LanguagePreference.resolve(explicit: "de") { env[$0] } == "de")
        #expect(LanguagePreference.resolve(explicit: nil) { _ in nil } == nil)
        #expect(InfoSnapshot(Self.reply, language: "es").title == "Magnífico")
        #expect(InfoSnapshot(Self.reply, language: "fr").title == "Magnificent", "und fallback")
    }

    @Test func watchViewInfersThePositionAndFitsTheTerminal() {
        var state = WatchState()
        state.setSessions([["id": "main", "kind": "main", "app": "main", "playbackState": "playing", "isActive": true,
                            "canBecomeActive": true, "isNowPlaying": true],
                           ["id": "pip", "kind": "pip", "app": "main", "playbackState": "paused"]])
        state.nowPlaying = InfoSnapshot(Self.reply)
        state.log(WatchState.describe(["topic": "nowPlaying", "type": "nowPlayingChanged", "from": "pip", "to": "main",
                                       "reason": "promoted"], language: nil))
        let at130 = WatchScreen.render(state, width: 60, height: 14, now: 130)
        let at190 = WatchScreen.render(state, width: 60, height: 14, now: 190)
        #expect(at130.count == 14)
        #expect(at130.allSatisfy { $0.count <= 60 })
        #expect(at130[0] == "npctl watch — Now Playing: main")
        #expect(at130[1] == "▶ Playing  U2 — Magnificent")
        #expect(at130[2].hasSuffix("]  1:30/5:24"))
        #expect(at190[2].hasSuffix("]  2:30/5:24"))
        #expect(at190[2].filter { $0 == "█" }.count > at130[2].filter { $0 == "█" }.count, "the bar advances with time alone")
        #expect(at130[5] == ">*  main     main  main  playing  yes     yes")
        #expect(at130.contains("  nowPlaying pip → main (promoted)"))
        #expect(at130.last == String(WatchScreen.keysLine.prefix(59)) + "…")
        #expect(state.nextTick(at: 130.25) == 0.75)
        state.nowPlaying?.playbackState = "paused"
        #expect(state.nextTick(at: 130) == nil, "nothing plays: no wake-ups")
        state.moveSelection(5)
        #expect(state.selectedID == "pip")
        #expect(WatchKey.parse(Array(" np\u{1B}[C\u{1B}[D+-q".utf8)) ==
                [.togglePlayPause, .next, .previous, .seekForward, .seekBack, .faster, .slower, .quit])
    }
}
