import Glibc
import PlayerHostBase
import PlayerHostClient
import PlayerHostRPC

/// One connection's worth of `--follow`: subscribes, reads every followed player's value, then
/// keeps them current from the daemon's events and prints the line of the first player in
/// `FollowedPlayers`' order that has one, each time a followed change, a player coming or going
/// or the tick asks for it. Throws `Follower.ConnectionLost` when the daemon goes away.
///
/// Replies are newer than every event received before them on the same connection: each value
/// remembers how many events had arrived when it was read, and older events do not overwrite it.
struct FollowConnection {
    let follower: Follower
    let scope: Follower.Scope
    let remote: HostLink
    private var players: [String: FollowedPlayer] = [:]
    private var order: FollowedPlayers
    /// Per player: the number of events received when its value was read.
    private var fresh: [String: Int] = [:]
    /// The Now Playing session (its changes come as `nowPlaying` events), and since which event.
    private var slot: String?
    private var slotFresh = 0
    /// Events taken so far.
    private var consumed = 0
    private var nextTick: Double
    /// Sessions created but not yet shown (an imported player's session is created before its
    /// first values arrive: shown at once it would be a Stopped player for a moment): each
    /// appears with its first info change, or after `settle` seconds without one.
    private var pending: [String: (target: PlayerTarget, due: Double)] = [:]
    static let settle = 1.0

    init(follower: Follower, scope: Follower.Scope, remote: HostLink) {
        self.follower = follower
        self.scope = scope
        self.remote = remote
        if case .selected(false) = scope {
            order = FollowedPlayers(selection: playerctlOptions.selection, allPlayers: playerctlOptions.allPlayers)
        } else {
            order = FollowedPlayers(selection: PlayerSelection(), allPlayers: true)
        }
        nextTick = InfoSnapshot.hostNow() + 1
    }

    mutating func run(_ printer: inout FollowPrinter) throws {
        var topics: [JSON] = ["info", "sessions"]
        if scope == .exported || scope == .selected(everySession: false) { topics.append("nowPlaying") }
        if follower.withCommands { topics += ["commands", "players"] }
        try guarded("events.subscribe", ["topics": .array(topics)])
        var present: [String] = []
        for t in candidates(try sessionIDs()) where order.selects(t.instance) {
            guard let p = try read(t) else { continue }
            players[t.instance] = p
            present.append(t.instance)
        }
        order.start(with: present)
        render(&printer)
        while true {
            switch try next() {
            case .tick: render(&printer)
            case .settled: if try appearSettled() { render(&printer) }
            case .event(let seq, let p): if try handle(seq, p) { render(&printer) }
            }
        }
    }

    /// The players there are among the daemon's sessions, in `-l`'s order.
    private func candidates(_ ids: [String]) -> [PlayerTarget] {
        switch scope {
        case .exported: return [PlayerTarget(instance: PlayerTarget.exported, session: nil)]
        case .named(let id): return ids.contains(id) ? [PlayerTarget(instance: id, session: id)] : []
        case .selected(true): return ids.map { PlayerTarget(instance: $0, session: $0) }
        case .selected(false): return [PlayerTarget(instance: PlayerTarget.exported, session: nil)] + ids.compactMap(imported)
        }
    }

    /// The player a new session is, if it is one this follow may watch.
    private func player(forNewSession id: String) -> PlayerTarget? {
        switch scope {
        case .exported: return nil
        case .named(let named): return id == named ? PlayerTarget(instance: id, session: id) : nil
        case .selected(true): return PlayerTarget(instance: id, session: id)
        case .selected(false): return imported(id)
        }
    }

    private func imported(_ id: String) -> PlayerTarget? {
        guard id.hasPrefix(PlayerTarget.importPrefix) else { return nil }
        return PlayerTarget(instance: String(id.dropFirst(PlayerTarget.importPrefix.count)), session: id)
    }

    /// Applies one event; true when a line should be made again.
    private mutating func handle(_ seq: Int, _ p: JSON) throws -> Bool {
        let id = p["session"]?.stringValue
        switch (p["topic"]?.stringValue, p["type"]?.stringValue) {
        case ("sessions", "sessionCreated"):
            guard let id, let t = player(forNewSession: id), order.selects(t.instance), players[t.instance] == nil else { return false }
            pending[id] = (t, InfoSnapshot.hostNow() + Self.settle)
            return false
        case ("sessions", "sessionClosed"):
            if let id { pending[id] = nil }
            let gone = players.values.filter { $0.target.session != nil && $0.target.session == id }.map(\.target.instance)
            for instance in gone {
                players[instance] = nil
                order.vanish(instance)
            }
            return !gone.isEmpty
        case ("nowPlaying", _):
            guard players[PlayerTarget.exported] != nil, seq >= slotFresh, let value = p["nowPlaying"] else { return false }
            slot = value["session"]?.stringValue
            guard seq >= fresh[PlayerTarget.exported, default: 0] else { return false }
            let raw = try shown(nowPlaying: value)
            return try update(PlayerTarget.exported, raw: raw)
        case ("info", "infoChanged"):
            guard let id else { return false }
            if pending[id] != nil { return try appear(id) }
            var again = false
            for (instance, player) in players where player.target.session == id && seq >= fresh[instance, default: 0] {
                again = try update(instance, raw: p) || again
            }
            // The exported player shows a session other than the slot's: its changes come here.
            if let exported = players[PlayerTarget.exported], exported.raw["session"]?.stringValue == id, id != slot,
               seq >= fresh[PlayerTarget.exported, default: 0] {
                let raw = try exportedValue(else: exported.raw)
                fresh[PlayerTarget.exported] = received  // read now: newer than what waits
                again = try update(PlayerTarget.exported, raw: raw) || again
            }
            return again
        default:
            // A command center changed (loop, shuffle, what can be done): read it again.
            guard follower.withCommands, let id else { return false }
            var again = false
            for (instance, player) in players where player.raw["session"]?.stringValue == id {
                again = try update(instance, raw: player.raw) || again
            }
            return again
        }
    }

    /// A pending session's player appears with its value read now (nil: gone meanwhile).
    private mutating func appear(_ id: String) throws -> Bool {
        guard let t = pending.removeValue(forKey: id)?.target, let value = try read(t) else { return false }
        players[t.instance] = value
        order.appear(t.instance)
        return true
    }

    /// The pending sessions whose time is up appear.
    private mutating func appearSettled() throws -> Bool {
        let now = InfoSnapshot.hostNow()
        var again = false
        for (id, p) in pending where p.due <= now { again = try appear(id) || again }
        return again
    }

    /// Takes a player's new value (and, with commands, its command center read now); true when
    /// the change is one the verb follows, which makes it the most recently active player.
    private mutating func update(_ instance: String, raw: JSON) throws -> Bool {
        guard var player = players[instance] else { return false }
        let old = player.view
        player.raw = raw
        // Only the commands are read now: the value is the event's, so newer events still apply.
        if follower.withCommands { player.commands = try commands(of: raw) }
        players[instance] = player
        let changes = PlayerChange.between(old, player.view, commandsKnown: follower.withCommands, now: InfoSnapshot.hostNow())
        guard !changes.isDisjoint(with: follower.rule.triggers) else { return false }
        order.touch(instance)
        return true
    }

    /// The line of the first player that has one, or the cleared line.
    private func render(_ printer: inout FollowPrinter) {
        let now = InfoSnapshot.hostNow()
        for instance in order.order {
            guard let p = players[instance], let text = follower.line(p, now) else { continue }
            return printer.show(follower.global.json ? p.json.jsonString : text)
        }
        printer.show(nil)
    }

    // MARK: - Reading from the daemon

    /// Events received so far (taken and waiting): a reply read now is newer than all of them.
    private var received: Int { consumed + remote.client.notifications.count }

    /// A player's value now; nil when its session is gone.
    private mutating func read(_ t: PlayerTarget) throws -> FollowedPlayer? {
        let raw: JSON
        if let id = t.session {
            do throws(ClientError) { raw = try remote.client.call("info.get", ["session": .string(id)]) } catch {
                if case .rpc = error { return nil }
                throw Follower.ConnectionLost()
            }
        } else {
            let np = try guarded("nowPlaying.get", [:])
            slot = np["session"]?.stringValue
            slotFresh = received
            raw = try shown(nowPlaying: np)
        }
        fresh[t.instance] = received
        let commands = follower.withCommands ? try commands(of: raw) : nil
        return FollowedPlayer(target: t, raw: raw, commands: commands, language: follower.global.language)
    }

    /// What the export shows while `nowPlaying` is the Now Playing value: that value, unless it
    /// is an imported player's (the export then shows a host session, or nothing).
    private func shown(nowPlaying: JSON) throws -> JSON {
        guard nowPlaying["session"]?.stringValue?.hasPrefix(PlayerTarget.importPrefix) == true else { return nowPlaying }
        return try exportedValue(else: nowPlaying)
    }

    /// `mpris.get`; `fallback` from a daemon without it (which mirrors Now Playing).
    private func exportedValue(else fallback: JSON) throws -> JSON {
        do throws(ClientError) { return try remote.client.call("mpris.get") } catch {
            switch error {
            case .closed, .noDaemon, .io: throw Follower.ConnectionLost()
            case .rpc(let e) where e.code == RPCErrorCode.methodNotFound.rawValue: return fallback
            default: throw HostLink.failure(error)
            }
        }
    }

    /// A value's command center (none when nothing is shown, or its session is gone).
    private func commands(of raw: JSON) throws -> [JSON] {
        guard let id = raw["session"]?.stringValue else { return [] }
        do throws(ClientError) {
            return try remote.client.call("session.get", ["session": .string(id)])["commands"]?.arrayValue ?? []
        } catch {
            if case .rpc = error { return [] }
            throw Follower.ConnectionLost()
        }
    }

    private func sessionIDs() throws -> [String] {
        try guarded("session.list", [:]).arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    /// Runs a client call; a lost connection becomes `ConnectionLost`, other errors one line.
    @discardableResult
    private func guarded(_ method: String, _ params: [String: JSON]) throws -> JSON {
        do throws(ClientError) { return try remote.client.call(method, params) } catch {
            switch error {
            case .closed, .noDaemon, .io: throw Follower.ConnectionLost()
            default: throw HostLink.failure(error)
            }
        }
    }

    enum Wake {
        /// An event: its number and params.
        case event(Int, JSON)
        /// The line is due again (a template with `position`).
        case tick
        /// A pending session waited long enough.
        case settled
    }

    /// What comes next: an event, the tick, a pending session's time. Waits as long as it takes
    /// otherwise: a quiet player is not an error.
    private mutating func next() throws -> Wake {
        while true {
            let now = InfoSnapshot.hostNow()
            var wait = 3600.0
            if follower.rule.ticks {
                if now >= nextTick {
                    // Once a second, on the second it started (a late tick does not pile up).
                    nextTick = max(nextTick + 1, now + 0.5)
                    return .tick
                }
                wait = nextTick - now
            }
            if let due = pending.values.map(\.due).min() {
                if now >= due { return .settled }
                wait = min(wait, due - now)
            }
            do throws(ClientError) {
                let n = try remote.client.nextNotification(timeout: wait)
                consumed += 1
                if n["method"] == "event", let p = n["params"] { return .event(consumed - 1, p) }
            } catch {
                switch error {
                case .timeout: continue
                case .closed, .io: throw Follower.ConnectionLost()
                default: throw HostLink.failure(error)
                }
            }
        }
    }
}
