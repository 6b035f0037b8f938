#!/usr/bin/env python3
"""py-radio: a PlayerHost session plugin in Python (standard library only).

It creates the session `py-radio` (kind `radio`) with a playback (non-mixable) audio session,
publishes its info by hand (a live stream has no player timeline to publish from), handles
play/pause/togglePlayPause itself, and republishes after each command.

Install: copy or link this file (with playerhost_plugin.py beside it) into the plugin
directory, or name it in the config:  [[plugin]] path = "/path/to/radio.py"
Try it:  npctl play -s py-radio; npctl status -s py-radio; npctl plugins
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from playerhost_plugin import Plugin, log, run  # noqa: E402

SESSION = "py-radio"
STATION = {
    "title": "Py Radio",
    "artist": "PlayerHost examples",
    "albumTitle": "Live from Python",
    "isLiveStream": True,
    "mediaType": "audio",
}


class Radio(Plugin):
    name = "py-radio"

    def __init__(self):
        self.playing = False
        self.handled = 0
        self.host = None

    def attach(self, host):
        self.host = host
        host.call("session.create", {"id": SESSION, "kind": "radio"})
        host.call("audio.configure", {"session": SESSION, "category": "playback"})
        # No audio.activate here: activate right before playing (see set_playing). An idle
        # session that activates interrupts, i.e. pauses, whatever the user is listening to.
        # Manual publishing: this plugin writes every key itself, rate and elapsed included.
        host.call("info.setAutomatic", {"session": SESSION, "enabled": False})
        host.call("info.set", {"session": SESSION, "info": dict(STATION, **self.state())})
        host.add_target(SESSION, "play", lambda p: self.set_playing(True, p))
        host.add_target(SESSION, "pause", lambda p: self.set_playing(False, p))
        host.add_target(SESSION, "togglePlayPause", lambda p: self.set_playing(not self.playing, p))
        log(self.name, "session %s ready (%s)" % (SESSION, "playing" if self.playing else "paused"))

    def detach(self):
        self.host = None

    def state(self, cause=None):
        """The keys that change: rate gives the playback state; `extra` is free-form."""
        extra = {"handled": self.handled}
        if cause:
            extra["last"] = cause
        return {"rate": 1.0 if self.playing else 0.0, "elapsed": 0.0, "extra": extra}

    def set_playing(self, playing, params):
        self.playing = playing
        self.handled += 1
        command = params.get("command")
        log(self.name, "%s -> %s" % (command, "playing" if playing else "paused"))
        # Requests run in order: (re)activate the audio session before playing (it may have
        # been interrupted by another app), republish, then answer the command. `send` does not
        # wait for the replies.
        if playing:
            self.host.send("audio.activate", {"session": SESSION})
        self.host.send("info.update", {"session": SESSION, "info": self.state(command)})
        return "success"

    def event(self, params):
        # The host tells the owning app about its sessions: another app's audio interrupted us.
        if params.get("session") == SESSION and params.get("type") == "interruption":
            log(self.name, "interruption %s" % params.get("interruption"))
            if params.get("interruption") == "began" and self.playing and self.host:
                self.playing = False
                self.host.send("info.update", {"session": SESSION, "info": self.state("interruption")})


if __name__ == "__main__":
    sys.exit(run(Radio()))
