import Glibc
import Testing
@testable import PlayerHost

/// npctl as a drop-in for playerctl (issue 23), checked against the real thing: a private bus,
/// the real daemon exporting its MPRIS player with one session, and a corpus of playerctl
/// command lines run as `playerctl …` and as `npctl …` on that same player. Stdout, exit code
/// and the first line of stderr must be equal. Two daemon starts; the states are no daemon
/// (nothing on the bus), a daemon with no session (the exported player, Stopped), playing, and
/// paused (where positions hold still, so they compare byte for byte). Each state's lines run
/// as one shell script under a deadline.
@Suite(.serialized) struct PlayerctlDifferentialTests {
    /// Lines that only read: run while playing and while paused.
    static let reads: [String] = [
        "status", "-p playerhost status", "--player=playerhost status", "-p %any status", "-p nope,playerhost status",
        "-p nope status", "-i playerhost status", "-i nope status", "-a status", "-s -p nope status", "status -s -p nope",
        "-l", "-l -p playerhost", "-l -i playerhost", "-s -l -i playerhost",
        "metadata", "metadata title", "metadata artist", "metadata album", "metadata xesam:title", "metadata xesam:artist",
        "metadata mpris:length", "metadata mpris:trackid", "metadata xesam:url", "metadata --format '{{xesam:url}}'",
        "metadata mpris:artUrl", "metadata title artist", "metadata nope", "-s metadata nope",
        "metadata --format '{{artist}} - {{title}}'", "-f '{{title}}' metadata", "metadata -f '{{uc(title)}} {{lc(artist)}}'",
        "metadata --format '{{duration(mpris:length)}}'", "metadata --format '{{markup_escape(\"a<b>&c'\\''d\")}}'",
        "metadata --format '{{default(xesam:comment, \"none\")}}'", "metadata --format '{{default(album, \"-\")}}'",
        "metadata --format '{{emoji(status)}}'", "metadata --format '{{trunc(title, 2)}}'", "metadata --format '{{trunc(title, 20)}}'",
        "metadata --format '{{mpris:length / 1000000}}'", "metadata --format '{{mpris:length * 2 - 1}}'",
        "metadata --format '{{(1 + 2) * 3}}'", "metadata --format '{{-mpris:length}}'", "metadata --format '{{1 + 2 * 3 - 4 / 8}}'",
        "metadata --format '{{playerName}} {{playerInstance}}'", "metadata --format '{{status}} {{loop}} {{shuffle}} {{volume}}'",
        "metadata --format '{{emoji(volume)}}'", "metadata --format '{{1 / 0}}'", "metadata --format '{{uc(title, artist)}}'",
        "metadata --format '{{nope(title)}}'", "metadata --format '{{title'", "metadata --format 'plain text'",
        "metadata --format '{{ title }}'", "metadata --format '{{\"lit\"}}'", "metadata --format '{{title + 1}}'",
        "metadata --format '{{emoji(\"x\")}}'", "metadata --format '{{xesam:artist}} {{mpris:artUrl}}'",
        "-p playerhost -f '{{title}}' metadata", "-p playerhost,%any metadata title", "-a metadata title",
        "status --format '{{status}} {{title}}'", "status -f '{{emoji(status)}}'", "loop", "shuffle",
        "loop --format '{{loop}}'", "shuffle -f '{{shuffle}}'", "volume", "volume --format '{{volume}}'",
        "play --format x", "-F play", "position abc", "loop bogus", "shuffle bogus", "volume abc",
    ]
    /// Lines whose output is a position: only while paused.
    static let pausedReads: [String] = [
        "position", "-p playerhost position", "position --format '{{position}}'", "position -f '{{duration(position)}}'",
        "metadata --format '{{duration(position)}} / {{duration(mpris:length)}}'", "status --format '{{position / 1000000}}'",
    ]
    /// Lines that change the player, then read what they changed, in order (paused).
    static let changes: [String] = [
        "loop Track", "loop", "loop playlist", "loop", "loop None", "loop",
        "shuffle On", "shuffle", "shuffle toggle", "shuffle", "shuffle Off", "shuffle",
        "position 30", "position", "position 5+", "position", "position 5-", "position",
        "next", "next", "metadata title", "previous", "previous", "metadata title",
        "play", "status", "pause", "status", "play-pause", "status", "play-pause", "status",
        "volume 0.5", "volume", "volume 0.1+", "volume --format '{{emoji(volume)}}'", "-a pause", "-a status",
        "-p %any,playerhost play", "status", "stop", "status", "metadata title", "position", "play", "status",
    ]
    /// Nothing on the bus: every verb says so.
    static let nothing: [String] = [
        "status", "metadata", "metadata title", "position", "loop", "shuffle", "volume", "play", "pause", "next",
        "-l", "-s status", "-a status", "-p playerhost status", "metadata --format '{{title}}'",
        "-p %any status", "-l -i playerhost", "status --format '{{status}} {{position}}'", "metadata title",
        "position --format '{{duration(position)}}'", "-s metadata", "volume 0.5",
    ]

    struct Outcome: Equatable {
        var stdout: String
        var firstStderrLine: String
        var status: String
    }

    /// Runs every line as playerctl then npctl, in order; their outcomes.
    static func run(_ lines: [String], _ f: MPRISFixture) throws -> [(String, Outcome, Outcome)] {
        var script = "D=$(mktemp -d); export PLAYERHOST_SOCKET='\(f.harness.socketPath)' DBUS_SESSION_BUS_ADDRESS='\(f.address)'\n"
        for (i, line) in lines.enumerated() {
            for (tag, tool) in [("p", "playerctl"), ("n", DaemonHarness.npctl)] {
                script += "timeout 10 '\(tool)' \(line) >\"$D/o\" 2>\"$D/e\"; r=$?; printf '\\036%s\\037%s\\037' \(i) \(tag); cat \"$D/o\"; printf '\\037'; head -n1 \"$D/e\" | tr -d '\\n'; printf '\\037%s' $r\n"
            }
        }
        script += "rm -rf \"$D\"\n"
        let path = f.harness.directory + "/corpus.sh"
        _ = try runShell("cat > '\(path)' <<'CORPUS_EOF'\n\(script)CORPUS_EOF")
        let out = try runShell("sh '\(path)'", deadline: 120).output
        var byLine: [Int: [String: Outcome]] = [:]
        for record in out.split(separator: "\u{1E}", omittingEmptySubsequences: true) {
            let fields = record.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 5, let i = Int(fields[0]) else { continue }
            byLine[i, default: [:]][fields[1]] = Outcome(stdout: fields[2], firstStderrLine: fields[3], status: fields[4])
        }
        return lines.enumerated().map { i, line in
            let missing = Outcome(stdout: "", firstStderrLine: "(not run)", status: "?")
            return (line, byLine[i]?["p"] ?? missing, byLine[i]?["n"] ?? missing)
        }
    }

    @Test func npctlPrintsWhatPlayerctlPrintsOnItsCommandLines() throws {
        let f = try MPRISFixture(startDaemon: false)
        defer { f.close() }
        var results = try Self.run(Self.nothing, f)
        // A daemon with no session: the exported player is there, Stopped, with no track.
        let empty = f.harness.directory + "/empty.toml"
        _ = try runShell("touch '\(empty)'")
        #expect(try f.harness.start(["--config", empty], environment: f.environment))
        #expect(try f.waitForName())
        results += try Self.run(Self.nothing, f)
        f.harness.stop()
        #expect(try f.harness.start(["--config", Self.config(f)], environment: f.environment))
        #expect(try f.waitForName())
        results += try Self.run(Self.reads.map { $0 }, f)
        // Paused at 12.5 s: positions hold still and compare byte for byte.
        _ = try runShell("PLAYERHOST_SOCKET='\(f.harness.socketPath)' '\(DaemonHarness.npctl)' pause && PLAYERHOST_SOCKET='\(f.harness.socketPath)' '\(DaemonHarness.npctl)' position 12.5")
        results += try Self.run(Self.reads + Self.pausedReads + Self.changes, f)

        // Issue 22 item 9: the URL is a URI (a bare path before), the same on both sides.
        let url = results.filter { $0.0 == "metadata xesam:url" }
        #expect(!url.isEmpty && url.allSatisfy { $0.1.stdout == "file:///music/Ann/Alpha%20%26%20%3COmega%3E%20%231.flac\n" },
                "\(url.map(\.1))")

        let differing = results.filter { $0.1 != $0.2 }
        for (line, p, n) in differing {
            Issue.record("differs: \(line)\n  playerctl: \(p)\n  npctl:     \(n)")
        }
        print("playerctl differential: \(results.count) command lines (\(Set(results.map(\.0)).count) distinct), \(differing.count) differ")
        #expect(results.count >= 60)
        #expect(differing.isEmpty)
    }

    /// An imported MPRIS player is named as playerctl names it: `npctl -l` lists it beside
    /// `playerhost`, `-p fake` (and `%any`, `-i`) select it, and what it prints for it is what
    /// playerctl prints reading the player itself. An unknown name lists what exists.
    @Test func importedPlayersGoByTheirMPRISNames() throws {
        let f = try ImportFixture()
        defer { f.close() }
        try f.startFake("fake")
        #expect(try f.waitUntil(10) { try f.sessionIDs() == ["mpris-fake"] })
        #expect(try f.mpris.waitForName())
        #expect(try f.npctl("-l").output == "playerhost\nfake\n")
        let lines = ["-p fake status", "-p fake metadata title", "-p fake metadata artist", "-p fake,playerhost status",
                     "-p fake loop", "-p fake -f '{{playerName}} {{status}}' status", "-l -i fake", "-l -p fake",
                     "-i fake -p %any status", "-p nope,fake status", "-s -p nope status", "-l"]
        for (line, p, n) in try Self.run(lines, f.mpris) {
            if line == "-l" {
                // playerctl lists in the bus's order; npctl the export first: the same names.
                #expect(Set(p.stdout.split(separator: "\n")) == Set(n.stdout.split(separator: "\n")), "\(p) \(n)")
            } else {
                #expect(p == n, "\(line)")
            }
        }
        #expect(try f.npctl("-p fak status") == (1, "No players found\nnpctl: no player 'fak' (players: playerhost, fake; did you mean 'fake'?)\n"))
        #expect(try f.npctl("--session mpris-fak status")
            == (1, "No players found\nnpctl: no session 'mpris-fak' (sessions: mpris-fake; did you mean 'mpris-fake'?)\n"))
        #expect(try f.npctl("--session mpris-fake status") == (0, "Paused\n"))
        // --follow on an imported player names it as playerctl does.
        let script = """
            coproc F { exec timeout 20 "$N" -p fake metadata --follow --format "{{playerName}}: {{title}} {{status}}"; }
            read -r -t 20 a <&"${F[0]}"; kill "$F_PID"; wait "$F_PID"; echo "$a"
            """
        let followed = try runShell("PLAYERHOST_SOCKET='\(f.harness.socketPath)' N='\(DaemonHarness.npctl)' bash -c '\(script)'")
        #expect(followed.output == "fake: Fake Song Paused\n")
    }

    /// `--follow` lines, side by side (`NpctlFollowEndToEndTests.follow`): each follower's first
    /// line, then the line after each change (`$N` is npctl), on the exported player paused at 12.5 s.
    static let follows: [(String, [String])] = [
        ("status -F", ["\"$N\" play", "\"$N\" position 40; \"$N\" pause"]),
        ("-a -F status", ["\"$N\" play", "\"$N\" pause"]),
        ("position -F", ["\"$N\" position 30", "\"$N\" play; \"$N\" pause; \"$N\" position 5-"]),
        ("-F position -f '{{duration(position)}}'", ["\"$N\" position 61"]),
        ("-p playerhost metadata title -F", ["\"$N\" next", "\"$N\" previous"]),
        ("metadata -F -f '{{artist}}: {{title}} {{status}}'", ["\"$N\" next", "\"$N\" play"]),
        ("loop -F", ["\"$N\" loop Track", "\"$N\" loop None"]),
        ("-F shuffle", ["\"$N\" shuffle On", "\"$N\" shuffle Off"]),
        ("volume -F", ["\"$N\" volume 0.5", "\"$N\" volume 0.25"]),
        ("volume -F -f '{{emoji(volume)}} {{status}}'", ["\"$N\" volume 0.9", "\"$N\" play"]),
    ]

    @Test func followPrintsWhatPlayerctlFollowPrints() throws {
        var lines = 0
        var differing = 0
        for (args, steps) in Self.follows {
            // A fresh daemon each: a follow's changes are not the next one's start.
            let f = try NpctlFollowEndToEndTests.pausedPlayer()
            defer { f.close() }
            let (p, n) = try NpctlFollowEndToEndTests.follow(args, steps: steps, bus: f.address, socket: f.harness.socketPath,
                                                             directory: f.harness.directory)
            lines += p.count
            differing += zip(p, n).filter { $0 != $1 }.count + abs(p.count - n.count)
            #expect(p.count == steps.count + 1, "\(args): playerctl \(p)")
            #expect(n == p, "\(args)\n  playerctl: \(p)\n  npctl:     \(n)")
        }
        print("playerctl --follow differential: \(Self.follows.count) command lines, \(lines) lines, \(differing) differ")
        #expect(differing == 0)
    }

    static func config(_ f: MPRISFixture) throws -> String {
        let path = f.harness.directory + "/corpus.toml"
        _ = try runShell("""
            cat > '\(path)' <<'EOF'
            [[session]]
            id = "main"
            kind = "main"
            category = "playback"
            activate = true
            bind_defaults = true
            autoplay = true
            [[session.item]]
            title = "Alpha & <Omega>"
            artist = "Ann"
            album = "First"
            duration = 100
            url = "/music/Ann/Alpha & <Omega> #1.flac"
            [[session.item]]
            title = "Beta"
            artist = "Bob"
            duration = 4000
            [[session.item]]
            title = "Gamma"
            artist = "Cy"
            duration = 300
            EOF
            """)
        return path
    }
}
