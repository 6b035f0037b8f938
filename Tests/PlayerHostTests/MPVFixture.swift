import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import Plugins

/// A real daemon (its built-in mpv plugin finds mpv in PATH), two tagged audio files made with
/// sox in the daemon's temporary directory, a client, npctl, and mpv's own IPC to read back.
final class MPVFixture {
    /// mpv plays, sox makes the files: without either the suite is skipped (with a message).
    static let toolsAvailable: Bool = {
        let path = getenv("PATH").map { String(cString: $0) }
        return MPVOptions.locate("mpv", path: path) != nil && MPVOptions.locate("sox", path: path) != nil
    }()

    let daemon: DaemonHarness
    let client: ControlClient
    /// 60 s, tagged Sine One / Test Artist / Test Album.
    let one: String
    /// 30 s, tagged Sine Two / Test Artist.
    let two: String

    struct Failed: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    /// `environment` replaces the daemon's (nil: inherited); `arguments` go to playerhostd
    /// (`--config examples/demo.toml` for the demo's sessions). `pinNullOutput: false` leaves
    /// mpv its default output (the audible-by-default test, with an audio server of its own).
    init(environment: [String: String]? = nil, arguments: [String] = [], pinNullOutput: Bool = true) throws {
        daemon = try DaemonHarness()
        one = daemon.directory + "/one.ogg"
        two = daemon.directory + "/two.ogg"
        let made = try runShell("""
            sox -n -r 44100 -c 2 --comment 'title=Sine One' --comment 'artist=Test Artist' --comment 'album=Test Album' '\(one)' synth 60 sine 440 && \
            sox -n -r 44100 -c 2 --comment 'title=Sine Two' --comment 'artist=Test Artist' '\(two)' synth 30 sine 660 && echo ok
            """)
        guard made.output.contains("ok") else {
            daemon.close()
            throw Failed("sox could not make the test files")
        }
        // The null output, pinned: mpv's default is the machine's audio (then null), and these
        // tests must behave the same on any machine and play nothing aloud.
        var env = environment ?? daemon.isolatedEnvironment
        if pinNullOutput { env["PLAYERHOST_MPV_AO"] = "null" }
        guard try daemon.start(arguments, environment: env) else {
            daemon.close()
            throw Failed("playerhostd did not start: \(daemon.stderrText)")
        }
        client = try daemon.client()
    }

    /// Stops the daemon (which stops its mpv) and removes the directory.
    func close() {
        client.close()
        _ = daemon.stop()
        #expect(!daemon.stderrText.contains("gave up"), "\(daemon.stderrText)")
        daemon.close()
    }

    /// `npctl ARGS` against this daemon, stdout and stderr merged, with a deadline.
    func npctl(_ args: String) throws -> (status: Int64, output: String) {
        try NpctlEndToEndTests.npctl(args, socket: daemon.socketPath)
    }

    /// The Now Playing elapsed as a reader computes it now.
    func elapsed() throws -> Double {
        try #require(try client.call("nowPlaying.get")["info"]?["elapsed"]?.doubleValue)
    }

    /// mpv's IPC socket (from `mpv.status`) opened for reading back.
    func probe(session: String? = nil) throws -> MPVProbe {
        let socket = try #require(try client.call("mpv.status", session.map { ["session": .string($0)] } ?? [:])["socket"]?.stringValue)
        return try MPVProbe(path: socket)
    }

    /// Reads events until none comes for half a second (what subscribing and earlier key
    /// moments sent), at most 20.
    func drain(_ c: ControlClient) throws {
        for _ in 0..<20 {
            do { _ = try c.nextNotification(timeout: 0.5) } catch ClientError.timeout(_) { return }
        }
        throw Failed("events kept coming")
    }

    /// Waits for a `playerChanged` event of the mpv session whose player matches.
    @discardableResult
    func waitForPlayer(_ c: ControlClient, session: String = "mpv", deadline seconds: Double, _ match: (JSON) -> Bool) throws -> JSON {
        let end = ControlClient.now() + seconds
        while true {
            let left = end - ControlClient.now()
            guard left > 0 else { throw Failed("no matching playerChanged event within \(seconds) s") }
            let e = try c.nextNotification(timeout: left)
            if let p = e["params"], p["type"] == "playerChanged", p["session"] == .string(session), let player = p["player"], match(player) {
                return player
            }
        }
    }
}

/// A blocking client of mpv's JSON IPC, for reading mpv's real state in tests.
final class MPVProbe {
    private let connection: ControlClient
    private var nextID: Int64 = 1

    init(path: String) throws {
        connection = try ControlClient(path: path, timeout: 5)
    }

    /// `get_property`; nil when mpv says the property is unavailable.
    func get(_ property: String) throws -> JSON? {
        let id = nextID
        nextID += 1
        var line = JSON.object(["command": ["get_property", .string(property)], "request_id": .int(id)]).serialized()
        line.append(0x0A)
        try connection.send(line)
        while true {
            let m = try connection.readMessage()
            guard m["request_id"] == .int(id) else { continue }  // events and other replies
            return m["error"] == "success" ? m["data"] : nil
        }
    }

    /// `set_property`, as a user at mpv's own controls would; true if mpv took it.
    @discardableResult
    func set(_ property: String, _ value: JSON) throws -> Bool {
        let id = nextID
        nextID += 1
        var line = JSON.object(["command": ["set_property", .string(property), value], "request_id": .int(id)]).serialized()
        line.append(0x0A)
        try connection.send(line)
        while true {
            let m = try connection.readMessage()
            if m["request_id"] == .int(id) { return m["error"] == "success" }
        }
    }

    /// The next message mpv sends (an event), within the probe's timeout.
    func readMessage() throws -> JSON { try connection.readMessage() }

    func number(_ property: String) throws -> Double {
        try #require(try get(property)?.doubleValue, "mpv's \(property)")
    }
}
