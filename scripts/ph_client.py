"""A minimal JSON-RPC client of playerhostd's control socket for the benchmark scripts: one
request at a time, events kept in `events` while a reply is awaited."""
import json, socket


class Client:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.buf = b""
        self.next = 1
        self.events = []

    def read(self):
        while b"\n" not in self.buf:
            chunk = self.s.recv(1 << 16)
            if not chunk:
                raise SystemExit("daemon closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def call(self, method, params=None):
        rid = self.next
        self.next += 1
        self.s.sendall(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}).encode() + b"\n")
        while True:
            m = self.read()
            if m.get("id") == rid:
                if "error" in m:
                    raise SystemExit(f"{method}: {m['error']}")
                return m["result"]
            if m.get("method") == "event":
                self.events.append(m["params"])

    def next_event(self):
        """The next event: a queued one first, else the next to arrive."""
        if self.events:
            return self.events.pop(0)
        while True:
            m = self.read()
            if m.get("method") == "event":
                return m["params"]

    def wait(self, match):
        """Reads events until one for which `match` is true."""
        while not match(self.next_event()):
            pass
