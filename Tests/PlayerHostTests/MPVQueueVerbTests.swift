import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostClient

/// Issue 22 item 2 on the fake mpv (no audio, no real mpv): `npctl open` replaces the queue and
/// plays, `--append`/`add` and `--next` queue without changing what plays, and the mpc-style
/// queue verbs (`remove N`, `move FROM TO`, `play N`, `clear`, `close --session`) edit mpv's own
/// playlist, positions counted from 1 as `npctl queue` prints them.
@Suite(.serialized) struct MPVQueueVerbTests {
    private func npctl(_ f: FakeMPV, _ args: String) throws -> (status: Int64, output: String) {
        try NpctlEndToEndTests.npctl(args, socket: f.daemon.socketPath)
    }

    /// The titles of the mpv session's queue, in order, and the current position (from 1).
    private func queue(_ c: ControlClient, _ session: String = "mpv") throws -> (titles: [String], current: Int?) {
        let items = try c.call("player.queue", ["session": .string(session)])["items"]?.arrayValue ?? []
        let index = try c.call("player.get", ["session": .string(session)])["queueIndex"]?.intValue
        return (items.compactMap { $0["title"]?.stringValue }, index.map { $0 + 1 })
    }

    @Test func openReplacesAndPlaysWhileAppendAndNextQueue() throws {
        let f = try FakeMPV()
        defer { f.close() }
        let c = try f.daemon.client(timeout: 30)
        let opened = try npctl(f, "open file:///m/a.ogg file:///m/b.ogg")
        #expect(opened.status == 0 && opened.output == "", "\(opened.output)")
        #expect(try queue(c).titles == ["a.ogg", "b.ogg"])
        // A second open plays what it opened: the queue is replaced, its first item plays.
        #expect(try npctl(f, "open file:///m/c.ogg").output == "")
        var q = try queue(c)
        #expect(q.titles == ["c.ogg"] && q.current == 1)
        #expect(try c.call("nowPlaying.get")["info"]?["title"] == "c.ogg")
        #expect(try c.call("nowPlaying.get")["playbackState"] == "playing")
        // --json prints the session.
        let json = try JSONParser.parse(try npctl(f, "--json open file:///m/c.ogg").output)
        #expect(json["id"] == "mpv")

        // Queued: after the last (mpc add), right after the current one (mpc insert).
        #expect(try npctl(f, "open --append file:///m/d.ogg file:///m/e.ogg").output == "")
        #expect(try npctl(f, "add file:///m/f.ogg").output == "")
        #expect(try npctl(f, "open --next file:///m/x.ogg file:///m/y.ogg").output == "")
        q = try queue(c)
        #expect(q.titles == ["c.ogg", "x.ogg", "y.ogg", "d.ogg", "e.ogg", "f.ogg"] && q.current == 1, "\(q)")
        #expect(try c.call("nowPlaying.get")["info"]?["title"] == "c.ogg", "queueing changes nothing that plays")
        #expect(try npctl(f, "open --append --next file:///m/z.ogg").status == 2)
    }

    @Test func queueVerbsEditMpvsPlaylistCountingFromOne() throws {
        let f = try FakeMPV()
        defer { f.close() }
        let c = try f.daemon.client(timeout: 30)
        #expect(try npctl(f, "open file:///m/1.ogg file:///m/2.ogg file:///m/3.ogg file:///m/4.ogg").status == 0)

        #expect(try npctl(f, "remove 2").output == "")
        #expect(try queue(c).titles == ["1.ogg", "3.ogg", "4.ogg"])
        #expect(try npctl(f, "move 3 1").output == "")
        var q = try queue(c)
        #expect(q.titles == ["4.ogg", "1.ogg", "3.ogg"] && q.current == 2, "the playing item stays current: \(q)")
        #expect(try npctl(f, "move 1 3").output == "")
        #expect(try queue(c).titles == ["1.ogg", "3.ogg", "4.ogg"])

        // play N jumps; play alone stays play.
        #expect(try npctl(f, "pause").status == 0)
        #expect(try npctl(f, "play 3").output == "")
        q = try queue(c)
        #expect(q.current == 3)
        let now = try c.call("nowPlaying.get")
        #expect(now["info"]?["title"] == "4.ogg" && now["playbackState"] == "playing", "\(now)")
        #expect(try npctl(f, "pause").status == 0)
        #expect(try npctl(f, "play").status == 0)
        #expect(try c.call("nowPlaying.get")["playbackState"] == "playing")

        // Out of the queue, in the user's numbers.
        let past = try npctl(f, "remove 9")
        #expect(past.status == 1 && past.output == "npctl: remove: no item 9 in the queue of mpv (it has 3)\n", "\(past.output)")
        #expect(try npctl(f, "play 0").status == 2)
        #expect(try npctl(f, "move 1 4").status == 1)

        #expect(try npctl(f, "clear").output == "")
        #expect(try queue(c).titles.isEmpty)
        #expect(try c.call("mpv.status")["playlistCount"] == 0)

        // close ends only the session named.
        let refused = try npctl(f, "close")
        #expect(refused.status == 2 && refused.output.contains("--session"), "\(refused.output)")
        #expect(try npctl(f, "close --session mpv").output == "")
        #expect(try c.call("session.list").arrayValue?.isEmpty == true)
        #expect(try f.wait(10, c) { f.runningPIDs.isEmpty }, "its mpv stopped")
        #expect(try npctl(f, "remove 1").output.contains("no mpv session"))
    }

    /// Issue 22 item 1: `[mpv] ao`, `audio_device` and `vo` reach mpv's command line, and a
    /// reload applies new ones to the next mpv started (the running one keeps its output).
    @Test func configuredOutputsReachMpvAndAReloadAppliesThemToNewPlayers() throws {
        let f = try FakeMPV(config: "[mpv]\nao = \"pulse,null\"\naudio_device = \"pulse/test-sink\"\n", pinNullOutput: false)
        defer { f.close() }
        let c = try f.daemon.client(timeout: 30)
        #expect(try npctl(f, "open --session a file:///m/a.ogg").status == 0)
        let first = try #require(f.startedPIDs.first)
        let args = f.arguments(first)
        #expect(args.contains("--ao=pulse,null") && args.contains("--audio-device=pulse/test-sink") && args.contains("--vo=null"), "\(args)")

        try writeTestFile(f.daemon.directory + "/fake-mpv.toml", "[mpv]\nvo = \"null\"\n")
        _ = try c.call("host.reload")
        #expect(try npctl(f, "open --session b file:///m/b.ogg").status == 0)
        let second = try #require(f.startedPIDs.first { $0 != first })
        let defaults = f.arguments(second)
        #expect(defaults.contains("--ao=pipewire,pulse,alsa,jack,sdl,null") && !defaults.contains { $0.hasPrefix("--audio-device") }, "\(defaults)")
        #expect(f.runningPIDs.contains(first), "the running mpv goes on")
    }

    /// Queueing into a new mpv session does not take the audio: what plays goes on until the
    /// mpv session plays (issue 22: nobody's music is paused unless that session's playback starts).
    @Test func addingToANewSessionInterruptsNothingUntilItPlays() throws {
        let f = try FakeMPV()
        defer { f.close() }
        let c = try f.daemon.client(timeout: 30)
        let other = try f.daemon.client()
        _ = try other.call("host.hello", ["name": "radio"])
        _ = try other.call("session.create", ["id": "radio", "kind": "main"])
        _ = try other.call("audio.configure", ["session": "radio", "category": "playback"])
        _ = try other.call("audio.activate", ["session": "radio"])
        func audio(_ s: String) throws -> JSON { try c.call("session.get", ["session": .string(s)])["audio"] ?? .null }

        #expect(try npctl(f, "add file:///m/a.ogg").output == "")
        #expect(try audio("radio")["interrupted"] == false && audio("mpv")["active"] == false)
        #expect(try queue(c).titles == ["a.ogg"])
        #expect(try npctl(f, "play --session mpv").status == 0)
        #expect(try audio("mpv")["active"] == true && audio("radio")["interrupted"] == true)
        #expect(try c.call("nowPlaying.get")["playbackState"] == "playing")
    }
}

