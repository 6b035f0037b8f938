import PlayerHostPluginAPI

/// Creates the configured clock-player sessions (main, pip, multiview, …): pure timelines with no
/// audio, deterministic under a test clock. It acts for the host, so the sessions belong to the
/// host and outlive every client.
public final class ClockSessionsPlugin: SessionPlugin {
    public let name = "clock-sessions"
    public var actsForHost: Bool { true }
    private(set) var sessions: [SessionConfig]
    private var context: PluginContext?

    public init(sessions: [SessionConfig]) { self.sessions = sessions }

    public func attach(_ context: PluginContext) {
        self.context = context
        setUpMissing(sessions, context)
    }

    public func detach() { context = nil }

    /// A reload: sessions new to the config are set up (the host closes removed ones itself).
    public func reload(_ config: HostConfig) {
        let known = Set(sessions.map(\.id))
        let added = config.sessions.filter { !known.contains($0.id) }
        sessions = config.sessions
        if let context, !added.isEmpty { setUpMissing(added, context) }
    }

    /// Sets up the sessions that do not exist yet: one the host restored from its state file
    /// keeps its saved state. Requests on one connection run in order, so the set-up is sent as
    /// one pipelined burst; a failing step is logged and the rest go on.
    func setUpMissing(_ list: [SessionConfig], _ c: PluginContext) {
        c.call("session.list") { [weak self] result in
            let existing = Set((try? result.get().arrayValue)?.compactMap { $0["id"]?.stringValue } ?? [])
            for s in list where !existing.contains(s.id) { self?.setUp(s, c) }
        }
    }

    func setUp(_ s: SessionConfig, _ c: PluginContext) {
        let id = JSON.string(s.id)
        var create: [String: JSON] = ["id": id, "kind": .string(s.kind)]
        if let p = s.players { create["players"] = .int(Int64(p)) }
        if let a = s.automaticallyPublishes { create["automaticallyPublishes"] = .bool(a) }
        if let b = s.backgroundAudio { create["backgroundAudio"] = .bool(b) }
        c.send("session.create", create)
        var audio: [String: JSON] = ["session": id, "category": .string(s.category ?? "playback")]
        if let o = s.options { audio["options"] = .array(o.map(JSON.string)) }
        c.send("audio.configure", audio)
        if s.bindDefaults ?? true { c.send("command.bindDefaults", ["session": id]) }
        let items = (s.items ?? []).map(\.json)
        let players = s.players ?? ((try? SessionKind(s.kind))?.defaultPlayerCount ?? 1)
        if !items.isEmpty {
            for p in 0..<players {
                let player = JSON.int(Int64(p))
                c.send("player.load", ["session": id, "player": player, "items": .array(items)])
                if let r = s.repeatMode { c.send("player.setRepeat", ["session": id, "player": player, "mode": .string(r)]) }
            }
        }
        // Activated right before it plays (the seeds' advice), never at start or reload: an
        // active non-mixable session interrupts other apps, and an idle one paused whatever the
        // user was listening to (issue 22). Without autoplay, its first play command activates
        // it (`command.send` re-activates a session that starts playback).
        if s.autoplay ?? false, !items.isEmpty {
            if s.activate ?? true { c.send("audio.activate", ["session": id]) }
            for p in 0..<players { c.send("player.play", ["session": id, "player": .int(Int64(p))]) }
        }
    }
}
