#!/usr/bin/python3
"""Hostile protocol checks of the web remote (issue 25), against a running playerhostd whose config
has [remote] listen (RemoteEndToEndTests runs it with max_connections = 8,
max_connections_per_address = 4, max_message_kb = 1,
header_timeout_s = 2). Prints `ok NAME` or `FAIL NAME: why` per check; exits 1 if any failed.

    scripts/remote-probe.py SOCKET STATE_DIR
"""
import asyncio, base64, hashlib, http.client, json, os, socket, struct, sys, time, zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ph_client import Client  # noqa: E402

import websockets  # noqa: E402  (Debian's python3-websockets)

sock_path, state_dir = sys.argv[1], sys.argv[2]
rpc = Client(sock_path)
status = rpc.call("remote.status")
base = status["url"]
host, port = base.split("//")[1].split(":")
port = int(port)
failed = []


def check(name, ok, why=""):
    print(("ok " if ok else "FAIL ") + name + ("" if ok else ": " + why), flush=True)
    if not ok:
        failed.append(name)


def get(path, cookie=None, headers=None):
    c = http.client.HTTPConnection(host, port, timeout=5)
    h = dict(headers or {})
    if cookie:
        h["Cookie"] = "ph_remote=" + cookie
    c.request("GET", path, headers=h)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, dict((k.lower(), v) for k, v in r.getheaders()), body


def png(w, h, rgb):
    raw = b"".join(b"\x00" + bytes(rgb) * w for _ in range(h))

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def token_hash(token):
    return hashlib.sha256(token.encode()).hexdigest()


def devices_file_when(done, seconds):
    """The devices file's text once `done(text)` holds, or as it is after `seconds`."""
    stored, deadline = "", time.monotonic() + seconds
    while not done(stored) and time.monotonic() < deadline:
        try:
            with open(os.path.join(state_dir, "remote-devices.json")) as f:
                stored = f.read()
        except FileNotFoundError:
            pass
        time.sleep(0.02)
    return stored


def pair(name):
    url = rpc.call("remote.pair", {"name": name})["url"]
    status, headers, _ = get(url.split(base)[1])
    cookie = headers.get("set-cookie", "")
    token = cookie.split(";")[0].split("=", 1)[1] if "=" in cookie else None
    return status, cookie, token, url


async def ws_connect(token, origin=None):
    h = {"Cookie": "ph_remote=" + token} if token else {}
    return await websockets.connect(f"ws://{host}:{port}/ws", extra_headers=h,
                                    origin=origin if origin is not None else base, open_timeout=5)


async def refused(token, origin=None):
    try:
        ws = await ws_connect(token, origin)
        await ws.close()
        return False
    except Exception:
        return True


async def closed_within(ws, seconds):
    start = time.monotonic()
    try:
        while True:
            await asyncio.wait_for(ws.recv(), seconds)
    except websockets.ConnectionClosed:
        return time.monotonic() - start
    except asyncio.TimeoutError:
        return None


async def main():
    # Without a token: 401 for the page and covers, the socket refused; static files stay public.
    check("no token: page 401", get("/")[0] == 401)
    check("no token: art 401", get("/art/0123abcd")[0] == 401)
    check("no token: socket refused", await refused(None))
    check("static files public", get("/static/app.js")[0] == 200)
    page_bytes = sum(len(get("/static/" + f)[2]) for f in ["index.html", "app.js", "style.css", "silence.wav", "sw.js",
                                                            "manifest.webmanifest", "icon-192.png", "icon-512.png"])
    check(f"page weight {page_bytes} B <= 100 KB", page_bytes <= 100 * 1024)

    # Traversal: nothing outside the page's own files, however spelled.
    for path in ["/static/../remote-devices.json", "/static/%2e%2e/remote-devices.json", "/static/..%2fremote-devices.json",
                 "/static/.hidden", "/../../etc/passwd", "/static//etc/passwd", "/static/app.js/..", "/art/../state.json"]:
        s, _, body = get(path)
        check(f"traversal {path} refused ({s})", s in (400, 403, 404) and b"tokenSHA256" not in body and b"root:" not in body)

    # Pairing: the cookie's flags; single use; the token hashed at rest.
    s, cookie, token, url = pair("phone")
    check("pairing sets the token cookie", s == 303 and token is not None, f"status {s}")
    check("cookie HttpOnly SameSite=Strict", "HttpOnly" in cookie and "SameSite=Strict" in cookie, cookie)
    check("a used code is refused", get(url.split(base)[1])[0] == 403)
    stored = devices_file_when(lambda s: not token or token_hash(token) in s, 3)  # written off the loop, after the reply
    check("token hashed at rest", token not in stored and token_hash(token) in stored)
    # A burst of pairings, each a write of the devices file off the loop: one write at a time,
    # the last with every device (two at once shared a temporary file).
    burst = [pair(f"burst{i}")[2] for i in range(8)]
    stored = devices_file_when(lambda s: all(t and token_hash(t) in s for t in burst), 5)
    check("a burst of pairings all reach the devices file", all(t and token_hash(t) in stored for t in burst),
          f"{sum(1 for t in burst if t and token_hash(t) in stored)} of {len(burst)}")
    check("paired page 200", get("/", token)[0] == 200)
    check("a made-up token 401", get("/", "0" * 64)[0] == 401)

    # The WebSocket: Origin checked; state arrives.
    check("other origin refused", await refused(token, "http://evil.example"))
    check("no origin refused", await refused(token, ""))
    ws = await ws_connect(token)
    first = json.loads(await asyncio.wait_for(ws.recv(), 5))
    check("state on connect", first.get("type") == "state", str(first)[:200])

    # An oversized message closes the socket (max_message_kb = 1).
    big = await ws_connect(token)
    await asyncio.wait_for(big.recv(), 5)
    await big.send(json.dumps({"id": 1, "type": "command", "command": "pause", "pad": "x" * 4096}))
    t = await closed_within(big, 3)
    check("oversized message closes the socket", t is not None, "still open after 3 s")

    # Revocation cuts the open socket within 1 s, and the token stops working.
    s2, _, token2, _ = pair("tablet")
    ws2 = await ws_connect(token2)
    await asyncio.wait_for(ws2.recv(), 5)
    start = time.monotonic()
    rpc.call("remote.revoke", {"name": "tablet"})
    t = await closed_within(ws2, 3)
    check(f"revoke closes the socket within 1 s ({(t or 99):.3f} s)", t is not None and time.monotonic() - start <= 1.0)
    check("revoked token 401", get("/", token2)[0] == 401)
    check("the other device still works", get("/", token)[0] == 200)
    await ws.close()

    # A slow reader (slow_reader_s = 2): a page that stops reading while the host keeps changing is
    # cut off, and the host is not held back by it.
    slow = socket.socket()
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.settimeout(5)
    slow.connect((host, port))
    slow.sendall((f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nOrigin: {base}\r\nCookie: ph_remote={token}\r\n"
                  "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    check("slow reader: upgraded", b" 101 " in slow.recv(256))
    start = time.monotonic()
    sent_before = rpc.call("remote.status")["stateMessagesSent"]
    for i in range(800):  # ~800 state messages of ~400 bytes: more than the buffers hold
        rpc.call("command.send", {"command": "pause" if i % 2 == 0 else "play", "session": "main"})
        time.sleep(0.002)  # one refetch each, not one for many
    toggles = time.monotonic() - start
    print("state messages sent meanwhile:", rpc.call("remote.status")["stateMessagesSent"] - sent_before)
    time.sleep(3)
    slow.settimeout(3)
    ended = False
    try:
        while slow.recv(65536):
            pass
        ended = True
    except ConnectionResetError:
        ended = True
    except socket.timeout:
        pass
    slow.close()
    check(f"slow reader cut off (800 changes took {toggles:.2f} s)", ended, "still connected")

    # Brute force: 5 wrong codes a minute per address (the used code above was one), then even a
    # good one is refused.
    good = rpc.call("remote.pair", {"name": "late"})["url"].split(base)[1]
    wrong = [get(f"/pair/WRONG{i}23")[0] for i in range(4)]
    check("wrong codes 403", wrong == [403] * 4, str(wrong))
    check("6th try in a minute 429", get(good)[0] == 429)

    # Slowloris: a request whose headers trickle in is cut at header_timeout_s (2 s).
    s = socket.create_connection((host, port), timeout=10)
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    start = time.monotonic()
    cut = None
    try:
        while time.monotonic() - start < 8:
            s.sendall(b"X-a: b\r\n")
            time.sleep(0.25)
    except OSError:
        cut = time.monotonic() - start
    if cut is None:
        s.settimeout(0.5)
        try:
            cut = time.monotonic() - start if s.recv(1) == b"" else None
        except OSError:
            cut = time.monotonic() - start
    s.close()
    check(f"slowloris cut ({cut if cut is None else round(cut, 2)} s)", cut is not None and cut < 6)

    # Connection caps (max_connections = 8, max_connections_per_address = 4): one address gets 4,
    # its 5th is closed at once while another address still gets in; the 9th in all is closed at
    # once whatever its address; then room again. (All of 127/8 is loopback on Linux.)
    def connect_from(source):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(5)
        s.bind((source, 0))
        s.connect((host, port))
        return s

    def closed_at_once(s):
        s.settimeout(2)
        try:
            got = s.recv(1)
        except ConnectionResetError:
            got = b""
        except socket.timeout:
            got = None
        s.close()
        return got == b"", repr(got)

    refused_before = rpc.call("remote.status")["refusedConnections"]
    held = [connect_from("127.0.0.1") for _ in range(4)]
    time.sleep(0.2)
    check("a 5th connection from one address closed", *closed_at_once(connect_from("127.0.0.1")))
    held += [connect_from("127.0.0.2") for _ in range(4)]
    time.sleep(0.2)
    check("another address still got its 4", rpc.call("remote.status")["connections"] == 8,
          str(rpc.call("remote.status")["connections"]))
    check("connection over the cap closed", *closed_at_once(connect_from("127.0.0.3")))
    refusals = rpc.call("remote.status")["refusedConnections"] - refused_before
    check("both refusals counted", refusals == 2, str(refusals))
    for h in held:
        h.close()
    time.sleep(0.3)
    check("room again after", get("/static/app.js")[0] == 200)

    # Artwork by content: a data: cover, served by id with an ETag, immutable; a new cover, a new id.
    ids = []
    for rgb in [(200, 30, 30), (30, 200, 30)]:
        uri = "data:image/png;base64," + base64.b64encode(png(64, 64, rgb)).decode()
        rpc.call("player.load", {"session": "main", "items": [{"title": "Cover", "duration": 100,
                                                                "info": {"artwork": {"id": uri, "sources": [uri]}}}]})
        ws = await ws_connect(token)
        art, deadline = None, time.monotonic() + 10
        while art is None or art in ids:
            m = json.loads(await asyncio.wait_for(ws.recv(), 10))
            art = (m.get("nowPlaying") or {}).get("art")
            if time.monotonic() > deadline:
                break
        await ws.close()
        ids.append(art)
    check("a new cover has a new id", None not in ids and ids[0] != ids[1], str(ids))
    if None not in ids:
        s, headers, body = get(f"/art/{ids[1]}?size=32", token)
        check("cover served", s == 200 and headers.get("content-type") == "image/png" and body.startswith(b"\x89PNG"), f"{s} {headers}")
        check("cover immutable with an ETag", "immutable" in headers.get("cache-control", "") and headers.get("etag"), str(headers))
        check("cover revalidates 304", get(f"/art/{ids[1]}?size=32", token, {"If-None-Match": headers.get("etag", "")})[0] == 304)
        check("an old cover's id is gone", get(f"/art/{ids[0]}", token)[0] == 404)
        check("cover needs a token", get(f"/art/{ids[1]}")[0] == 401)


asyncio.run(main())
print(f"{len(failed)} failed" if failed else "all ok")
sys.exit(1 if failed else 0)
