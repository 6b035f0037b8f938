import Testing
@testable import PlayerHost
@testable import PlayerHostHost

/// Issue 22 item 8: `host.doctor` tells the whole story — MPRIS off and why, a failed plugin's
/// last stderr lines, a missing artwork helper — each fix a command line. (`npctl doctor` of an
/// install without its helper, against the real daemon: `DaemonEndToEndTests`.)
@Suite struct HostDoctorTests {
    func tail(_ text: String, lines: Int = 20, bytes: Int = 4096) -> OutputTail {
        var t = OutputTail(maxLines: lines, maxBytes: bytes)
        t.append(text)
        return t
    }

    @Test func theTailKeepsTheLastLinesWithinItsBounds() {
        #expect(tail("one\ntwo\nthr").lines == ["one", "two", "thr"], "an unfinished last line is shown")
        #expect(tail("a\r\nb\n").lines == ["a", "b"])
        let many = (1...100).map { "line \($0)" }.joined(separator: "\n") + "\n"
        #expect(tail(many).lines == (81...100).map { "line \($0)" }, "the last 20 lines")
        let wide = tail(String(repeating: "x", count: 3000) + "\n" + String(repeating: "y", count: 3000) + "\nend\n")
        #expect(wide.lines == [String(repeating: "y", count: 3000), "end"], "within 4 KiB: the older wide line goes")
        let endless = tail(String(repeating: "z", count: 100_000), bytes: 100)
        #expect(endless.lines == [String(repeating: "z", count: 100)], "an endless line keeps its end")
        // Fed in chunks the same as at once.
        var chunked = OutputTail()
        for piece in ["Trace", "back (most recent call last):\n  File \"r", "adio.py\"\nValueError: x\n"] { chunked.append(piece) }
        #expect(chunked.lines == ["Traceback (most recent call last):", "  File \"radio.py\"", "ValueError: x"])
        #expect(chunked.totalBytes == 67)
    }

    @Test func mprisOffSaysWhyAndHowToFixIt() {
        let disabled = HostDaemon.mprisFaults(status: .disabled, configPath: "/home/u/.config/playerhost/playerhost.toml")
        #expect(disabled.map(\.code) == ["mprisDisabled"])
        #expect(disabled.first?.message.hasPrefix("MPRIS is off: [mpris] enabled = false in the config") == true)
        #expect(disabled.first?.fix == "remove `enabled = false` from [mpris] in /home/u/.config/playerhost/playerhost.toml, then: npctl daemon stop && npctl daemon start -- --config /home/u/.config/playerhost/playerhost.toml")
        let noBus = HostDaemon.mprisFaults(status: .noSessionBus, configPath: nil)
        #expect(noBus.first?.message.hasPrefix("MPRIS is off: the daemon found no session bus") == true)
        #expect(noBus.first?.fix.contains("systemctl --user restart playerhostd") == true)
        let taken = HostDaemon.mprisFaults(status: .queued, configPath: nil)
        #expect(taken.first?.message.hasPrefix("MPRIS is off: another process owns org.mpris.MediaPlayer2.playerhost") == true)
        #expect(taken.first?.fix.hasPrefix("see who owns it: busctl --user status org.mpris.MediaPlayer2.playerhost") == true)
        #expect(HostDaemon.mprisFaults(status: .active, configPath: nil).isEmpty)
    }

    @Test func aMissingArtworkHelperIsAFault() {
        let missing = HostDaemon.artworkHelperFaults(executable: "/nonexistent/bin/playerhost-artwork")
        #expect(missing.map(\.code) == ["artworkHelperMissing"])
        #expect(missing.first?.severity == .error)
        #expect(missing.first?.message == "the artwork helper cannot start: /nonexistent/bin/playerhost-artwork is missing or not executable, so no cover is shown")
        #expect(missing.first?.fix.contains("scripts/install.sh") == true)
        #expect(HostDaemon.artworkHelperFaults(executable: "/bin/sh").isEmpty, "an executable is fine")
    }
}
