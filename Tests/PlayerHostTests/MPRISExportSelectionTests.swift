import Testing
@testable import PlayerHost
@testable import PlayerHostClient

/// Issue 22 items 5 and 9, pure: which session the export shows (one card per player: never a
/// mirror of an imported player by default), and npctl's MPRIS values equal to the export's for
/// the same track (trackid, artUrl, xesam:url). No D-Bus, no daemon.
@Suite struct MPRISExportSelectionTests {
    /// "mine" (the host's own, eligible) and "mpris-fake" as the import plugin makes it
    /// (kind `mpris`, driver `external`).
    func model() throws -> NowPlayingModel {
        var m = NowPlayingModel()
        try m.makeEligible("mine")
        _ = try m.createSession(id: "mpris-fake", kind: .plugin("mpris"), driver: .external, now: at(0))
        return m
    }

    @Test func ownModeNeverShowsAnImportedPlayerAndKeepsTheLastOwnSession() throws {
        var m = try model()
        var s = MPRISExportSelection()
        #expect(s.mode == .own, "own is the default")
        #expect(MPRISExportSelection.isImported(try #require(m.sessions["mpris-fake"])))
        #expect(!MPRISExportSelection.isImported(try #require(m.sessions["mine"])))
        // Nothing own has held the slot yet: an imported player in it shows nothing.
        #expect(s.choose(nowPlaying: "mpris-fake") { m.sessions[$0] } == nil)
        #expect(s.choose(nowPlaying: "mine") { m.sessions[$0] } == "mine")
        // The imported player takes the slot: the export stays on "mine" (one card each).
        #expect(s.choose(nowPlaying: "mpris-fake") { m.sessions[$0] } == "mine")
        // Nothing Now Playing: nothing shown (Stopped; shells hide the card).
        #expect(s.choose(nowPlaying: nil) { m.sessions[$0] } == nil)

        // A second own session held the slot and closed: back to the one before it.
        try m.makeEligible("other")
        #expect(s.choose(nowPlaying: "other") { m.sessions[$0] } == "other")
        _ = try m.closeSession("other", caller: .host, now: at(1))
        s.forget("other")
        #expect(s.choose(nowPlaying: "mpris-fake") { m.sessions[$0] } == "mine")
        // Closed without being forgotten (the event not seen yet): still skipped.
        _ = try m.closeSession("mine", caller: .host, now: at(2))
        #expect(s.choose(nowPlaying: "mpris-fake") { m.sessions[$0] } == nil)
    }

    @Test func nowPlayingModeMirrorsWhateverIsNowPlaying() throws {
        let m = try model()
        var s = MPRISExportSelection(mode: .nowPlaying)
        #expect(s.choose(nowPlaying: "mpris-fake") { m.sessions[$0] } == "mpris-fake")
        #expect(s.choose(nowPlaying: "mine") { m.sessions[$0] } == "mine")
        #expect(s.choose(nowPlaying: nil) { m.sessions[$0] } == nil)
        #expect(MPRISExportMode(configValue: "now-playing") == .nowPlaying)
        #expect(MPRISExportMode(configValue: "own") == .own)
        #expect(MPRISExportMode(configValue: "mirror") == nil)
    }

    @Test func theMemoryIsBounded() throws {
        var m = NowPlayingModel()
        var s = MPRISExportSelection()
        for i in 0..<(MPRISExportSelection.memory + 8) {
            _ = try m.createSession(id: "s\(i)", kind: .main, now: at(0))
            _ = s.choose(nowPlaying: "s\(i)") { m.sessions[$0] }
        }
        #expect(s.recent.count == MPRISExportSelection.memory)
        #expect(s.recent.last == "s\(MPRISExportSelection.memory + 7)")
    }

    @Test func exportModeIsAConfigKeyCheckedWithItsLine() throws {
        let ok = try HostConfig.parse("[mpris]\nexport = \"now-playing\"\n", source: "t.toml")
        #expect(ok.mpris?.export == "now-playing")
        #expect(throws: ConfigError.self) { try HostConfig.parse("[mpris]\nexport = \"mirror\"\n", source: "t.toml") }
        do {
            _ = try HostConfig.parse("[mpris]\nenabled = true\nexport = \"mirror\"\n", source: "t.toml")
        } catch {
            #expect("\(error)".contains("t.toml:3: mpris.export must be one of own, now-playing, not 'mirror'"), "\(error)")
        }
    }

    // MARK: - Item 9: one set of values

    /// A track as the daemon sends it (`nowPlaying.get`, an event) and as the export maps it.
    static func both(_ info: NowPlayingInfo) -> (export: MPRISProperties, json: JSON) {
        let snapshot = NowPlayingSnapshot(session: "main", info: info, playbackState: .playing, timestamp: at(5))
        let export = MPRISProperties(MPRISNowPlaying(snapshot, commands: CommandCenter()))
        return (export, snapshot.toJSON(language: nil))
    }

    /// playerctl's printing of an export value (`PlayerValue` of the same variant).
    static func printed(_ v: DBusValue?) -> String? {
        switch v {
        case .string(let s)?: return s
        case .objectPath(let p)?: return PlayerValue.objectPath(p).printed
        case .strings(let l)?: return PlayerValue.strings(l).printed
        case .int64(let i)?: return String(i)
        default: return nil
        }
    }

    @Test(arguments: [false, true])
    func npctlShowsTheExportsTrackIDArtURLAndURI(_ resolved: Bool) throws {
        let image = ArtworkImage(url: "file:///cache/ab%20c.png", width: 10, height: 10, type: "png", from: .embedded)
        let art = Artwork(id: "cover", sources: ["embedded", "/music/cover.png"], image: resolved ? image : nil)
        let info = NowPlayingInfo([.title: .text("Alpha"), .artist: .text("Ann"), .duration: .number(100), .queueIndex: .integer(2),
                                   .assetURL: .text("/music/Ann/Alpha & Omega #1 ü.flac"), .artwork: .artwork(art)])
        let (export, json) = Self.both(info)
        let view = PlayerctlView(raw: json)
        let snapshot = InfoSnapshot(json)
        for key in ["mpris:trackid", "mpris:artUrl", "xesam:url", "xesam:title", "xesam:artist", "mpris:length"] {
            let fromExport = Self.printed(export.metadata[key])
            // `npctl metadata KEY` (the playerctl view) prints playerctl's text of the export's value.
            #expect(view.metadataValue(key, at: 5) == fromExport, "npctl metadata \(key)")
            // Templates and npctl's own lines (`now`, `--follow` on events) read InfoSnapshot.
            if key == "mpris:trackid" || key == "mpris:artUrl" || key == "xesam:url" {
                guard case .objectPath(let p)? = export.metadata[key] else {
                    #expect(snapshot.value(key)?.stringValue == fromExport, "npctl's value of \(key)")
                    continue
                }
                #expect(snapshot.value(key)?.stringValue == p, "npctl's value of \(key)")
            }
        }
        #expect(export.metadata["xesam:url"] == .string("file:///music/Ann/Alpha%20%26%20Omega%20%231%20%C3%BC.flac"))
        #expect(export.metadata["mpris:artUrl"] == (resolved ? .string("file:///cache/ab%20c.png") : nil),
                "the cached rendition once resolved; never a raw source")
    }

    @Test func urisAreKeptAndPathsEncoded() {
        #expect(MPRISValues.uri("https://example.org/a b") == "https://example.org/a b")
        #expect(MPRISValues.uri("file:///m/a%20b.flac") == "file:///m/a%20b.flac")
        #expect(MPRISValues.uri("/m/a-b_c.~d/e.flac") == "file:///m/a-b_c.~d/e.flac")
        #expect(MPRISValues.uri("/m/100%?.ogg") == "file:///m/100%25%3F.ogg")
    }
}
