import Glibc
import Testing
@testable import PlayerHost

/// Issue 22 item 7, with the plugin supervision rig: nobody's music is paused by a plugin or a
/// reload until that plugin's or session's own playback starts.
extension PluginSupervisionTests {
    /// Another app plays; the radio plugin and an idle `activate = true` config session arrive
    /// by reload: the music plays on. The radio's own play interrupts it; the radio dies
    /// (kill -9): the interruption ends and the music resumes. (Before: the radio activated at
    /// attach and the config session at reload, each pausing the music, which stayed paused.)
    @Test func neitherAPluginNorAReloadPausesMusicUntilItsOwnPlaybackStarts() throws {
        let rig = try Rig()
        defer { rig.close() }
        let music = try rig.daemon.client()
        try music.call("host.hello", ["name": "music"])
        for (method, params) in [("session.create", ["id": "music", "kind": "main"] as JSON),
                                 ("audio.configure", ["session": "music", "category": "playback"]),
                                 ("audio.activate", ["session": "music"]),
                                 ("command.bindDefaults", ["session": "music"]),
                                 ("player.load", ["session": "music", "items": [["title": "Song", "duration": 600]]]),
                                 ("player.play", ["session": "music"])] {
            try music.call(method, params.objectValue ?? [:])
        }
        func musicState() throws -> JSON? { try music.call("info.get", ["session": "music"])["playbackState"] }
        #expect(try musicState() == "playing")

        let watcher = try rig.daemon.client()
        try watcher.call("events.subscribe", ["topics": ["sessions"]])
        #expect(symlink(Self.examples + "/python-plugin/radio.py", rig.pluginDir + "/radio.py") == 0)
        try writeFile(rig.daemon.directory + "/playerhost.toml", """
            plugin_dir = "\(rig.pluginDir)"
            [[session]]
            id = "idle"
            kind = "pip"
            activate = true
            [[session.item]]
            title = "Idle"
            duration = 60
            """)
        #expect(try rig.npctl("daemon reload").status == 0)
        try rig.waitForSessions(["py-radio", "idle"], watcher)
        try rig.waitUntilTargeted("py-radio", ["play", "pause", "togglePlayPause"], watcher)
        try rig.waitUntilTargeted("idle", ["play"], watcher)
        #expect(try musicState() == "playing", "an idle plugin and an idle config session interrupt nobody")
        #expect(try watcher.call("nowPlaying.get")["session"] == "music")
        #expect(try watcher.call("session.get", ["session": "idle"])["audio"]?["active"] == false)
        #expect(try watcher.call("session.get", ["session": "py-radio"])["audio"]?["active"] == false)

        // The radio's own playback starts: now it interrupts the music.
        #expect(try rig.npctl("play --session py-radio") == (0, ""))
        #expect(try rig.poll(10) { try musicState() == "interrupted" })

        // The radio dies: its session closes, the interruption ends, the music plays again (and
        // the restarted radio, idle, pauses nothing).
        let pid = try #require(try rig.pids(watcher)["radio.py"])
        #expect(kill(pid, SIGKILL) == 0)
        try rig.waitForEvent("sessionClosed", session: "py-radio", watcher)
        #expect(try musicState() == "playing", "a player that was playing when interrupted resumes")
        try rig.waitForEvent("sessionCreated", session: "py-radio", watcher)
        try rig.waitUntilTargeted("py-radio", ["play"], watcher)
        #expect(try musicState() == "playing")
    }
}
