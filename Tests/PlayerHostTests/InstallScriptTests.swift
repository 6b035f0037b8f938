import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostClient

/// Issue 12: `scripts/install.sh` installs a verified systemd user unit, completions and man
/// pages, and `--uninstall` removes exactly that. (`--bin-dir` reuses the test build instead of
/// a release build.)
@Suite(.serialized) struct InstallScriptTests {
    @Test func installThenUninstallLeavesThePrefixAsItWas() throws {
        let prefix = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(prefix)'") }
        // Something of the user's own in a directory the install also uses: it must stay.
        try runShell("mkdir -p '\(prefix)/bin' && echo mine > '\(prefix)/bin/other'")
        let listing = "cd '\(prefix)' && find . -printf '%p %m\\n' | sort"
        let before = try runShell(listing).output
        let script = DaemonHarness.packageRoot + "/scripts/install.sh"

        let install = try runShell("'\(script)' --prefix '\(prefix)' --bin-dir '\(DaemonHarness.binDirectory)' 2>&1")
        // The script runs `systemd-analyze verify` on the unit and fails if it does not pass.
        #expect(install.status == 0, "\(install.output)")
        let unit = try runShell("cat '\(prefix)/share/systemd/user/playerhostd.service'").output
        #expect(unit.contains("Type=notify") && unit.contains("Restart=on-failure"))
        #expect(unit.contains("ExecReload=/bin/kill -HUP $MAINPID"))
        #expect(unit.contains("ExecStart=\(prefix)/bin/playerhostd"))
        for file in ["bin/playerhostd", "bin/npctl", "bin/playerhost-artwork", "share/bash-completion/completions/npctl",
                     "share/zsh/site-functions/_npctl", "share/fish/vendor_completions.d/npctl.fish",
                     "share/man/man1/npctl.1", "share/man/man1/playerhostd.1"] {
            #expect(try runShell("test -s '\(prefix)/\(file)'").status == 0, "\(file)")
        }
        #expect(try runShell("'\(prefix)/bin/npctl' --version").status == 0)

        let uninstall = try runShell("'\(script)' --prefix '\(prefix)' --uninstall 2>&1")
        #expect(uninstall.status == 0, "\(uninstall.output)")
        #expect(try runShell(listing).output == before)
    }

    /// Issue 22: the install puts in everything the daemon runs. The INSTALLED daemon (private
    /// socket, state and cache) shows a media file's embedded cover — which takes the artwork
    /// helper beside it; without it (removed from the prefix) the same cover fails to resolve.
    @Test(.enabled(if: ArtworkFixture.toolsAvailable, "needs ffmpeg"))
    func theInstalledDaemonShowsAnEmbeddedCover() throws {
        let prefix = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(prefix)'") }
        let script = DaemonHarness.packageRoot + "/scripts/install.sh"
        let install = try runShell("'\(script)' --prefix '\(prefix)' --bin-dir '\(DaemonHarness.binDirectory)' 2>&1")
        #expect(install.status == 0, "\(install.output)")
        let daemon = try DaemonHarness()
        defer { daemon.close() }
        let song = daemon.directory + "/song.mp3"
        let made = try runShell("""
            cd '\(daemon.directory)' && ffmpeg -loglevel error -f lavfi -i 'testsrc=s=320x240' -frames:v 1 cover.jpg && \
            ffmpeg -loglevel error -f lavfi -i 'sine=duration=2' -i cover.jpg -map 0 -map 1 -c:a libmp3lame -c:v copy \
              -disposition:v attached_pic song.mp3 && echo ok
            """)
        #expect(made.output.contains("ok"))
        var env = daemon.isolatedEnvironment
        env["XDG_CACHE_HOME"] = daemon.directory + "/cache"
        let installed = prefix + "/bin/playerhostd"

        /// Starts the installed daemon, shows the song in a new session and returns its artwork
        /// event and the image `info.get` then shows.
        func showSong(_ session: String) throws -> (event: JSON, shown: JSON) {
            guard try daemon.start(environment: env, executable: installed) else {
                throw ArtworkFixture.Failed("the installed playerhostd did not start: \(daemon.stderrText)")
            }
            let client = try daemon.client()
            defer { client.close() }
            _ = try client.call("events.subscribe", ["topics": ["artwork"]])
            _ = try client.call("session.create", ["id": .string(session), "kind": "main", "automaticallyPublishes": false])
            _ = try client.call("info.update", ["session": .string(session), "info": ["title": "Covered", "assetURL": .string(song)]])
            let end = ControlClient.now() + 20
            while true {
                let left = end - ControlClient.now()
                guard left > 0 else { throw ArtworkFixture.Failed("no artwork event within 20 s") }
                let e = try client.nextNotification(timeout: left)
                guard let p = e["params"], p["topic"] == "artwork", p["session"] == .string(session) else { continue }
                #expect(p["id"] == .string("embedded:" + song))
                return (p, try client.call("info.get", ["session": .string(session)])["info"]?["artwork"]?["image"] ?? .null)
            }
        }

        let (event, shown) = try showSong("installed")
        #expect(event["image"]?["from"] == "embedded", "\(event)")
        #expect(shown["width"] == 320 && shown["height"] == 240, "\(shown)")
        #expect(shown["url"]?.stringValue?.hasPrefix("file://" + daemon.directory + "/cache/playerhost/artwork/") == true, "\(shown)")
        _ = daemon.stop()

        // The same, with the helper not installed: the check above depends on it.
        #expect(unlink(prefix + "/bin/playerhost-artwork") == 0)
        let (without, nothing) = try showSong("without-helper")
        #expect(without["image"] == nil && nothing == .null, "\(without)")
        #expect(without["error"]?.stringValue?.contains("could not start") == true, "\(without)")
        _ = daemon.stop()
    }
}
