import Glibc
import PlayerHostPluginAPI

/// Real playback: sessions whose player is an `mpv` child process driven over its JSON IPC.
///
/// It offers `mpv.open {session?, urls, append?, next?, ao?, vo?}` (what `npctl open` calls: by
/// default the files replace the queue and the first plays, as `mpv FILE` does), the queue edits
/// `mpv.clear`, `mpv.remove`, `mpv.move` and `mpv.jump` (see `+Queue`), and `mpv.status
/// {session?}`, through the host. `mpv.open` creates, if needed, an externally driven session
/// (kind `mpv`, category playback, activated) whose command center targets this plugin, starts
/// its mpv and loads the files. mpv's state reaches the host as `player.sync` reports at key
/// moments (see `MPVController`). It is an app of its own (`mpv`): its sessions go with it.
///
/// Its sessions survive a daemon restart: after every report it hands the host what reopening
/// them takes (`MPVSavedSession`, through `plugin.saveState`, kept in the host's state file), and
/// at attach it reopens what the host gives back (`plugin.savedState`) — same session ids, each in
/// a new mpv, on its item at its position, paused.
public final class MPVPlugin: SessionPlugin {
    public let name = "mpv"
    public private(set) var options: MPVOptions
    private(set) var context: PluginContext?
    private var controllers: [String: MPVController] = [:]
    /// Sessions by last use: `mpv.open` without a session goes to the most recent one.
    private var recent: [String] = []
    private var socketDirectory: String?
    private var socketCounter = 0
    /// Nothing is saved before the kept state was read back (it would overwrite it).
    private var savedStateRead = false
    /// Kept sessions whose host session is being created: saved as they were meanwhile.
    private var reopening: [MPVSavedSession] = []
    /// Sessions `mpv.open` is creating, by the name asked for (`defaultCreation` for none), each
    /// with the opens waiting for it: an open of a session being created joins that creation
    /// instead of creating another (20 OpenUri at once made 20 sessions, 20 mpv).
    private var creations: [String: [(Result<MPVController, RPCError>) -> Void]] = [:]
    private static let defaultCreation = "\u{0}default"
    /// The last state value handed to the host (an identical one is not sent again).
    private var lastSaved: JSON?
    /// Rates offered on `changePlaybackRate` (mpv plays any; these are what remotes show).
    static let supportedRates: [JSON] = [0.5, 1.0, 1.5, 2.0]
    /// `changeVolume`'s loudest level: mpv amplifies up to its `volume-max`, 130 % by default.
    static let maximumVolume = 1.3

    public init(options: MPVOptions) { self.options = options }

    /// The plugin if mpv is installed (see `MPVOptions.fromEnvironment`), else nil.
    public static func fromEnvironment(config: MPVConfig? = nil) -> MPVPlugin? {
        MPVOptions.fromEnvironment(config: config).map(MPVPlugin.init)
    }

    public func attach(_ c: PluginContext) {
        context = c
        c.provide("mpv.open", summary: "Open files or URLs in an mpv session (created if needed): {session?, urls, append?, next?, ao?, vo?} → the session. By default they replace the queue and the first plays; append: after the last item, next: after the current one (neither changes what plays).") {
            [weak self] params, reply in
            guard let self else { return reply(.failure(RPCError(.shuttingDown, "the mpv plugin is detached"))) }
            self.open(params, reply)
        }
        c.provide("mpv.status", summary: "An mpv session's process: {session?} → {session, phase, pid, socket, restarts, …}.") {
            [weak self] params, reply in
            guard let self else { return reply(.failure(RPCError(.shuttingDown, "the mpv plugin is detached"))) }
            guard let ctl = self.controller(named: params["session"]?.stringValue) else {
                return reply(.failure(RPCError(.sessionNotFound, "no mpv session\(params["session"]?.stringValue.map { " '\($0)'" } ?? "")")))
            }
            reply(.success(ctl.statusJSON))
        }
        provideQueueEdits(c)
        // To learn that one of our sessions was closed (by anyone) and stop its mpv.
        c.subscribe(["sessions"])
        c.onEvent = { [weak self] event in self?.event(event) }
        c.call("plugin.savedState") { [weak self] result in
            guard let self else { return }
            self.savedStateRead = true
            switch result {
            case .success(let r): self.reopen(MPVSavedSession.sessions(in: r["state"]), savedAt: r["savedAt"]?.doubleValue)
            case .failure(let e): self.log("cannot read the sessions kept across restarts: \(e.message)")
            }
        }
    }

    /// A reload applies `[mpv] max_sessions` to the next `mpv.open` (sessions over a lowered
    /// cap go on; new ones wait until enough are closed), and `ao`, `audio_device` and `vo` to
    /// the players started from then on (a running mpv keeps its output).
    public func reload(_ config: HostConfig) {
        options.apply(config.mpv)
    }

    public func detach() {
        for ctl in controllers.values {
            ctl.removesDirectoryOnExit = true
            ctl.stop()
        }
        controllers.removeAll()
        recent.removeAll()
        reopening.removeAll()
        let waiting = creations.values.flatMap { $0 }
        creations.removeAll()
        for w in waiting { w(.failure(RPCError(.shuttingDown, "the mpv plugin is detached"))) }
        savedStateRead = false
        lastSaved = nil
        context = nil
        if let dir = socketDirectory { rmdir(dir) }
        socketDirectory = nil
    }

    func controller(named id: String?) -> MPVController? {
        if let id { return controllers[id] }
        return recent.last.flatMap { controllers[$0] }
    }

    func touch(_ id: String) {
        recent.removeAll { $0 == id }
        recent.append(id)
    }

    private func event(_ e: JSON) {
        guard let session = e["session"]?.stringValue, let ctl = controllers[session] else { return }
        switch e["type"]?.stringValue {
        case "sessionClosed":
            ctl.stop()
            controllers[session] = nil
            recent.removeAll { $0 == session }
            saveState()
        case "interruption":
            ctl.interruption(began: e["interruption"] == "began", shouldResume: e["shouldResume"]?.boolValue ?? false)
        default:
            break
        }
    }

    // MARK: - mpv.open

    private func open(_ p: [String: JSON], _ reply: @escaping (Result<JSON, RPCError>) -> Void) {
        guard let c = context else { return reply(.failure(RPCError(.shuttingDown, "the mpv plugin is detached"))) }
        for key in p.keys where !["session", "urls", "replace", "append", "next", "ao", "vo"].contains(key) {
            return reply(.failure(.invalidParams("mpv.open has no parameter '\(key)'", param: key)))
        }
        guard let list = p["urls"]?.arrayValue, !list.isEmpty else {
            return reply(.failure(.invalidParams("urls: a non-empty array of files or URLs is required", param: "urls")))
        }
        let urls = list.compactMap(\.stringValue)
        guard urls.count == list.count, !urls.contains(where: \.isEmpty) else {
            return reply(.failure(.invalidParams("urls: each must be a non-empty string", param: "urls")))
        }
        // Checked before anything is created or started: a refused request changes nothing.
        for (i, url) in urls.enumerated() {
            if let why = options.policy.checkURL(url) { return reply(.failure(.invalidParams("urls[\(i)]: \(why)", param: "urls"))) }
        }
        for (key, check) in [("ao", options.policy.checkAudioOutput), ("vo", options.policy.checkVideoOutput)] {
            guard let value = p[key] else { continue }
            guard let name = value.stringValue else { return reply(.failure(.invalidParams("\(key): a string is required", param: key))) }
            if let why = check(name) { return reply(.failure(.invalidParams(why, param: key))) }
        }
        let mode: MPVQueuePlan.LoadMode
        switch Self.loadMode(p) {
        case .failure(let e): return reply(.failure(e))
        case .success(let m): mode = m
        }
        let named = p["session"]?.stringValue
        let load = { [weak self] (ctl: MPVController) in
            self?.touch(ctl.session)
            if let ao = p["ao"]?.stringValue { ctl.audioOutput = ao }
            if let vo = p["vo"]?.stringValue { ctl.videoOutput = vo }
            ctl.load(urls, mode: mode) { error in
                if let error { return reply(.failure(RPCError(.pluginFailure, "mpv: \(error.message)"))) }
                // Queued (mpc add/insert): what plays, and whether, stays as it was.
                guard mode == .replace else { return c.call("session.get", ["session": .string(ctl.session)]) { reply($0) } }
                // Open means play, as a press of play does: the host re-activates an interrupted
                // session (interrupting the others) before mpv plays, or says why it cannot.
                // (mpv may still be loading the file: only the host's refusal, which has a reason, fails the open.)
                c.call("command.send", ["command": "play", "session": .string(ctl.session)]) { played in
                    if case .success(let r) = played, let why = r["reason"]?.stringValue {
                        return reply(.failure(RPCError(.invalidState, "opened, but cannot play: \(why)")))
                    }
                    c.call("session.get", ["session": .string(ctl.session)]) { reply($0) }
                }
            }
        }
        // A session made to queue into does not take the audio (and interrupt what plays): it
        // activates when it plays (a play re-activates, see `command.send`).
        session(named, c, activate: mode == .replace) { result in
            switch result {
            case .failure(let e): reply(.failure(e))
            case .success(let ctl): load(ctl)
            }
        }
    }

    /// `mpv.open`'s mode: `append` or `next` (not both), else replace. `replace: false`, what
    /// appending was asked with before replacing became the default, still appends.
    static func loadMode(_ p: [String: JSON]) -> Result<MPVQueuePlan.LoadMode, RPCError> {
        var flags: [String: Bool] = [:]
        for key in ["replace", "append", "next"] {
            guard let v = p[key] else { continue }
            guard let b = v.boolValue else { return .failure(.invalidParams("\(key): a boolean is required", param: key)) }
            flags[key] = b
        }
        let append = flags["append"] ?? false, next = flags["next"] ?? false
        if append && next { return .failure(.invalidParams("append and next: one or the other", param: "next")) }
        if flags["replace"] == true && (append || next) {
            return .failure(.invalidParams("replace and \(append ? "append" : "next"): one or the other", param: "replace"))
        }
        if next { return .success(.next) }
        if append || flags["replace"] == false { return .success(.append) }
        return .success(.replace)
    }

    /// The controller of session `named` (the most recent one for nil): the existing one, the one
    /// being created (joined), or a new one — unless that would pass `maxSessions`.
    func session(_ named: String?, _ c: PluginContext, activate: Bool = true,
                 _ done: @escaping (Result<MPVController, RPCError>) -> Void) {
        if let ctl = controller(named: named) { return done(.success(ctl)) }
        let key = named ?? Self.defaultCreation
        if creations[key] != nil {
            creations[key, default: []].append(done)
            return
        }
        // Checked before anything is created: sessions running, being created, being reopened.
        let limit = options.maxSessions
        guard controllers.count + creations.count + reopening.count < limit else {
            return done(.failure(RPCError(.limitExceeded, "Limit exceeded: mpv.max_sessions (limit \(limit)): close an mpv session first",
                                          data: ["limit": "mpv.max_sessions", "value": .int(Int64(limit))])))
        }
        creations[key] = [done]
        createSession(named, c, activate: activate) { [weak self] result in
            guard let self else { return }
            let waiting = self.creations.removeValue(forKey: key) ?? []
            let outcome: Result<MPVController, RPCError>
            switch result {
            case .failure(let e):
                outcome = .failure(e)
            case .success(let id):
                // (A controller of that id already there is the one to use, never a second mpv.)
                if let ctl = self.controllers[id] ?? self.makeController(id) {
                    outcome = .success(ctl)
                } else {
                    outcome = .failure(RPCError(.pluginFailure, "cannot make a private directory for mpv's socket"))
                }
            }
            for w in waiting { w(outcome) }
        }
    }

    /// Creates an external session, its audio (playback; active unless `activate` is false) and
    /// its command targets; `completion` gets its id once the host has done it all.
    private func createSession(_ id: String?, _ c: PluginContext, activate: Bool = true,
                               _ completion: @escaping (Result<String, RPCError>) -> Void) {
        var create: [String: JSON] = ["kind": "mpv", "driver": "external"]
        if let id { create["id"] = .string(id) }
        c.call("session.create", create) { result in
            switch result {
            case .failure(let e):
                completion(.failure(e))
            case .success(let s):
                guard let sid = s["id"]?.stringValue else { return completion(.failure(.internalError("session.create gave no id"))) }
                let session = JSON.string(sid)
                c.send("audio.configure", ["session": session, "category": "playback"])
                c.send("command.configure", ["session": session, "command": "changePlaybackRate",
                                             "supportedPlaybackRates": .array(Self.supportedRates)])
                c.send("command.configure", ["session": session, "command": "changeVolume",
                                             "maximumVolume": .double(Self.maximumVolume)])
                for command in MPVCommandPlan.handled {
                    c.addTarget(session: sid, command: command) { [weak self] event, reply in
                        guard let ctl = self?.controllers[sid] else { return reply(.commandFailed) }
                        ctl.perform(event, reply)
                    }
                }
                // Calls are answered in order: once this one is, the set-up above is done.
                c.call(activate ? "audio.activate" : "session.get", ["session": session]) { result in
                    switch result {
                    case .success: completion(.success(sid))
                    case .failure(let e): completion(.failure(e))
                    }
                }
            }
        }
    }

    private func makeController(_ session: String) -> MPVController? {
        if socketDirectory == nil { socketDirectory = MPVOptions.makeSocketDirectory() }
        // mpv is a process on the daemon's loop: an embedded host (no loop) gets no players.
        guard let dir = socketDirectory, let c = context, let loop = c.loop else { return nil }
        socketCounter += 1
        let ctl = MPVController(session: session, loop: loop, options: options, socketPath: "\(dir)/\(socketCounter).sock")
        ctl.report = { [weak self, weak c] params, done in
            guard let c else { return done() }
            var p = params
            p["session"] = .string(session)
            c.call("player.sync", p) { result in
                if case .failure(let e) = result {
                    let line = "plugin mpv: player.sync for \(session) failed: \(e.message)\n"
                    _ = line.withCString { write(2, $0, strlen($0)) }
                }
            }
            // Right behind the report, so the host has both before the command it answers does.
            self?.saveState()
            // Sent is enough: the host reads this connection's lines in order, so it applies the
            // report before any answer sent after it. Waiting for its reply instead would wait
            // behind any deferred reply ahead of it (mpv.open's command.send play, which waits
            // for this very command's answer: the host's command timeout, 2 s).
            done()
        }
        ctl.log = { [weak self] message in self?.log(message) }
        controllers[session] = ctl
        return ctl
    }

    // MARK: - Across restarts

    /// Reopens the sessions the host kept for this plugin, each in a new mpv, paused. One whose
    /// files or outputs the policy refuses now is dropped with a log line.
    private func reopen(_ kept: [MPVSavedSession], savedAt: Double?) {
        guard let c = context else { return }
        for s in kept {
            let refusals = s.urls.compactMap(options.policy.checkURL)
                + [s.audioOutput.flatMap(options.policy.checkAudioOutput), s.videoOutput.flatMap(options.policy.checkVideoOutput)].compactMap { $0 }
            if let why = refusals.first {
                log("not reopening session \(s.session): \(why)")
                continue
            }
            reopening.append(s)
            createSession(s.session, c) { [weak self] result in
                guard let self else { return }
                self.reopening.removeAll { $0.session == s.session }
                switch result {
                case .failure(let e):
                    self.log("cannot reopen session \(s.session): \(e.message)")
                    self.saveState()
                case .success(let id):
                    // Opened meanwhile (an `mpv.open` naming it): that one's mpv plays it.
                    guard self.controllers[id] == nil else { return self.log("session \(id) was opened before it was reopened") }
                    guard let ctl = self.makeController(id) else {
                        return self.log("cannot reopen session \(id): no private directory for mpv's socket")
                    }
                    self.touch(id)
                    ctl.reopen(s, savedAt: savedAt)
                }
            }
        }
    }

    /// Hands the host what reopening every session takes, if it changed since the last time.
    private func saveState() {
        guard savedStateRead, let c = context else { return }
        let order = recent + controllers.keys.filter { !recent.contains($0) }.sorted()
        let sessions = reopening + order.compactMap { controllers[$0]?.saved }
        let state = MPVSavedSession.stateJSON(sessions)
        guard state != lastSaved else { return }
        lastSaved = state
        c.call("plugin.saveState", ["state": state]) { [weak self] result in
            if case .failure(let e) = result { self?.log("cannot keep the sessions across restarts: \(e.message)") }
        }
    }

    func log(_ message: String) {
        let line = "plugin mpv: \(message)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}
