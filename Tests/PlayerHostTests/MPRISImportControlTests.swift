import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient

/// Issue 22 item 4, end to end: an imported player is fully controllable — its rates, a seek on a
/// player without `Seeked` or track ids, its Identity and DesktopEntry — and a peer's forged
/// `NameOwnerChanged` neither drops nor imports players. The fake players are python3-dbus on
/// the fixture's private bus; every wait is on the daemon's events with a deadline.
@Suite(.serialized) struct MPRISImportControlTests {
    /// The `supportedPlaybackRates` of a session's `changePlaybackRate` (none before it exists).
    static func rates(_ f: ImportFixture, _ session: String) throws -> [Double] {
        guard try f.session(session) != nil else { return [] }
        let commands = try f.client.call("session.get", ["session": .string(session)])["commands"]?.arrayValue ?? []
        let rate = commands.first { $0["command"] == "changePlaybackRate" }
        return rate?["supportedPlaybackRates"]?.arrayValue?.compactMap(\.doubleValue) ?? []
    }

    /// A rate within the player's MinimumRate–MaximumRate (0.01–100, as mpv-mpris says) is one of
    /// the session's rates and reaches the player; when the player narrows its range, the rates
    /// follow (before: none at all, so every rate was refused).
    @Test func ratesFollowTheMinimumAndMaximumRate() throws {
        let f = try ImportFixture()
        defer { f.close() }
        try f.startFake("fake")
        #expect(try f.waitUntil(10) { try Self.rates(f, "mpris-fake").contains(1.5) }, "\((try? Self.rates(f, "mpris-fake")) ?? [])")
        #expect(try Self.rates(f, "mpris-fake") == [0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 4])

        let r = try f.npctl("rate 1.5 --session mpris-fake")
        #expect(r.status == 0, "\(r.output)")
        let rate = try f.mpris.sh("gdbus call --session --dest org.mpris.MediaPlayer2.fake --object-path /org/mpris/MediaPlayer2 "
            + "--method org.freedesktop.DBus.Properties.Get org.mpris.MediaPlayer2.Player Rate")
        #expect(rate == "(<1.5>,)", "the player's Rate: \(rate)")

        // The player can no longer go faster than 1: only the steps up to 1 remain.
        try f.mpris.sh("gdbus call --session --dest org.mpris.MediaPlayer2.fake --object-path /org/mpris/MediaPlayer2 "
            + "--method org.playerhost.Test.Change MaximumRate '<1.0>'")
        #expect(try f.waitUntil(10) { try Self.rates(f, "mpris-fake") == [0.25, 0.5, 0.75, 1] }, "\((try? Self.rates(f, "mpris-fake")) ?? [])")
        #expect(try f.npctl("rate 2 --session mpris-fake").status != 0, "2 is beyond the player's MaximumRate")
    }

    /// A player without track ids or `Seeked`, playing in real time: 20 seeks each land within
    /// 0.25 s of their target (before: each overshot by the time played since the last
    /// `Position` read plus the sum of the earlier seeks' offsets).
    @Test func seeksOnAPlayerWithoutSeekedLandOnTheirTarget() throws {
        let f = try ImportFixture()
        defer { f.close() }
        try f.startRealtimeFake("realtime")
        #expect(try f.waitUntil(10) { try f.session("mpris-realtime") != nil })
        #expect(try f.npctl("play --session mpris-realtime").status == 0)
        #expect(try f.waitUntil(10) { try f.session("mpris-realtime")?["playbackState"] == "playing" })
        // Played on for a while since the Position read of that moment (the waits wake at least
        // once a second, so this is not a sleep of fixed length).
        func playerAt() throws -> Double {
            let out = try f.mpris.sh("gdbus call --session --dest org.mpris.MediaPlayer2.realtime --object-path /org/mpris/MediaPlayer2 "
                + "--method org.playerhost.Test.Now")
            return Double(out.dropFirst().prefix { $0 != "," }) ?? -1
        }
        #expect(try f.waitUntil(10) { try playerAt() >= 7 })

        let targets: [Double] = (0..<20).map { Double(($0 * 37) % 50) * 10 + 30 }
        for target in targets {
            let r = try f.client.call("command.send", ["session": "mpris-realtime", "command": "changePlaybackPosition",
                                                       "position": .double(target)])
            #expect(r["status"] == "success", "\(r)")
        }
        let out = try f.mpris.sh("gdbus call --session --dest org.mpris.MediaPlayer2.realtime --object-path /org/mpris/MediaPlayer2 "
            + "--method org.playerhost.Test.Landed")
        // "([30.0, 400.1, …],)"
        let landed = out.filter { "0123456789.,-e".contains($0) }.split(separator: ",").compactMap { Double($0) }
        try #require(landed.count == targets.count, "landed: \(out)")
        let errors = zip(landed, targets).map { abs($0 - $1) }
        let mean = errors.reduce(0, +) / Double(errors.count)
        print("import seek error over \(errors.count) seeks: max \(errors.max() ?? 0) s, mean \(mean) s, first \(errors.first ?? 0) s")
        #expect((errors.max() ?? .infinity) < 0.25, "errors: \(errors)")
        // The model heard where the seek put it.
        let elapsed = try f.client.call("session.get", ["session": "mpris-realtime"])["players"]?.arrayValue?.first?["elapsed"]?.doubleValue
        #expect(abs((elapsed ?? -1) - (targets.last ?? 0)) < 1, "elapsed \(String(describing: elapsed))")
    }

    /// `npctl -p fake open FILE` calls the imported player's own `OpenUri` with the file as a
    /// `file://` URI, silent and exit 0 as playerctl; the player's refusal is one error naming it,
    /// and a URI over 8192 bytes is refused before the player hears of it (before: the open went
    /// to `mpv.open` with the player's session id).
    @Test func openWithAPlayerCallsItsOpenUri() throws {
        let f = try ImportFixture()
        defer { f.close() }
        try f.startFake("fake")
        #expect(try f.waitUntil(10) { try f.session("mpris-fake") != nil })
        let dir = try #require(realpath(f.harness.directory, nil).map { p in defer { free(p) }; return String(cString: p) })
        _ = try runShell("touch '\(dir)/x.ogg'")
        let opened = { try f.mpris.sh("gdbus call --session --dest org.mpris.MediaPlayer2.fake --object-path /org/mpris/MediaPlayer2 "
            + "--method org.playerhost.Test.Opened") }

        let r = try f.npctl("-p fake open '\(dir)/x.ogg'")
        #expect(r == (0, ""), "\(r)")
        let got = try opened()
        #expect(got == "(['file://\(dir)/x.ogg'],)", "the URIs the player got: \(got)")

        let refused = try f.npctl("-p fake open https://example.org/refuse")
        #expect(refused.status == 1 && refused.output.contains("org.mpris.MediaPlayer2.fake refused OpenUri")
                && refused.output.contains("cannot open https://example.org/refuse"), "\(refused)")
        let long = try f.npctl("-p fake open https://example.org/" + String(repeating: "a", count: 8200))
        #expect(long.status == 1 && long.output.contains("8192-byte limit"), "\(long.output.prefix(300))")
        let unknown = try f.npctl("-p nope open https://example.org/a")
        #expect(unknown.status == 1 && unknown.output.contains("no player 'nope' (players: playerhost, fake"), "\(unknown)")
        let after = try opened()
        #expect(after == got, "nothing more reached the player: \(after)")
    }

    /// The player's Identity and DesktopEntry are kept and shown: in `session.list` and
    /// `session.get` (`appName`, `desktopEntry`), `npctl sessions` and `npctl doctor` (before,
    /// only the app id made from the Identity, `fake-player`, was anywhere to be seen).
    @Test func identityAndDesktopEntryAreShown() throws {
        let f = try ImportFixture()
        defer { f.close() }
        try f.startFake("fake")
        #expect(try f.waitUntil(10) { try f.session("mpris-fake") != nil })
        let listed = try f.session("mpris-fake")
        #expect(listed?["app"] == "fake-player")
        #expect(listed?["appName"] == "Fake Player", "\(String(describing: listed))")
        #expect(listed?["desktopEntry"] == "org.example.FakePlayer", "\(String(describing: listed))")
        let full = try f.client.call("session.get", ["session": "mpris-fake"])
        #expect(full["appName"] == "Fake Player" && full["desktopEntry"] == "org.example.FakePlayer")

        let sessions = try f.npctl("sessions")
        #expect(sessions.output.contains("fake-player (Fake Player)"), "\(sessions.output)")
        let doctor = try f.npctl("doctor mpris-fake")
        #expect(doctor.output.contains("app fake-player (Fake Player), desktop entry org.example.FakePlayer"), "\(doctor.output)")

        // host.hello takes a desktop entry of 1 to 255 bytes.
        let app = try f.harness.client()
        defer { app.close() }
        #expect(throws: (any Error).self) { try app.call("host.hello", ["name": "x", "desktopEntry": ""]) }
        #expect(throws: (any Error).self) { try app.call("host.hello", ["name": "x", "desktopEntry": .string(String(repeating: "d", count: 256))]) }
    }

    /// A peer unicasts forged `NameOwnerChanged` signals to every connection of the daemon: one
    /// says the imported player left, one that a new player appeared. Neither counts (before,
    /// sd-bus let both through and the importer acted on them).
    @Test func forgedNameOwnerChangedIsIgnored() throws {
        let f = try ImportFixture()
        defer { f.close() }
        try f.startFake("fake")
        #expect(try f.waitUntil(10) { try f.session("mpris-fake") != nil })
        let pid = try #require(f.harness.process?.pid)
        let forge = """
            import dbus
            bus = dbus.SessionBus()
            d = bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus")
            owner = d.GetNameOwner("org.mpris.MediaPlayer2.fake", dbus_interface="org.freedesktop.DBus")
            sent = 0
            for n in d.ListNames(dbus_interface="org.freedesktop.DBus"):
                if not n.startswith(":"): continue
                try: p = d.GetConnectionUnixProcessID(n, dbus_interface="org.freedesktop.DBus")
                except dbus.exceptions.DBusException: continue
                if p != \(pid): continue
                for args in (("org.mpris.MediaPlayer2.fake", owner, ""), ("org.mpris.MediaPlayer2.forged", "", ":1.9999")):
                    m = dbus.lowlevel.SignalMessage("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged")
                    m.set_destination(n)
                    m.append(*args, signature="sss")
                    bus.send_message(m)
                    sent += 1
            bus.flush()
            print(sent)
            """
        let path = f.harness.directory + "/forge.py"
        _ = try runShell("cat > '\(path)' <<'EOF'\n\(forge)\nEOF")
        let sent = try f.mpris.sh("/usr/bin/python3 '\(path)'")
        #expect((Int(sent) ?? 0) >= 2, "forged signals sent: \(sent)")

        // After the forgeries, in bus order: the player changes its title, and the session
        // (still imported) shows it; a real player that appears later is imported.
        try f.mpris.sh("gdbus call --session --dest org.mpris.MediaPlayer2.fake --object-path /org/mpris/MediaPlayer2 "
            + "--method org.playerhost.Test.Change Metadata \"<{'xesam:title': <'After'>}>\"")
        func title() throws -> JSON? {
            try f.client.call("session.get", ["session": "mpris-fake"])["players"]?.arrayValue?.first?["currentItem"]?["title"]
        }
        #expect(try f.waitUntil(10) { try f.session("mpris-fake") != nil && title() == "After" }, "\((try? f.sessionIDs()) ?? [])")
        try f.startFake("later")
        #expect(try f.waitUntil(10) { try f.session("mpris-later") != nil })
        #expect(try f.sessionIDs() == ["mpris-fake", "mpris-later"])
    }
}
