import Testing
@testable import PlayerHost

/// npctl's logic without processes: templates, position forms, suggestions, argument
/// hoisting, languages and the watch view's text.
@Suite struct NpctlClientLogicTests {
    static let reply: JSON = [
        "session": "main", "playbackState": "playing", "timestamp": 100.0,
        "info": ["title": ["und": "Magnificent", "es": "Magnífico"], "artist": "U2", "albumTitle": "No Line",
                 "duration": 324.0, "elapsed": 60.0, "rate": 1.0, "extra": ["station": "K<&>"]],
    ]

    @Test func templatesTakePlayerctlKeysAndHelpers() throws {
        let s = InfoSnapshot(Self.reply)
        func render(_ t: String, lang: String? = nil) throws -> String {
            try FormatTemplate(t).render(InfoSnapshot(Self.reply, language: lang), at: 130)
        }
        #expect(try render("{{xesam:artist}} - {{xesam:title}} {{duration(mpris:length)}}") == "U2 - Magnificent 5:24")
        #expect(try render("{{xesam:title}}", lang: "es-MX") == "Magnífico")
        #expect(try render("{{album}}|{{xesam:album}}|{{playerName}}|{{mpris:length}}") == "No Line|No Line|main|324000000")
        #expect(try render("{{ duration(position) }} {{position}} {{lc(status)}} {{uc(artist)}}") == "1:30 90 playing U2")
        #expect(try render(#"{{default(genre, "no genre")}} {{default(artist, "x")}}"#) == "no genre U2")
        #expect(try render("{{markup_escape(extra.station)}}") == "K&lt;&amp;&gt;")
        #expect(try render("{{emoji(status)}}{{nope}}") == "▶️")
        #expect(s.position(at: 130) == 90)
        #expect(throws: TemplateError("unknown helper 'shout' (known: default, duration, emoji, lc, markup_escape, uc)")) {
            try FormatTemplate("{{shout(title)}}")
        }
        #expect(throws: TemplateError("default takes 2 arguments, not 1")) { try FormatTemplate("{{default(title)}}") }
        #expect(throws: TemplateError.self) { try FormatTemplate("{{title") }
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
        #expect(arrange("-s pip --json status") == .arguments(["status", "-s", "pip", "--json"]))
        #expect(arrange("--socket=/x -p pip status -f x") == .arguments(["status", "--socket=/x", "-p", "pip", "-f", "x"]))
        #expect(arrange("-a pause") == .arguments(["pause", "-a"]))
        #expect(arrange("--json daemon stop") == .arguments(["daemon", "stop", "--json"]))
        #expect(arrange("position -5 -s pip") == .arguments(["position", "-s", "pip", "--", "-5"]))
        #expect(arrange("position -s pip -1:30") == .arguments(["position", "-s", "pip", "--", "-1:30"]))
        #expect(arrange("--help") == .arguments(["--help"]))
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
