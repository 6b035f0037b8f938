/// Misbehaving plugins for the supervision tests, as Python scripts.
extension PluginProcessEndToEndTests {
    /// Writes garbage, then a valid request, then holds a half line; a second connection sends
    /// 2 MiB without a newline and reads the one error it gets. Reports what came back as JSON
    /// in `result`.
    static func garbageScript(result: String) -> String {
        """
        #!/usr/bin/env python3
        import json, os, socket, sys, time
        path = os.environ["PLAYERHOST_SOCKET"]
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        s.sendall(b"this is not json\\n" * 100 + b'{"jsonrpc":"2.0","method":"host.ping","id":"after"}\\n')
        buf = b""
        while buf.count(b"\\n") < 101:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
        lines = [json.loads(l) for l in buf.split(b"\\n")[:101] if l]
        errors = sum(1 for m in lines if m.get("error", {}).get("code") == -32700)
        pong = any(m.get("id") == "after" and m.get("result") == "pong" for m in lines)
        s.sendall(b"{\\"jsonrpc\\": \\"2.0\\", \\"meth")  # a half line, never finished
        t = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        t.connect(path)
        refused = False
        try:
            t.sendall(b"y" * (2 * 1024 * 1024))
            reply = b""
            while b"\\n" not in reply:
                chunk = t.recv(65536)
                if not chunk:
                    break
                reply += chunk
            m = json.loads(reply.split(b"\\n")[0])
            refused = m.get("error", {}).get("code") == 1050 and m.get("id") is None
        except (OSError, ValueError):
            pass
        out = "RESULT"
        with open(out + ".tmp", "w") as f:
            json.dump({"parseErrors": errors, "pongAfterGarbage": pong, "oversizeRefused": refused}, f)
        os.rename(out + ".tmp", out)
        time.sleep(3600)
        """.replacingOccurrences(of: "RESULT", with: result)
    }

    /// A plugin (on the example's client library) whose play handler never returns.
    static var hangScript: String {
        """
        #!/usr/bin/env python3
        import sys, time
        sys.path.insert(0, "\(examples)/python-plugin")
        from playerhost_plugin import Plugin, run

        class Hang(Plugin):
            name = "hang"
            def attach(self, host):
                host.call("session.create", {"id": "hang", "kind": "hang"})
                host.call("audio.configure", {"session": "hang", "category": "playback"})
                host.call("audio.activate", {"session": "hang"})
                host.add_target("hang", "play", self.play)
            def play(self, params):
                time.sleep(3600)
                return "success"

        sys.exit(run(Hang()))
        """
    }
}
