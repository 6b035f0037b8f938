/// Creates the sessions the configuration file names, at start, through the same model
/// operations the protocol uses. They belong to the host, so they outlive every client.
public enum ConfiguredSessions {
    public static func create(_ sessions: [SessionConfig], in np: NowPlayingService) throws(RPCError) {
        for s in sessions { try create(s, in: np) }
    }

    static func create(_ s: SessionConfig, in np: NowPlayingService) throws(RPCError) {
        let kind = try ModelParams.wrap { try SessionKind(s.kind) }
        try np.perform { m, t in
            try m.createSession(id: s.id, kind: kind, playerCount: s.players,
                                automaticallyPublishes: s.automaticallyPublishes ?? true,
                                backgroundAudio: s.backgroundAudio ?? false, now: t)
        }
        let category = try ModelParams.wrap { try AudioCategory.parse(s.category ?? "playback", field: "category") }
        var options = Set<AudioOption>()
        for o in s.options ?? [] { options.insert(try ModelParams.wrap { try AudioOption.parse(o, field: "options") }) }
        try np.perform { m, t in try m.configureAudio(session: s.id, category: category, options: options, now: t) }
        if s.bindDefaults ?? true {
            try np.perform { m, t in try m.bindDefaultCommands(session: s.id, now: t) }
        }
        var items: [MediaItem] = []
        for item in s.items ?? [] { items.append(try ModelParams.wrap { try MediaItem(json: item.json) }) }
        let playerCount = try np.read { m, _ in m.players(of: try m.session(s.id)).count }
        for p in 0..<playerCount where !items.isEmpty {
            try np.perform { m, t in try m.load(session: s.id, player: p, items: items, now: t) }
            if let r = s.repeatMode {
                let mode = try ModelParams.wrap { try RepeatMode.parse(r, field: "repeat") }
                try np.perform { m, t in try m.setRepeat(session: s.id, player: p, mode, now: t) }
            }
        }
        if s.activate ?? true {
            try np.perform { m, t in try m.activateAudio(session: s.id, now: t) }
        }
        if s.autoplay ?? false {
            for p in 0..<playerCount where !items.isEmpty {
                try np.perform { m, t in try m.play(session: s.id, player: p, now: t) }
            }
        }
    }
}
