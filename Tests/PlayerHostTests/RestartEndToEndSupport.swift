import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient

/// What the restart suites (`RestartEndToEndTests`, `RestartRecoveryEndToEndTests`) share: the
/// issue 12 session they keep, waits on the state file, and a config file with sessions.
enum RestartSupport {
    /// The session: two items, on item 2 at 42 s, repeat one, item info (it publishes
    /// automatically, so its info travels in the item), skip intervals [5, 30], nextTrack
    /// disabled, eligible (and so Now Playing).
    static func makeKeep(_ c: ControlClient) throws {
        try c.call("session.create", ["id": "keep", "kind": "main"])
        try c.call("audio.configure", ["session": "keep", "category": "playback"])
        try c.call("audio.activate", ["session": "keep"])
        try c.call("player.load", ["session": "keep", "items": [
            ["title": "A", "duration": 100], ["title": "B", "duration": 200, "info": ["albumTitle": "Kept"]],
        ]])
        try c.call("command.bindDefaults", ["session": "keep"])
        try c.call("player.next", ["session": "keep"])
        try c.call("player.seek", ["session": "keep", "position": 42])
        try c.call("player.setRepeat", ["session": "keep", "mode": "one"])
        try c.call("command.configure", ["session": "keep", "command": "skipForward", "preferredIntervals": [5, 30]])
        try c.call("command.enable", ["session": "keep", "command": "nextTrack", "enabled": false])
    }

    static func command(_ s: JSON, _ name: String) -> JSON? {
        s["commands"]?.arrayValue?.first { $0["command"]?.stringValue == name }
    }

    /// Everything `makeKeep` set, and paused at `position` within `tolerance`.
    static func expectKeep(_ s: JSON, position: Double, tolerance: Double,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        let p = s["players"]?.arrayValue?.first
        // Replies carry the current item and the count; the queue itself is read with player.queue.
        #expect(p?["queueCount"]?.intValue == 2, sourceLocation: sourceLocation)
        #expect(p?["currentItem"]?["title"] == "B", sourceLocation: sourceLocation)
        #expect(p?["itemIndex"]?.intValue == 1, sourceLocation: sourceLocation)
        let elapsed = p?["elapsed"]?.doubleValue ?? -1
        #expect(abs(elapsed - position) <= tolerance, "elapsed \(elapsed), expected \(position)", sourceLocation: sourceLocation)
        #expect(p?["playbackState"] == "paused", sourceLocation: sourceLocation)
        #expect(p?["repeatMode"] == "one", sourceLocation: sourceLocation)
        #expect(s["info"]?["albumTitle"] == "Kept", sourceLocation: sourceLocation)
        #expect(command(s, "skipForward")?["preferredIntervals"] == [5.0, 30.0], sourceLocation: sourceLocation)
        #expect(command(s, "nextTrack")?["isEnabled"] == false, sourceLocation: sourceLocation)
        #expect(command(s, "play")?["isAvailable"] == true, sourceLocation: sourceLocation)
        #expect(s["audio"]?["category"] == "playback" && s["audio"]?["active"] == true, sourceLocation: sourceLocation)
        #expect(s["isNowPlaying"] == true, sourceLocation: sourceLocation)
    }

    /// Waits (with a deadline) until the state file holds what was changed: no write pending.
    static func waitForWrite(_ d: DaemonHarness, atLeast writes: Int = 1) throws -> Bool {
        let c = try d.client()
        for _ in 0..<200 {
            let st = try c.call("host.stats")["state"]
            if (st?["writes"]?.intValue ?? 0) >= writes, st?["pending"] == false { return true }
            _ = d.runUntil(0.05) { false }
        }
        return false
    }

    /// A config file at `path` listing `sessions` (one item each).
    static func writeConfig(_ path: String, sessions: [String], extra: String = "") throws {
        var text = "command_timeout_ms = 500\n" + extra
        for s in sessions { text += "[[session]]\nid = \"\(s)\"\nkind = \"main\"\n[[session.item]]\ntitle = \"\(s) song\"\nduration = 60\n" }
        try runShell("cat > '\(path)' <<'EOF'\n\(text)EOF")
    }

    static func sessionIDs(_ c: ControlClient) throws -> [String] {
        (try c.call("session.list").arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }

    /// The error `method` answers with, nil if it succeeds (here and in `MPVEndToEndTests`).
    static func refusal(_ c: ControlClient, _ method: String, _ params: [String: JSON]) throws -> RPCError? {
        do throws(ClientError) {
            _ = try c.call(method, params)
            return nil
        } catch {
            guard case .rpc(let e) = error else { throw error }
            return e
        }
    }
}
