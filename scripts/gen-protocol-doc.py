#!/usr/bin/env python3
"""Writes docs/protocol.md from a live daemon: the method reference comes from rpc.discover and
every example is a request really sent and the response really received. Run after a build:
    python3 scripts/gen-protocol-doc.py [path/to/bin]
"""
import json, os, socket, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
bindir = sys.argv[1] if len(sys.argv) > 1 else subprocess.check_output(
    ["swift", "build", "--show-bin-path"], cwd=root, text=True).strip()

tmp = tempfile.mkdtemp(prefix="phdoc-")
sock_path = os.path.join(tmp, "s")
conf = os.path.join(tmp, "c.toml")
with open(conf, "w") as f:
    f.write("command_timeout_ms = 2000\n")
r, w = os.pipe()
daemon = subprocess.Popen([os.path.join(bindir, "playerhostd"), "--socket", sock_path, "--config", conf,
                           "--ready-fd", str(w), "--log-level", "error",
                           "--state-dir", os.path.join(tmp, "state")], pass_fds=[w])
os.close(w)
assert os.read(r, 1) == b"R", "daemon did not start"


class Conn:
    def __init__(self):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.settimeout(10)
        self.s.connect(sock_path)
        self.buf = b""
        self.next_id = 1

    def line(self):
        while b"\n" not in self.buf:
            chunk = self.s.recv(65536)
            assert chunk, "closed"
            self.buf += chunk
        l, self.buf = self.buf.split(b"\n", 1)
        return l.decode()

    def send_raw(self, text):
        self.s.sendall(text.encode() + b"\n")

    def call(self, method, params=None):
        req = {"jsonrpc": "2.0", "method": method, "id": self.next_id}
        if params is not None:
            req["params"] = params
        self.next_id += 1
        text = json.dumps(req, ensure_ascii=False, separators=(",", ":"))
        self.send_raw(text)
        while True:
            resp = self.line()
            if '"method":"event"' not in resp:
                return text, resp


examples = {}
c = Conn()


def ex(method, params=None, conn=None):
    req, resp = (conn or c).call(method, params)
    examples.setdefault(method, (req, resp))
    return json.loads(resp)


ex("host.hello", {"name": "docs", "version": "1.0"})
ex("host.ping")
ex("host.version")
ex("session.create", {"id": "main", "kind": "main"})
ex("audio.configure", {"session": "main", "category": "playback"})
ex("audio.activate", {"session": "main"})
ex("player.load", {"session": "main", "items": [
    {"title": "Magnificent", "artist": "U2", "duration": 324, "info": {"albumTitle": "No Line on the Horizon"}},
    {"title": "Moment of Surrender", "artist": "U2", "duration": 444}]})
ex("command.bindDefaults", {"session": "main"})
ex("command.configure", {"session": "main", "command": "skipForward", "preferredIntervals": [30]})
ex("command.enable", {"session": "main", "command": "like", "enabled": True})
ex("player.play", {"session": "main"})
ex("player.seek", {"session": "main", "position": 60})
ex("player.setRate", {"session": "main", "rate": 1.5})
ex("player.setVolume", {"session": "main", "volume": 0.8})
ex("player.setRepeat", {"session": "main", "mode": "all"})
ex("player.setShuffle", {"session": "main", "mode": "off"})
ex("player.next", {"session": "main"})
ex("player.previous", {"session": "main"})
ex("player.pause", {"session": "main"})
ex("player.get", {"session": "main"})
ex("player.queue", {"session": "main", "offset": 1, "limit": 10})
ex("command.send", {"command": "togglePlayPause"})
ex("command.send", {"command": "skipForward", "session": "main"})
ex("nowPlaying.get")
ex("info.get", {"session": "main"})
ex("session.create", {"id": "pip", "kind": "pip"})
ex("session.list")
ex("session.becomeActiveIfPossible", {"session": "pip"})
ex("arbiter.explain")
ex("arbiter.doctor", {"session": "pip"})
ex("session.get", {"session": "pip"})
ex("info.setAutomatic", {"session": "pip", "enabled": False})
ex("info.set", {"session": "pip", "info": {"title": {"und": "Magnificent", "es": "Magnífico"}, "duration": 324}})
ex("info.update", {"session": "pip", "info": {"artist": "U2"}})
ex("events.subscribe", {"topics": ["nowPlaying"]})
ex("events.unsubscribe", {"topics": ["nowPlaying"]})
ex("audio.interrupt", {"type": "began"})
ex("audio.interrupt", {"type": "ended", "shouldResume": True})
ex("audio.deactivate", {"session": "pip", "notifyOthers": True})
ex("player.stop", {"session": "main"})
handler = Conn()
tok = ex("command.addTarget", {"session": "main", "command": "like"}, conn=handler)
c.send_raw(json.dumps({"jsonrpc": "2.0", "method": "command.send", "params": {"command": "like", "session": "main"}, "id": 99}))
handle_req = handler.line()
handle_id = json.loads(handle_req)["id"]
handle_resp = json.dumps({"jsonrpc": "2.0", "result": {"status": "success"}, "id": handle_id})
handler.send_raw(handle_resp)
like_resp = c.line()
ex("command.removeTarget", {"session": "main", "command": "like", "token": tok["result"]["token"]}, conn=handler)
ex("session.create", {"id": "ext", "kind": "radio", "driver": "external"})
ex("player.sync", {"session": "ext", "items": [{"title": "Live stream", "duration": 3600}], "index": 0,
                   "elapsed": 12.5, "rate": 1, "status": "ready"})
ex("plugin.list")
ex("plugin.saveState", {"state": {"version": 1, "sessions": [{"session": "docs", "urls": ["/music/a.ogg"], "index": 0, "elapsed": 42}]}})
ex("plugin.savedState")
ex("plugin.provide", {"methods": ["docs.hello"], "summaries": {"docs.hello": "an example provided method"}}, conn=handler)
c.send_raw(json.dumps({"jsonrpc": "2.0", "method": "docs.hello", "params": {"who": "world"}, "id": 98}))
provided_req = handler.line()
handler.send_raw(json.dumps({"jsonrpc": "2.0", "result": "hello, world", "id": json.loads(provided_req)["id"]}))
provided_resp = c.line()
examples["docs.hello"] = (json.dumps({"jsonrpc": "2.0", "method": "docs.hello", "params": {"who": "world"}, "id": 98}), provided_resp)
ex("session.close", {"session": "pip"})
ex("host.stats")
ex("host.doctor")
discover = ex("rpc.discover")["result"]
_, shutdown_resp = Conn().call("host.shutdown")
examples["host.shutdown"] = ('{"jsonrpc":"2.0","method":"host.shutdown","id":1}', shutdown_resp)
daemon.wait(timeout=10)


def clip(text, n=900):
    return text if len(text) <= n else text[:n] + " …"


out = []
w = out.append
w("# The PlayerHost control protocol\n")
w("_Generated by `scripts/gen-protocol-doc.py` from a live daemon: the reference comes from `rpc.discover`, and every example is a request that was sent and the response that came back._\n")
w("""## Framing

- A Unix stream socket: `$XDG_RUNTIME_DIR/playerhost/control.sock` (directory 0700, socket 0600),
  else `/tmp/playerhost-$UID/control.sock`; peers of another uid are refused.
- One JSON-RPC 2.0 message per line (`\\n`, an optional `\\r` before it is ignored), UTF-8. Blank
  lines are ignored. Requests, notifications (no `id`: never answered) and batches (arrays; an
  empty batch is one `-32600`; a batch of notifications gets nothing back).
- Replies on a connection come in request order, even when a handler answers later. (Responses
  a client gives to the host's own requests, `command.handle` and provided methods, may come in
  any order: the host pairs them by `id`. The plugin library answers each as soon as it is ready,
  so one slow target never holds another's answer.)
- A reply's `id` is the request's byte for byte: a number keeps the text it was sent with
  (`123456789012345678901234567890`, `1e2`, `-0`, `1.50` come back exactly so).
- Parameters are by name (an object). An array is accepted too and maps onto the declared
  parameters in order. Unknown parameter names are refused (`-32602`), so typos never pass silently.
- Limits (configurable): a line of at most 1 MiB (over it: a `1050` error, then the connection is
  closed), a batch of at most 1024 entries, nesting at most 128 deep, 8 MiB of unread replies per
  client (a client that stops reading is disconnected; others are unaffected), 256 connections.
- Times are seconds. `timestamp` is the host's monotonic clock (`CLOCK_MONOTONIC`, what
  `uv_hrtime` reads) in seconds: a client on the same machine computes the position now as
  `elapsed + rate × (now − timestamp)`, clamped to `[0, duration]`, with no polling.
- The host sends `event` notifications (`{"topic": …, "type": …}`) to subscribers and to the app
  owning the session concerned, and sends `command.handle` **requests** to clients that added
  command targets; they answer `{"status": "success"}` (or another status) within the command
  timeout (default 2 s), else the status is `commandFailed`.

```sh
echo '{"jsonrpc":"2.0","method":"host.ping","id":1}' | socat - UNIX-CONNECT:$XDG_RUNTIME_DIR/playerhost/control.sock
```
""")
w("""## Events

`events.subscribe {topics}` takes `nowPlaying`, `sessions`, `commands`, `audio`, `info`, `players`,
or `*` for all; the current `nowPlaying` value and the session list are sent at once on
subscribing. Each event is an `event` notification `{"topic": …, "type": …, …}`, rendered once and
the same bytes queued to every subscriber of its topic. A client holds at most 16 topics (`1050`
with the limit in `data`). App-facing events (`activeChanged`, `canBecomeActiveChanged`,
interruptions) also go to the app owning the session, subscribed or not.

**One gatekeeper.** The `nowPlaying` value (`type: "nowPlaying"`, `{session, info, playbackState,
timestamp}` with `elapsed` as of `timestamp`, or `null` when the slot is empty) goes through the
gate; everything else (including the slot's `nowPlayingChanged` and every key moment on the
`players`, `info`, `audio`, `commands` and `sessions` topics) goes out as it happens.

- The first change after a quiet window goes out at once; further changes within `coalesce_ms`
  (config, default 250; `0` turns coalescing off) of that send wait, the last value wins, and it
  goes out when the window closes: at most one `nowPlaying` value per window.
- A change that would show the same as what was published sends nothing: same session, state and
  info, and the same position as a function of time (an identical `info.update` or `player.load`,
  a seek to where a paused player already is).
- Placeholders (config `placeholders`, default `""`, `Loading…`, `Loading...`, `Connecting…`,
  `Connecting...`; compared trimmed and case-insensitively) never replace a real `title`, `artist`
  or `albumTitle` of the item the session shows: the value keeps the real one, in events and in
  `nowPlaying.get` (`info.get` shows what the session was told). An item is known by its queue
  index, `assetURL` and `duration`; a new item whose only title is a placeholder shows it.
- `host.stats` counts: `eventsOffered` (values that reached the gate), `eventsSent`,
  `eventsCoalesced` (merged into a later one), `eventsDroppedIdentical`, `placeholdersBlocked`
  (per offered value and field); `eventsPublished` counts notifications queued to subscribers.
""")
w("## Errors\n")
w("| code | meaning |\n|---|---|")
for e in discover["components"]["x-error-codes"]:
    w(f"| `{e['code']}` | {e['message']} |")
w("\nEvery error has a one-line `message`; most carry structured `data` (the parameter, the limit, the session).\n")
w("Command statuses (the `status` of `command.send` and of `command.handle` answers): `success` (0), `noSuchContent` (100), `noActionableNowPlayingItem` (110), `deviceNotFound` (120), `commandFailed` (200).\n")
w("## Methods\n")
for m in discover["methods"]:
    name = m["name"]
    w(f"### `{name}`\n")
    w(m["summary"] + "\n")
    if m["params"]:
        w("| param | type | required | |\n|---|---|---|---|")
        for p in m["params"]:
            t = p["schema"].get("type", "any")
            w(f"| `{p['name']}` | {t} | {'yes' if p['required'] else ''} | {p.get('description', '')} |")
        w("")
    if name in examples:
        req, resp = examples[name]
        w("```\n→ " + req + "\n← " + clip(resp) + "\n```\n")
w("### Provided methods (host → plugin)\n")
w("After `plugin.provide {methods: [\"docs.hello\"]}`, a call to `docs.hello` from anyone is forwarded to the plugin as a request, and its answer comes back:\n")
w("```\n(the plugin gets) " + provided_req + "\n(the caller gets) " + provided_resp + "\n```\n")
w("### `command.handle` (host → client)\n")
w("Sent to the client that added a target when its command is sent; the client answers with a status.\n")
w("```\n← " + handle_req + "\n→ " + handle_resp + "\n(and the sender gets) " + like_resp + "\n```\n")
with open(os.path.join(root, "docs", "protocol.md"), "w") as f:
    f.write("\n".join(out))
print("wrote docs/protocol.md:", len(discover["methods"]), "methods")
