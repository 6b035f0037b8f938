import Glibc
import Testing
@testable import PlayerHost

/// One python3-dbus process of hostile MPRIS players on the fixture's private bus (issue 21):
/// each player on a connection of its own (so the importer sees separate owners), driven over
/// `org.playerhost.Hostile` on `/hostile`: `Spawn(name, status)`, `Drop(name)`, `Set(name,
/// property, value)`, `Churn(name, n)` (claims and releases a name `n` times, half of them right
/// after answering the importer's `GetAll`, then replies), `Fuzz(seed, seconds, names)` (a seeded
/// storm of wrong types, huge and nested values, floods of `PropertiesChanged`, extreme `Seeked`,
/// unanswered calls and churn over `names` names; replies with a summary) and `DropAll()`.
final class HostilePlayers {
    let fixture: ImportFixture
    let log: String

    init(_ fixture: ImportFixture) throws {
        self.fixture = fixture
        let dir = fixture.harness.directory
        let path = dir + "/hostile.py"
        log = dir + "/hostile.log"
        _ = try runShell("cat > '\(path)' <<'EOF'\n\(Self.script)\nEOF")
        let started = try fixture.mpris.sh("/usr/bin/python3 '\(path)' >'\(log)' 2>&1 </dev/null & echo $!")
        if let pid = Int(started.trimmed) { fixture.track(pid: pid) }
        let ok = try runShell("DBUS_SESSION_BUS_ADDRESS='\(fixture.mpris.address)' gdbus wait --session --timeout 10 org.playerhost.Hostile")
        let output = (try? runShell("cat '\(log)'").output) ?? ""
        #expect(ok.status == 0, "the hostile players' control name is on the bus: \(output)")
    }

    /// Calls a control method with gdbus arguments (GVariant text); returns gdbus's output.
    @discardableResult
    func call(_ method: String, _ args: String = "", timeout: Int = 30) throws -> String {
        try fixture.mpris.sh("gdbus call --session --timeout \(timeout) --dest org.playerhost.Hostile --object-path /hostile "
            + "--method org.playerhost.Hostile.\(method) \(args)", timeout: timeout + 5)
    }

    /// Starts a control call without waiting for its reply.
    func start(_ method: String, _ args: String, timeout: Int) throws {
        _ = try fixture.mpris.sh("gdbus call --session --timeout \(timeout) --dest org.playerhost.Hostile --object-path /hostile "
            + "--method org.playerhost.Hostile.\(method) \(args) >>'\(log)' 2>&1 </dev/null &")
    }

    static let script = #"""
        import os, random, dbus, dbus.bus, dbus.service, dbus.mainloop.glib
        from gi.repository import GLib
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        ADDR = os.environ["DBUS_SESSION_BUS_ADDRESS"]
        R, P, PFX, PATH = "org.mpris.MediaPlayer2", "org.mpris.MediaPlayer2.Player", "org.mpris.MediaPlayer2.", "/org/mpris/MediaPlayer2"
        I64MIN, I64MAX = -2**63, 2**63 - 1

        class Player(dbus.service.Object):
            def __init__(self, conn, name, status):
                super().__init__(conn, PATH)
                self.silent = False
                self.on_getall = None
                self.props = {R: {"Identity": "Hostile " + name, "CanQuit": False, "CanRaise": False, "HasTrackList": False},
                              P: {"PlaybackStatus": status, "Rate": 1.0, "Position": dbus.Int64(0),
                                  "Metadata": dbus.Dictionary({"xesam:title": name, "mpris:length": dbus.Int64(60000000)}, signature="sv"),
                                  "CanPlay": True, "CanPause": True, "CanSeek": True, "CanControl": True}}
            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v", async_callbacks=("ok", "err"))
            def Get(self, i, p, ok, err):
                if self.silent: return
                v = self.props.get(i, {}).get(p)
                if v is None: return err(dbus.exceptions.DBusException("no " + p, name="org.freedesktop.DBus.Error.InvalidArgs"))
                try: ok(v)
                except Exception as e: err(dbus.exceptions.DBusException(str(e)))
            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}", async_callbacks=("ok", "err"))
            def GetAll(self, i, ok, err):
                if self.silent: return
                try: ok(dbus.Dictionary(self.props.get(i, {}), signature="sv"))
                except Exception as e: err(dbus.exceptions.DBusException(str(e)))
                if i == P and self.on_getall:
                    cb, self.on_getall = self.on_getall, None
                    GLib.idle_add(cb)
            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ssv")
            def Set(self, i, p, v): self.props.setdefault(i, {})[p] = v
            @dbus.service.signal(dbus.PROPERTIES_IFACE, signature="sa{sv}as")
            def PropertiesChanged(self, i, c, inv): pass
            @dbus.service.signal(P, signature="x")
            def Seeked(self, x): pass
            @dbus.service.method(P)
            def Play(self): self.change("PlaybackStatus", "Playing")
            @dbus.service.method(P)
            def Pause(self): self.change("PlaybackStatus", "Paused")
            @dbus.service.method(P)
            def PlayPause(self): pass
            @dbus.service.method(P)
            def Stop(self): pass
            @dbus.service.method(P)
            def Next(self): pass
            @dbus.service.method(P)
            def Previous(self): pass
            @dbus.service.method(P, in_signature="x")
            def Seek(self, x): pass
            @dbus.service.method(P, in_signature="ox")
            def SetPosition(self, t, x): pass
            def change(self, p, v, inv=()):
                self.props[P][p] = v
                self.PropertiesChanged(P, dbus.Dictionary({p: v}, signature="sv"), dbus.Array(list(inv), signature="s"))

        players = {}
        def spawn(name, status):
            if name in players: return
            conn = dbus.bus.BusConnection(ADDR)
            p = Player(conn, name, status)
            conn.request_name(PFX + name, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
            players[name] = (conn, p)
        def drop(name):
            e = players.pop(name, None)
            if not e: return
            try: e[1].remove_from_connection()
            except Exception: pass
            e[0].close()

        def hostile(r, depth=0):
            k = r.randint(0, 16)
            if k == 0: return dbus.String("é" * r.choice([1, 3000, 100000, 524288]))
            if k == 1: return dbus.Int64(r.choice([I64MIN, I64MAX, -1, 0, 10**15 + 1]))
            if k == 2: return dbus.UInt64(r.choice([0, 2**64 - 1, 2**63]))
            if k == 3: return dbus.Double(r.choice([1e300, -1e300, float("inf"), float("-inf"), float("nan"), -0.0, 5e-324]))
            if k == 4: return dbus.Boolean(r.random() < 0.5)
            if k == 5: return dbus.Array(["a" * r.randint(0, 50)] * r.choice([0, 10, 5000, 100000]), signature="s")
            if k == 6 and depth < 2:
                v = dbus.String("deep")
                for _ in range(r.randint(1, 28)): v = dbus.Dictionary({"k": v}, signature="sv")
                return v
            if k == 7: return dbus.Array([dbus.Int32(i) for i in range(r.choice([1, 1000]))], signature="i")
            if k == 8: return dbus.Struct((dbus.Int32(1), dbus.String("s")), signature="is")
            if k == 9: return dbus.Dictionary({dbus.Int32(1): dbus.String("x")}, signature="is")
            if k == 10: return dbus.ObjectPath(r.choice(["/", "/a/b", "/" + "x" * 5000]))
            if k == 11: return dbus.Byte(r.randint(0, 255))
            if k == 12 and depth < 2: return metadata(r, depth + 1)
            if k == 13: return dbus.String(r.choice(["Playing", "Paused", "Stopped", "", "Track", "Playlist"]))
            return dbus.Double(r.choice([0.5, 1.0, 2.0, 1000.0, 1000.5]))

        def metadata(r, depth=0):
            d = {}
            for key in r.sample(["mpris:trackid", "xesam:title", "xesam:artist", "xesam:album", "mpris:length", "mpris:artUrl", "xesam:url", "x:other"], r.randint(0, 8)):
                d[key] = hostile(r, depth)
            if r.random() < 0.05:
                for i in range(r.choice([100, 3000])): d["x:k%d" % i] = dbus.Int32(i)
            return dbus.Dictionary(d, signature="sv")

        KEYS = ["PlaybackStatus", "Rate", "Position", "Metadata", "LoopStatus", "Shuffle", "CanSeek", "CanControl", "CanGoNext", "Volume", "MadeUp"]
        def changes(r):
            d = {}
            for key in r.sample(KEYS, r.randint(1, 5)):
                d[key] = metadata(r) if key == "Metadata" and r.random() < 0.6 else hostile(r)
            return d

        class Control(dbus.service.Object):
            @dbus.service.method("org.playerhost.Hostile", in_signature="ss")
            def Spawn(self, name, status): spawn(name, status)
            @dbus.service.method("org.playerhost.Hostile", in_signature="s")
            def Drop(self, name): drop(name)
            @dbus.service.method("org.playerhost.Hostile")
            def DropAll(self):
                for name in list(players): drop(name)
            @dbus.service.method("org.playerhost.Hostile", in_signature="ssv")
            def Set(self, name, prop, value): players[name][1].change(prop, value)
            @dbus.service.method("org.playerhost.Hostile", in_signature="si", async_callbacks=("ok", "err"))
            def Churn(self, name, n, ok, err):
                conn = dbus.bus.BusConnection(ADDR)
                p = Player(conn, name, "Paused")
                rnd = random.Random(n)
                cur = {"k": 0, "held": False, "left": n}
                def release(k):
                    if cur["k"] != k or not cur["held"]: return False
                    cur["held"] = False
                    conn.release_name(PFX + name)
                    GLib.idle_add(step)
                    return False
                def step():
                    if cur["left"] == 0:
                        p.remove_from_connection(); conn.close(); ok(); return False
                    cur["left"] -= 1
                    cur["k"] += 1
                    k = cur["k"]
                    cur["held"] = True
                    conn.request_name(PFX + name, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
                    if rnd.random() < 0.5:
                        p.on_getall = lambda: release(k)
                        GLib.timeout_add(100, lambda: release(k))
                    else:
                        p.on_getall = None
                        GLib.timeout_add(rnd.randint(0, 4), lambda: release(k))
                    return False
                GLib.idle_add(step)
            @dbus.service.method("org.playerhost.Hostile", in_signature="tdi", out_signature="s", async_callbacks=("ok", "err"))
            def Fuzz(self, seed, seconds, names, ok, err):
                r = random.Random(seed)
                end = GLib.get_monotonic_time() + int(seconds * 1e6)
                pool = ["fz%d" % i for i in range(names)]
                count = {"actions": 0, "signals": 0, "errors": 0}
                def live():
                    alive = [n for n in pool if n in players]
                    return players[r.choice(alive)][1] if alive else None
                def act():
                    if GLib.get_monotonic_time() > end:
                        ok("actions=%d signals=%d errors=%d live=%d" % (count["actions"], count["signals"], count["errors"], len(players)))
                        return False
                    count["actions"] += 1
                    k = r.randint(0, 9)
                    try:
                        if k == 0: spawn(r.choice(pool), r.choice(["Playing", "Paused", "Stopped"]))
                        elif k == 1: drop(r.choice(pool))
                        elif k in (2, 3):
                            p = live()
                            if p:
                                c = changes(r)
                                p.props[P].update(c)
                                inv = ["Metadata"] if r.random() < 0.3 else []
                                p.PropertiesChanged(P, dbus.Dictionary(c, signature="sv"), dbus.Array(inv, signature="s"))
                                count["signals"] += 1
                        elif k == 4:
                            p = live()
                            if p:
                                for _ in range(r.choice([50, 200])):
                                    c = {"PlaybackStatus": r.choice(["Playing", "Paused", "Stopped"]), "CanGoNext": r.random() < 0.5}
                                    p.props[P].update(c)
                                    p.PropertiesChanged(P, dbus.Dictionary(c, signature="sv"), dbus.Array(["Metadata"] if r.random() < 0.5 else [], signature="s"))
                                    count["signals"] += 1
                        elif k == 5:
                            p = live()
                            if p:
                                p.Seeked(dbus.Int64(r.choice([I64MIN, I64MAX, -1, 0, 10**15 + 1, 3000000])))
                                count["signals"] += 1
                        elif k == 6:
                            p = live()
                            if p: p.silent = not p.silent
                        elif k == 7:
                            p = live()
                            if p: p.props[P]["Position"] = hostile(r)
                        elif k == 8:
                            name = r.choice(pool)
                            if name in players:
                                conn = players[name][0]
                                for _ in range(r.randint(1, 20)):
                                    conn.release_name(PFX + name)
                                    conn.request_name(PFX + name, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
                        else:
                            p = live()
                            if p: p.props[R]["Identity"] = hostile(r)
                    except Exception:
                        count["errors"] += 1
                    return True
                GLib.timeout_add(2, act)

        control_bus = dbus.SessionBus()
        Control(control_bus, "/hostile")
        control_name = dbus.service.BusName("org.playerhost.Hostile", control_bus)
        GLib.MainLoop().run()
        """#
}
