import PlayerHostPluginAPI

/// The queue verbs an mpc user expects, on an mpv session's own queue: `mpv.clear`,
/// `mpv.remove {index}`, `mpv.move {from, to}` and `mpv.jump {index}` (indices 0-based; npctl's
/// `clear`, `remove N`, `move FROM TO` and `play N` count from 1). The host's `player.*` methods
/// edit the model's queue of a session the host drives; an mpv session's queue is mpv's, so the
/// plugin edits it there and reports the result like any other change (`player.sync`).
extension MPVPlugin {
    func provideQueueEdits(_ c: PluginContext) {
        typealias Edit = MPVQueuePlan.Edit
        let edits: [(name: String, summary: String, params: [String], wait: MPVSessionMachine.EditWait, make: ([String: JSON]) -> Result<Edit, RPCError>)] = [
            ("mpv.clear", "Empty an mpv session's queue and stop: {session?} → the session.", [], .acknowledged, { _ in .success(.clear) }),
            ("mpv.remove", "Remove an item from an mpv session's queue: {session?, index} (0-based) → the session.", ["index"],
             .acknowledged, { p in Self.index("index", p).map(Edit.remove) }),
            ("mpv.move", "Move an item of an mpv session's queue so that it ends at index `to`: {session?, from, to} (0-based) → the session.",
             ["from", "to"], .acknowledged, { p in
                 Self.index("from", p).flatMap { from in Self.index("to", p).map { Edit.move(from: from, to: $0) } }
             }),
            ("mpv.jump", "Play the item at an index of an mpv session's queue: {session?, index} (0-based) → the session.", ["index"],
             .restart, { p in Self.index("index", p).map(Edit.jump) }),
        ]
        for e in edits {
            c.provide(e.name, summary: e.summary) { [weak self] params, reply in
                guard let self else { return reply(.failure(RPCError(.shuttingDown, "the mpv plugin is detached"))) }
                self.queueEdit(e.name, params, allowed: e.params, wait: e.wait, e.make, reply)
            }
        }
    }

    /// A non-negative integer parameter.
    static func index(_ key: String, _ p: [String: JSON]) -> Result<Int, RPCError> {
        guard let v = p[key] else { return .failure(.invalidParams("\(key) is required", param: key)) }
        guard let n = v.intValue, n >= 0, n <= Int64(Int32.max) else {
            return .failure(.invalidParams("\(key): a non-negative integer is required", param: key))
        }
        return .success(Int(n))
    }

    private func queueEdit(_ method: String, _ p: [String: JSON], allowed: [String], wait: MPVSessionMachine.EditWait,
                           _ make: ([String: JSON]) -> Result<MPVQueuePlan.Edit, RPCError>,
                           _ reply: @escaping (Result<JSON, RPCError>) -> Void) {
        guard let c = context else { return reply(.failure(RPCError(.shuttingDown, "the mpv plugin is detached"))) }
        for key in p.keys where key != "session" && !allowed.contains(key) {
            return reply(.failure(.invalidParams("\(method) has no parameter '\(key)'", param: key)))
        }
        if let s = p["session"], s.stringValue == nil { return reply(.failure(.invalidParams("session: a string is required", param: "session"))) }
        let edit: MPVQueuePlan.Edit
        switch make(p) {
        case .failure(let e): return reply(.failure(e))
        case .success(let x): edit = x
        }
        let named = p["session"]?.stringValue
        guard let ctl = controller(named: named) else {
            return reply(.failure(RPCError(.sessionNotFound, named.map { "no mpv session '\($0)'" } ?? "no mpv session: open something first (npctl open FILE)",
                                           data: named.map { ["session": .string($0)] })))
        }
        touch(ctl.session)
        let session = JSON.string(ctl.session)
        ctl.edit(.init(plan: .queue(edit), wait: wait)) { result in
            switch result {
            case .failure(.outOfRange(let e)):
                reply(.failure(RPCError(.invalidArgument, e.message,
                                        data: ["param": .string(e.param), "index": .int(Int64(e.index)), "count": .int(Int64(e.count))])))
            case .failure(.mpv(let e)):
                reply(.failure(RPCError(.pluginFailure, "mpv: \(e.message)")))
            case .success:
                guard case .jump = edit else { return c.call("session.get", ["session": session]) { reply($0) } }
                // A jump plays, as a press of play does: through the host, which re-activates an
                // interrupted session first (see `mpv.open`).
                c.call("command.send", ["command": "play", "session": session]) { played in
                    if case .success(let r) = played, let why = r["reason"]?.stringValue {
                        return reply(.failure(RPCError(.invalidState, "jumped, but cannot play: \(why)")))
                    }
                    c.call("session.get", ["session": session]) { reply($0) }
                }
            }
        }
    }
}
