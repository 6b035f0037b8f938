import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostModel

/// A private session bus (`MPRISFixture`) with the real daemon on it and no sessions of its own,
/// a client subscribed to every topic (its events are what waits wake on), and desktop players
/// to import: real mpv with mpv-mpris, or the python3-dbus fake below.
final class ImportFixture {
    let mpris: MPRISFixture
    var harness: DaemonHarness { mpris.harness }
    let client: ControlClient
    private var pids: [Int] = []

    init(config: String = "") throws {
        mpris = try MPRISFixture(startDaemon: false)
        let path = mpris.harness.directory + "/import.toml"
        _ = try runShell("cat > '\(path)' <<'EOF'\n\(config)\nEOF")
        guard try mpris.harness.start(["--config", path], environment: mpris.environment) else {
            mpris.close()
            throw MPVFixture.Failed("playerhostd did not start")
        }
        client = try mpris.harness.client()
        try client.call("events.subscribe", ["topics": ["sessions", "players", "nowPlaying", "commands", "audio"]])
    }

    /// Checks `done` now and after each event, until it holds or `seconds` pass.
    func waitUntil(_ seconds: Double, _ done: () throws -> Bool) throws -> Bool {
        let end = ControlClient.now() + seconds
        while true {
            drainDaemonOutput()
            if try done() { return true }
            let left = end - ControlClient.now()
            guard left > 0 else { return false }
            let woke: Result<JSON, ClientError> = Result { () throws(ClientError) -> JSON in try client.nextNotification(timeout: min(left, 1)) }
            if case .failure(let e) = woke, case .timeout = e {} else { _ = try woke.get() }
        }
    }

    func session(_ id: String) throws -> JSON? {
        try client.call("session.list").arrayValue?.first { $0["id"] == .string(id) }
    }

    func sessionIDs() throws -> [String] {
        (try client.call("session.list").arrayValue ?? []).compactMap { $0["id"]?.stringValue }.sorted()
    }

    func npctl(_ args: String) throws -> (status: Int64, output: String) {
        try NpctlEndToEndTests.npctl(args, socket: harness.socketPath)
    }

    /// mpv playing a 60 s generated file (looped) on the private bus, with its own IPC socket.
    func startMPV(_ name: String, script: String) throws -> MPVHandle {
        let dir = harness.directory
        let file = dir + "/one.ogg", socket = dir + "/\(name).mpv.sock"
        if access(file, R_OK) != 0 {
            try runShell("sox -n -r 44100 -c 2 --comment 'title=Sine One' --comment 'artist=Test Artist' '\(file)' synth 60 sine 440")
        }
        let started = try mpris.sh("""
            mpv --no-config --script='\(script)' --ao=null --vo=null --really-quiet --loop-file=inf \
            --input-ipc-server='\(socket)' '\(file)' >/dev/null 2>&1 </dev/null & echo $!
            """)
        if let pid = Int(started.trimmed) { pids.append(pid) }
        // Its socket exists once it listens: connecting is the wait (bounded).
        var probe: MPVProbe?
        _ = try waitUntil(10) {
            probe = try? MPVProbe(path: socket)
            return probe != nil
        }
        let p = try #require(probe, "mpv's IPC socket")
        let pid = try #require(try p.get("pid")?.intValue)
        return MPVHandle(probe: p, pid: pid)
    }

    /// The fake player `org.mpris.MediaPlayer2.<name>` ("Fake Player", Paused, CanGoNext false;
    /// `org.playerhost.Test.Change(s, v)` changes a Player property and signals it; Stop fails;
    /// `OpenUri` keeps each URI, `org.playerhost.Test.Opened()` gives them, one with "refuse" fails).
    func startFake(_ name: String) throws {
        let path = harness.directory + "/fake.py"
        if access(path, R_OK) != 0 { _ = try runShell("cat > '\(path)' <<'EOF'\n\(Self.fakePlayer)\nEOF") }
        let started = try mpris.sh("/usr/bin/python3 '\(path)' \(name) >/dev/null 2>&1 </dev/null & echo $!")
        if let pid = Int(started.trimmed) { pids.append(pid) }
        let ok = try runShell("DBUS_SESSION_BUS_ADDRESS='\(mpris.address)' gdbus wait --session --timeout 10 org.mpris.MediaPlayer2.\(name)")
        #expect(ok.status == 0, "the fake player \(name) is on the bus")
    }

    /// The real-time fake `org.mpris.MediaPlayer2.<name>` (Strawberry, Finamp or mpd-mpris as
    /// the importer sees them): no track id, no `Seeked`; while Playing its `Position` moves on
    /// with the clock at its `Rate`, and a `Seek(offset)` moves it from where it is. Each seek's
    /// landing position is kept: `org.playerhost.Test.Landed()` gives them (seconds, in order).
    func startRealtimeFake(_ name: String) throws {
        let path = harness.directory + "/realtime.py"
        if access(path, R_OK) != 0 { _ = try runShell("cat > '\(path)' <<'EOF'\n\(Self.realtimePlayer)\nEOF") }
        let started = try mpris.sh("/usr/bin/python3 '\(path)' \(name) >/dev/null 2>&1 </dev/null & echo $!")
        if let pid = Int(started.trimmed) { pids.append(pid) }
        let ok = try runShell("DBUS_SESSION_BUS_ADDRESS='\(mpris.address)' gdbus wait --session --timeout 10 org.mpris.MediaPlayer2.\(name)")
        #expect(ok.status == 0, "the real-time fake player \(name) is on the bus")
    }

    /// A process the fixture kills when it closes.
    func track(pid: Int) { pids.append(pid) }

    /// The daemon's open file descriptors (`/proc/PID/fd`), nil when it is not running.
    func daemonFDs() -> Int? {
        guard let pid = harness.process?.pid, let dir = opendir("/proc/\(pid)/fd") else { return nil }
        defer { closedir(dir) }
        var n = 0
        while readdir(dir) != nil { n += 1 }
        return n - 2  // . and ..
    }

    /// Reads the daemon's stderr into the harness (it reads only while its loop runs): a full
    /// pipe would block the daemon's log writes, a hang of the test's making.
    func drainDaemonOutput() {
        // Without blocking: `runUntil` with a tiny deadline can sleep in epoll for good on a
        // quiet daemon (libuv 1.44 runs a timer already due before polling, then polls with no
        // timer left).
        harness.loop.run(.noWait)
    }

    /// Reads the events waiting for the fixture's client, for at most `seconds`: it is subscribed
    /// to every topic, and a storm left unread passes the daemon's 8 MiB output limit, which
    /// rightly cuts the client off as not reading.
    func drainEvents(for seconds: Double = 0.005) {
        let end = ControlClient.now() + seconds
        while ControlClient.now() < end, (try? client.nextNotification(timeout: 0.001)) != nil {}
        client.notifications.removeAll()
    }

    func close() {
        client.close()
        for pid in pids { kill(pid_t(pid), SIGKILL) }
        mpris.close()
    }

    static let fakePlayer = #"""
        import sys, dbus, dbus.service, dbus.mainloop.glib
        from gi.repository import GLib
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        bus = dbus.SessionBus()
        R, P = "org.mpris.MediaPlayer2", "org.mpris.MediaPlayer2.Player"
        class Fake(dbus.service.Object):
            def __init__(self):
                super().__init__(bus, "/org/mpris/MediaPlayer2")
                self.opened = []
                self.props = {
                    R: {"Identity": "Fake Player", "DesktopEntry": "org.example.FakePlayer", "CanQuit": False, "CanRaise": False,
                        "HasTrackList": False},
                    P: {"PlaybackStatus": "Paused", "Rate": 1.0, "MinimumRate": 0.01, "MaximumRate": 100.0,
                        "Position": dbus.Int64(5000000),
                        "Metadata": dbus.Dictionary({"mpris:trackid": dbus.ObjectPath("/fake/1"), "xesam:title": "Fake Song",
                                                     "xesam:artist": dbus.Array(["Ann", "Bob"], signature="s"),
                                                     "mpris:length": dbus.Int64(120000000)}, signature="sv"),
                        "CanGoNext": False, "CanGoPrevious": True, "CanPlay": True, "CanPause": True,
                        "CanSeek": True, "CanControl": True, "Volume": 0.8}}
            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
            def Get(self, i, p): return self.props[i][p]
            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
            def GetAll(self, i): return dbus.Dictionary(self.props.get(i, {}), signature="sv")
            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ssv")
            def Set(self, i, p, v): self.Change(p, v)
            @dbus.service.signal(dbus.PROPERTIES_IFACE, signature="sa{sv}as")
            def PropertiesChanged(self, i, c, inv): pass
            @dbus.service.method(P)
            def Play(self): self.Change("PlaybackStatus", "Playing")
            @dbus.service.method(P)
            def Pause(self): self.Change("PlaybackStatus", "Paused")
            @dbus.service.method(P)
            def Stop(self): raise dbus.exceptions.DBusException("refused", name="org.mpris.MediaPlayer2.Error.Refused")
            @dbus.service.method(P, in_signature="s")
            def OpenUri(self, uri):
                if "refuse" in uri: raise dbus.exceptions.DBusException("cannot open " + uri, name="org.mpris.MediaPlayer2.Error.Refused")
                self.opened.append(uri)
            @dbus.service.method("org.playerhost.Test", out_signature="as")
            def Opened(self): return dbus.Array(self.opened, signature="s")
            @dbus.service.method("org.playerhost.Test", in_signature="sv")
            def Change(self, p, v):
                self.props[P][p] = v
                self.PropertiesChanged(P, dbus.Dictionary({p: v}, signature="sv"), dbus.Array([], signature="s"))
        f = Fake()
        name = dbus.service.BusName("org.mpris.MediaPlayer2." + sys.argv[1], bus)
        GLib.MainLoop().run()
        """#

    static let realtimePlayer = #"""
        import sys, time, dbus, dbus.service, dbus.mainloop.glib
        from gi.repository import GLib
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        bus = dbus.SessionBus()
        R, P = "org.mpris.MediaPlayer2", "org.mpris.MediaPlayer2.Player"
        class Realtime(dbus.service.Object):
            def __init__(self):
                super().__init__(bus, "/org/mpris/MediaPlayer2")
                self.base, self.since, self.landed = 5.0, time.monotonic(), []
                self.props = {
                    R: {"Identity": "Realtime Player", "CanQuit": False, "CanRaise": False, "HasTrackList": False},
                    P: {"PlaybackStatus": "Paused", "Rate": 1.0, "MinimumRate": 1.0, "MaximumRate": 1.0,
                        "Metadata": dbus.Dictionary({"xesam:title": "Endless", "mpris:length": dbus.Int64(3600000000)}, signature="sv"),
                        "CanGoNext": False, "CanGoPrevious": False, "CanPlay": True, "CanPause": True,
                        "CanSeek": True, "CanControl": True}}
            def now(self):
                playing = self.props[P]["PlaybackStatus"] == "Playing"
                return self.base + ((time.monotonic() - self.since) * self.props[P]["Rate"] if playing else 0)
            def prop(self, i, p):
                return dbus.Int64(int(self.now() * 1e6)) if (i, p) == (P, "Position") else self.props[i][p]
            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
            def Get(self, i, p): return self.prop(i, p)
            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
            def GetAll(self, i):
                d = dict(self.props.get(i, {}))
                if i == P: d["Position"] = self.prop(P, "Position")
                return dbus.Dictionary(d, signature="sv")
            @dbus.service.signal(dbus.PROPERTIES_IFACE, signature="sa{sv}as")
            def PropertiesChanged(self, i, c, inv): pass
            def status(self, s):
                self.base, self.since = self.now(), time.monotonic()
                self.props[P]["PlaybackStatus"] = s
                self.PropertiesChanged(P, dbus.Dictionary({"PlaybackStatus": s}, signature="sv"), dbus.Array([], signature="s"))
            @dbus.service.method(P)
            def Play(self): self.status("Playing")
            @dbus.service.method(P)
            def Pause(self): self.status("Paused")
            @dbus.service.method(P, in_signature="x")
            def Seek(self, offset):
                self.base, self.since = max(0.0, self.now() + offset / 1e6), time.monotonic()
                self.landed.append(self.base)
            @dbus.service.method("org.playerhost.Test", out_signature="ad")
            def Landed(self): return dbus.Array(self.landed, signature="d")
            @dbus.service.method("org.playerhost.Test", out_signature="d")
            def Now(self): return self.now()
        f = Realtime()
        name = dbus.service.BusName("org.mpris.MediaPlayer2." + sys.argv[1], bus)
        GLib.MainLoop().run()
        """#
}

/// An mpv started by the fixture: its IPC probe and pid.
final class MPVHandle {
    let probe: MPVProbe
    let pid: Int

    init(probe: MPVProbe, pid: Int) {
        self.probe = probe
        self.pid = pid
    }

    func get(_ property: String) throws -> JSON? { try probe.get(property) }
    func number(_ property: String) throws -> Double { try probe.number(property) }

    /// SIGTERM: mpv quits, and its bus name goes with its connection.
    func quit() throws {
        kill(pid_t(pid), SIGTERM)
    }
}
