import PlayerHostPluginAPI

/// What goes out of the imported player: publish rounds to the host (command enables, the
/// audio session, `player.sync`), and commands and interruptions to the player.
extension ImportedPlayerMachine {
    // MARK: - Publishing

    /// Sends what the moment changed: command enables, the audio session, then `player.sync`.
    /// One round at a time: its `player.sync` reply ends it.
    mutating func publish() {
        guard isReady else { return }
        guard !publishing.isInFlight else { publishing = .inFlight(again: true); return }
        publishing = .inFlight(again: false)
        updateCommands()
        updateAudio()
        var p = MPRISImportMapping.sync(properties, position: currentPosition)
        p["session"] = .string(sessionID)
        emit(.sync(p))
    }

    private mutating func updateCommands() {
        configureRates()
        for command in MPRISImportMapping.commands {
            let on = MPRISImportMapping.isEnabled(command, properties)
            guard enabled[command] != on else { continue }
            enabled[command] = on
            emit(.hostSend("command.enable", ["session": .string(sessionID), "command": .string(command), "enabled": .bool(on)]))
        }
    }

    /// `changePlaybackRate`'s rates follow the player's `MinimumRate`/`MaximumRate`.
    mutating func configureRates() {
        let rates = MPRISImportMapping.supportedRates(properties)
        guard rates != configuredRates else { return }
        configuredRates = rates
        emit(.hostSend("command.configure", ["session": .string(sessionID), "command": "changePlaybackRate",
                                             "supportedPlaybackRates": .array(rates.map { .double($0) })]))
    }

    /// Activated when it plays (re-activated if the model interrupted it and it then started
    /// playing again on its own: that takes the audio back and interrupts the others), kept
    /// while paused so it stays Now Playing and an interruption's end can resume it, deactivated
    /// when Stopped. "Started" is a change into Playing: a round that still says Playing after
    /// the model's interruption (our Pause not yet reported) must not take the audio back, or
    /// the interruption ends before it is reported and its end can no longer resume the player.
    private mutating func updateAudio() {
        let status = properties["PlaybackStatus"]?.stringValue
        let sid = JSON.string(sessionID)
        let startedPlaying = status == "Playing" && !audio.wasPlaying
        audio.wasPlaying = status == "Playing"
        if status == "Playing", !audio.active || (audio.interruptedByModel && startedPlaying) {
            audio = Audio(active: true, wasPlaying: true)
            emit(.hostSend("audio.activate", ["session": sid]))
        } else if status == "Stopped", audio.active {
            audio = Audio(active: false)
            emit(.hostSend("audio.deactivate", ["session": sid]))
        }
    }

    // MARK: - Commands and interruptions out

    mutating func perform(_ token: Token, _ event: JSON) {
        guard MPRISImportMapping.seeksByOffset(event, properties) else { return send(token, event) }
        // A Seek by offset is only as good as the position it starts from: read it fresh (the
        // one from the last key moment is as old as that moment on a player without `Seeked`).
        // Within 0.5 s, so the Seek after it still fits the host's command timeout (2 s).
        call(.get("Position", timeoutMs: MPRISImportMapping.freshPositionTimeoutMs), for: .freshPosition(token, event))
    }

    mutating func send(_ token: Token, _ event: JSON) {
        guard let c = MPRISImportMapping.call(for: event, properties: properties, position: currentPosition) else {
            return emit(.answer(token, .commandFailed))
        }
        let seekTarget = MPRISImportMapping.seeksByOffset(event, properties) ? event["position"]?.doubleValue : nil
        let purpose = Purpose.command(token, name: event["command"]?.stringValue ?? "command", seekTarget: seekTarget)
        switch c {
        case .method(let member, let args): call(.method(member, args, timeoutMs: Self.callTimeoutMs), for: purpose)
        case .set(let property, let value): call(.set(property, value), for: purpose)
        }
    }

    mutating func hostEvent(_ e: JSON) {
        guard e["type"]?.stringValue == "interruption", e["session"]?.stringValue == sessionID else { return }
        if e["interruption"]?.stringValue == "began" {
            audio.interruptedByModel = true
            audio.wasPlaying = isPlaying
            guard interruptImported, isPlaying else { return }
            audio.pausedByUs = true
            call(.method("Pause", [], timeoutMs: Self.callTimeoutMs), for: .interruption("Pause on interruption"))
        } else {
            audio.interruptedByModel = false
            // Resumed only if we paused it: a player the user paused stays paused.
            guard audio.pausedByUs else { return }
            audio.pausedByUs = false
            guard e["shouldResume"]?.boolValue == true else { return }
            call(.method("Play", [], timeoutMs: Self.callTimeoutMs), for: .interruption("Play after interruption"))
        }
    }
}
