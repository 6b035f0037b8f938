"""A tiny PlayerHost plugin client: Python 3.9+, standard library only.

It speaks the daemon's control protocol (JSON-RPC 2.0, one message per line, over the Unix
socket): it connects, says ``host.hello``, sends requests and matches their replies by id,
answers the host's ``command.handle`` requests, hands ``event`` notifications to the plugin,
and when the daemon goes away it detaches the plugin and reconnects with backoff (a plugin the
daemon started exits instead if that daemon died: its successor starts a fresh copy).

    from playerhost_plugin import Plugin, run

    class Hello(Plugin):
        name = "hello"
        def attach(self, host):
            host.call("session.create", {"id": "hello", "kind": "hello"})
            host.add_target("hello", "play", self.play)
        def play(self, params):
            return "success"

    run(Hello())

The daemon starts plugins with ``--socket PATH`` and ``$PLAYERHOST_SOCKET``; run by hand, the
default socket is used. SIGTERM and SIGINT end ``run`` cleanly (exit status 0).
"""

import json
import os
import select
import signal
import socket
import sys
import time

__all__ = ["Plugin", "Host", "RPCError", "run", "socket_path", "log"]

STATUSES = ("success", "noSuchContent", "noActionableNowPlayingItem", "deviceNotFound", "commandFailed")


def log(name, message):
    """One line on stderr (the daemon passes plugins' stderr through to its own)."""
    sys.stderr.write("%s: %s\n" % (name, message))
    sys.stderr.flush()


def socket_path(argv=None, environ=None):
    """``--socket PATH``, else ``$PLAYERHOST_SOCKET``, else the daemon's default path."""
    argv = sys.argv if argv is None else argv
    environ = os.environ if environ is None else environ
    if "--socket" in argv:
        i = argv.index("--socket")
        if i + 1 < len(argv):
            return argv[i + 1]
    if environ.get("PLAYERHOST_SOCKET"):
        return environ["PLAYERHOST_SOCKET"]
    if environ.get("XDG_RUNTIME_DIR"):
        return os.path.join(environ["XDG_RUNTIME_DIR"], "playerhost", "control.sock")
    return "/tmp/playerhost-%d/control.sock" % os.getuid()


class RPCError(Exception):
    """An error reply from the host (``code``, ``message``, ``data``)."""

    def __init__(self, code, message, data=None):
        super().__init__("%s (%s)" % (message, code))
        self.code = code
        self.message = message
        self.data = data


class Closed(Exception):
    """The connection to the daemon ended."""


class _Stop(BaseException):
    """Raised by the SIGTERM/SIGINT handler to unwind out of any blocking call."""


class Plugin:
    """Subclass and override. ``attach`` runs after every (re)connection: the plugin's sessions
    went away with the previous connection, so it sets them up afresh."""

    name = "plugin"

    def attach(self, host):
        pass

    def detach(self):
        pass

    def event(self, params):
        """An ``event`` notification (subscribed topics, or events about the plugin's sessions)."""


class Host:
    """One connection to the daemon. ``call`` waits for the reply; ``send`` does not (a failure
    is logged). While waiting, the host's requests are answered and events delivered."""

    def __init__(self, sock, plugin, timeout=10.0):
        self.sock = sock
        self.plugin = plugin
        self.timeout = timeout
        self._buffer = b""
        self._next_id = 1
        self._replies = {}  # id -> reply message, for calls being waited on
        self._sent = {}  # id -> method, for `send` (reply only checked for errors)
        self._handlers = {}  # target token -> handler(params) -> status

    # --- outgoing -----------------------------------------------------------------------

    def _write(self, message):
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        try:
            self.sock.sendall(data)
        except OSError as e:
            raise Closed(str(e))

    def _request(self, method, params):
        rid = self._next_id
        self._next_id += 1
        message = {"jsonrpc": "2.0", "method": method, "id": rid}
        if params is not None:
            message["params"] = params
        self._write(message)
        return rid

    def call(self, method, params=None, timeout=None):
        """Calls ``method`` and returns its result; raises ``RPCError`` or ``Closed``."""
        rid = self._request(method, params)
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while rid not in self._replies:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._sent[rid] = method  # a late reply is dropped quietly
                raise RPCError(1080, "%s: no reply within the timeout" % method)
            self._pump(remaining)
        reply = self._replies.pop(rid)
        if "error" in reply:
            e = reply["error"]
            raise RPCError(e.get("code"), e.get("message", "error"), e.get("data"))
        return reply.get("result")

    def send(self, method, params=None):
        """Sends a request without waiting; an error reply is logged."""
        self._sent[self._request(method, params)] = method

    def add_target(self, session, command, handler, enable=True):
        """Become a target of ``command`` on ``session``. ``handler(params)`` returns a status
        (``"success"``, …, ``"commandFailed"``); it runs for each ``command.handle``."""
        token = self.call("command.addTarget", {"session": session, "command": command})["token"]
        self._handlers[token] = handler
        if enable:
            self.call("command.enable", {"session": session, "command": command, "enabled": True})
        return token

    def subscribe(self, topics):
        self.call("events.subscribe", {"topics": list(topics)})

    # --- incoming -----------------------------------------------------------------------

    def serve(self):
        """Answers the host until the connection ends (raises ``Closed``)."""
        while True:
            self._pump(None)

    def _pump(self, timeout):
        """Waits up to ``timeout`` seconds (None: forever) for data and handles each full line."""
        ready, _, _ = select.select([self.sock], [], [], timeout)
        if not ready:
            return
        try:
            chunk = self.sock.recv(65536)
        except OSError as e:
            raise Closed(str(e))
        if not chunk:
            raise Closed("the daemon closed the connection")
        self._buffer += chunk
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            if line.strip():
                self._handle(json.loads(line))

    def _handle(self, message):
        method = message.get("method")
        if method is None:  # a reply
            rid = message.get("id")
            if rid in self._sent:
                what = self._sent.pop(rid)
                if "error" in message:
                    log(self.plugin.name, "%s failed: %s" % (what, message["error"].get("message")))
            else:
                self._replies[rid] = message
        elif "id" not in message:  # a notification
            if method == "event":
                self.plugin.event(message.get("params") or {})
        else:  # a request from the host
            self._write(self._answer(message))

    def _answer(self, request):
        rid, method, params = request["id"], request["method"], request.get("params") or {}
        if method != "command.handle":
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no such method: " + method}}
        handler = self._handlers.get(params.get("token"))
        status = "commandFailed"
        if handler is not None:
            try:
                status = handler(params) or "success"
            except (Closed, _Stop):
                raise
            except Exception as e:  # a bug in a handler fails the command, not the plugin
                log(self.plugin.name, "%s handler raised %r" % (params.get("command"), e))
        if status not in STATUSES:
            status = "commandFailed"
        return {"jsonrpc": "2.0", "id": rid, "result": {"status": status}}


def _orphaned():
    """True when the daemon started this process (``$PLAYERHOST_SUPERVISOR_PID``) and has died
    since: a restarted daemon starts its own copy, so this one must not reconnect."""
    pid = os.environ.get("PLAYERHOST_SUPERVISOR_PID")
    return bool(pid) and os.getppid() != int(pid)


def _on_signal(signum, frame):
    raise _Stop()


def run(plugin, path=None):
    """Connects, says hello, attaches ``plugin`` and serves it; reconnects with backoff (100 ms
    doubling up to 5 s) whenever the daemon goes away — unless the daemon that started this
    process died, then it returns. Returns 0 after SIGTERM/SIGINT too."""
    path = path or socket_path()
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    backoff = 0.1
    sock, attached = None, False
    try:
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(path)
                host = Host(sock, plugin)
                host.call("host.hello", {"name": plugin.name})
                backoff = 0.1
                attached = True
                plugin.attach(host)
                host.serve()
            except OSError as e:
                log(plugin.name, "cannot connect to %s: %s" % (path, e))
            except Closed as e:
                log(plugin.name, "lost the daemon (%s)" % e)
            except RPCError as e:
                log(plugin.name, "set-up failed: %s" % e)
            sock.close()
            if attached:
                attached = False
                plugin.detach()
            if _orphaned():
                log(plugin.name, "the daemon that started this plugin is gone; exiting")
                return 0
            log(plugin.name, "reconnecting in %d ms" % (backoff * 1000))
            time.sleep(backoff)
            backoff = min(backoff * 2, 5.0)
    except _Stop:
        if sock is not None:
            sock.close()
        if attached:
            plugin.detach()
        log(plugin.name, "stopping")
        return 0
