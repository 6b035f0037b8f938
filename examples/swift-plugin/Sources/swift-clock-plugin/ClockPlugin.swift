import Glibc
import PlayerHostPluginAPI

/// swift-clock: a session plugin in Swift, run as its own process by `PluginRunner`.
///
/// It creates the session `swift-clock` (kind `clock`), loads a short queue onto its clock player
/// (a timeline with no audio), lets the host publish the info from that player, and handles the
/// transport commands itself: each handler drives the player and answers with the outcome.
/// The very same class could be compiled into the daemon and run in-process.
final class ClockPlugin: SessionPlugin {
    let name = "swift-clock"
    let session: JSON = "swift-clock"
    private weak var context: PluginContext?

    /// Runs on the loop after `host.hello`, and again after each reconnection: the session went
    /// away with the old connection, so it is set up afresh. Calls on one connection run in
    /// order, so the set-up is one pipelined burst; `send` logs a failing step.
    func attach(_ context: PluginContext) {
        self.context = context
        context.send("session.create", ["id": session, "kind": "clock"])
        context.send("audio.configure", ["session": session, "category": "playback"])
        // Duration, elapsed and rate come from the player, everything else from the current
        // item: the session publishes automatically, so its info is given in the items (an
        // info.update of an item key would be refused with 1030).
        let album: JSON = ["albumTitle": "PlayerHost examples"]
        context.send("player.load", ["session": session, "items": [
            ["title": "Tick", "artist": "Swift Clock", "duration": 60, "info": album],
            ["title": "Tock", "artist": "Swift Clock", "duration": 90, "info": album],
            ["title": "Chime", "artist": "Swift Clock", "duration": 30, "info": album],
        ]])

        handle("play") { reply in self.play(reply) }
        handle("pause") { reply in self.player("player.pause", reply) }
        handle("nextTrack") { reply in self.player("player.next", reply) }
        handle("previousTrack") { reply in self.player("player.previous", reply) }
        handle("togglePlayPause") { reply in
            guard let context = self.context else { return reply(.commandFailed) }
            context.call("player.get", ["session": self.session]) { result in
                guard case .success(let player) = result else { return reply(.commandFailed) }
                if player["playbackState"] == "playing" { self.player("player.pause", reply) } else { self.play(reply) }
            }
        }
        // No audio.activate here: `play` activates right before playing. An idle session that
        // activated now would interrupt (pause) whatever the user is listening to.
        log("session swift-clock ready")
    }

    func detach() { context = nil }

    /// Becomes the target of `command` (and enables it); `body` answers each one.
    private func handle(_ command: String, _ body: @escaping (_ reply: @escaping (CommandStatus) -> Void) -> Void) {
        context?.addTarget(session: "swift-clock", command: command) { [weak self] _, reply in
            self?.log(command)
            body(reply)
        }
    }

    /// Playing (re)activates the audio session first: another app may have interrupted it.
    /// Calls on one connection run in order, so the player plays once the session is active.
    private func play(_ reply: @escaping (CommandStatus) -> Void) {
        context?.send("audio.activate", ["session": session])
        player("player.play", reply)
    }

    /// Calls a player method on the session's player and answers with its outcome.
    private func player(_ method: String, _ reply: @escaping (CommandStatus) -> Void) {
        guard let context else { return reply(.commandFailed) }
        context.call(method, ["session": session]) { result in
            if case .success = result { reply(.success) } else { reply(.commandFailed) }
        }
    }

    private func log(_ message: String) {
        let line = "\(name): \(message)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}
