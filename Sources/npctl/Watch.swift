import ArgumentParser
import Glibc
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel

/// Where the signal handlers of `npctl watch` write (a self-pipe, so one `poll` waits for
/// keys, daemon events, signals and the next progress tick together).
nonisolated(unsafe) private var watchSignalPipe: Int32 = -1

/// `npctl watch`: a live full-terminal view, like htop for Now Playing. Rendering is
/// `WatchScreen`'s; this is the I/O: the terminal, the daemon connection, keys and signals.
struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "A live full-terminal view: Now Playing with a progress bar, every session, recent events.",
        discussion: """
            The view reacts to the daemon's events and redraws the progress bar from the \
            position it infers (elapsed, rate and timestamp), so it costs nothing while \
            nothing plays. It waits for the daemon if it restarts. When stdout is not a \
            terminal it prints a line per change instead.

            Keys: space play/pause, n next, p previous, ←/→ seek 10 s, +/- rate, ↑/↓ (or \
            j/k) select a session, enter promote it, d demote it, a activate its audio, q quit.

            Examples:
              npctl watch
              npctl watch | tee watch.log
            """)
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reporting {
            var loop = try WatchLoop(global: global)
            try loop.run()
        }
    }
}

/// The watch's state and connection, driven by one `poll` loop.
struct WatchLoop {
    let global: GlobalOptions
    let language: String?
    let interactive: Bool
    let terminal = Terminal()
    var remote: HostLink?
    var state = WatchState()
    var signalRead: Int32 = -1
    var retryPause = 0.05
    /// The last Now Playing line printed in line mode (printed again only when it changes).
    var lastLine: String?

    init(global: GlobalOptions) throws {
        self.global = global
        language = global.language
        interactive = Terminal.isInteractive
        remote = try HostLink(global)
    }

    mutating func run() throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw Failure("watch: pipe: \(String(cString: strerror(errno)))") }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        signalRead = fds[0]
        watchSignalPipe = fds[1]
        for s in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] {
            signal(s) { n in
                var b = UInt8(truncatingIfNeeded: n)
                _ = write(watchSignalPipe, &b, 1)
            }
        }
        if interactive { terminal.enter() }
        defer { if interactive { terminal.restore() } }
        try start()
        while true {
            if interactive { terminal.draw(WatchScreen.render(state, width: Terminal.size().width, height: Terminal.size().height, now: InfoSnapshot.hostNow())) }
            if let client = remote?.client, client.hasBufferedInput {
                _ = try drainEvents()
                continue
            }
            var pfds = [pollfd(fd: signalRead, events: Int16(POLLIN), revents: 0)]
            if interactive { pfds.append(pollfd(fd: 0, events: Int16(POLLIN), revents: 0)) }
            if let fd = remote?.client.fileDescriptor { pfds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            let timeout = waitTime()
            let n = poll(&pfds, nfds_t(pfds.count), timeout)
            if n < 0 && errno != EINTR { throw Failure("watch: poll: \(String(cString: strerror(errno)))") }
            if n <= 0 {
                if remote == nil { tryReconnect() }
                continue
            }
            for p in pfds where p.revents != 0 {
                if p.fd == signalRead {
                    if try handleSignals() { return }
                } else if p.fd == 0 {
                    if try handleKeys() { return }
                } else {
                    _ = try drainEvents()
                }
            }
        }
    }

    /// Milliseconds until something needs doing without input: the next second of the
    /// progress bar (interactive only), or the next reconnect attempt; -1 (forever) otherwise.
    func waitTime() -> Int32 {
        if remote == nil { return Int32(retryPause * 1000) }
        guard interactive, let tick = state.nextTick(at: InfoSnapshot.hostNow()) else { return -1 }
        return Int32(min(tick * 1000 + 1, 60_000))
    }

    /// Subscribes and reads the current state.
    mutating func start() throws {
        guard let remote else { return }
        do throws(ClientError) {
            try remote.client.call("events.subscribe", ["topics": ["nowPlaying", "sessions", "audio", "info"]])
            // Subscribing sends the current values as events: they are the state, not news.
            while remote.client.hasBufferedInput { _ = try remote.client.nextNotification(timeout: 0) }
        } catch { return lost(error) }
        refresh()
        if !interactive { printLine() }
    }

    /// Re-reads the session table and the Now Playing value.
    mutating func refresh() {
        guard let remote else { return }
        do throws(ClientError) {
            state.setSessions(try remote.client.call("session.list"))
            let np = try remote.client.call("nowPlaying.get")
            state.nowPlaying = np.isNull ? nil : InfoSnapshot(np, language: language)
        } catch { lost(error) }
    }

    /// Reads every event that has arrived; returns false when the connection was lost.
    mutating func drainEvents() throws -> Bool {
        guard let client = remote?.client else { return false }
        var any = false
        while true {
            do throws(ClientError) {
                let n = try client.nextNotification(timeout: 0)
                guard n["method"] == "event", let p = n["params"] else { continue }
                let line = WatchState.describe(p, language: language)
                state.log(line)
                if !interactive { emit(line) }
                any = true
            } catch {
                if case .timeout = error { break }
                lost(error)
                return false
            }
        }
        if any { refresh() }
        if !interactive { printLine() }
        return true
    }

    /// Line mode: the Now Playing line when it changed (without its time, which always does).
    mutating func printLine() {
        let line = state.nowPlaying.map { "\($0.status): \($0.artistAndTitle)  [\($0.session)]" } ?? "Nothing is Now Playing"
        guard line != lastLine else { return }
        lastLine = line
        emit(line)
    }

    func emit(_ line: String) {
        print(line)
        fflush(nil)
    }

    /// The daemon went away: show it and try again later (in line mode, say it once).
    mutating func lost(_ error: ClientError) {
        remote = nil
        state.connected = false
        retryPause = 0.05
        if !interactive { emit("daemon gone: \(error.description); waiting for it") }
    }

    mutating func tryReconnect() {
        do throws(ClientError) {
            let client = try ControlClient(path: global.socketPath, timeout: global.timeout)
            remote = HostLink(client: client, global: global)
            state.connected = true
            state.log("reconnected")
            if !interactive { emit("reconnected") }
            try? start()
        } catch {
            retryPause = min(retryPause * 2, 1)
        }
    }

    /// Returns true when the watch should end.
    mutating func handleSignals() throws -> Bool {
        var buf = [UInt8](repeating: 0, count: 64)
        let n = read(signalRead, &buf, 64)
        // SIGWINCH only: the loop redraws at the new size. Any other signal ends the watch.
        return buf.prefix(max(0, n)).contains { Int32($0) != SIGWINCH }
    }

    /// Returns true on `q`.
    mutating func handleKeys() throws -> Bool {
        var buf = [UInt8](repeating: 0, count: 64)
        let n = read(0, &buf, 64)
        if n == 0 { return true }  // the terminal went away
        for key in WatchKey.parse(Array(buf.prefix(max(0, n)))) {
            if key == .quit { return true }
            state.message = perform(key)
        }
        return false
    }

    /// Carries out a key; returns what to show in the footer.
    mutating func perform(_ key: WatchKey) -> String? {
        switch key {
        case .up: state.moveSelection(-1); return nil
        case .down: state.moveSelection(1); return nil
        default: break
        }
        guard let remote else { return "not connected" }
        let np = state.nowPlaying
        func send(_ command: String, _ session: String? = nil, _ payload: [String: JSON] = [:]) -> String {
            var p = payload
            p["command"] = .string(command)
            if let session { p["session"] = .string(session) }
            do throws(ClientError) {
                let r = try remote.client.call("command.send", p)
                // A failure in the daemon's words (`no next item in the queue of mpv`).
                return r["message"]?.stringValue ?? "\(command) on \(r["session"]?.stringValue ?? "?"): \(r["status"]?.stringValue ?? "?")"
            } catch { return HostLink.failure(error).message }
        }
        func call(_ method: String, _ id: String, done: String) -> String {
            do throws(ClientError) {
                let r = try remote.client.call(method, ["session": .string(id)])
                if let reason = r["reason"]?.stringValue { return "\(id): \(reason)" }
                return done
            } catch { return HostLink.failure(error).message }
        }
        switch key {
        case .togglePlayPause: return send("togglePlayPause")
        case .next: return send("nextTrack")
        case .previous: return send("previousTrack")
        case .seekBack, .seekForward:
            guard let np else { return HostLink.nothingPlaying }
            let to = PositionRequest.relative(key == .seekBack ? -10 : 10).target(from: np.position, duration: np.duration)
            return send("changePlaybackPosition", np.session, ["position": .double(to)])
        case .faster, .slower:
            guard let np else { return HostLink.nothingPlaying }
            return changeRate(np, up: key == .faster, send: send)
        case .promote:
            guard let id = state.selectedID else { return nil }
            return call("session.becomeActiveIfPossible", id, done: "\(id) promoted")
        case .demote:
            guard let id = state.selectedID else { return nil }
            return call("session.resignActive", id, done: "\(id) demoted")
        case .activate:
            guard let id = state.selectedID else { return nil }
            return call("audio.activate", id, done: "\(id)'s audio is active")
        default: return nil
        }
    }

    /// The next supported rate above or below the current one.
    func changeRate(_ np: InfoSnapshot, up: Bool, send: (String, String?, [String: JSON]) -> String) -> String {
        guard let remote else { return "not connected" }
        let current = np.rate > 0 ? np.rate : (np.info["defaultRate"]?.doubleValue ?? 1)
        var rates: [Double] = []
        if let s = try? remote.client.call("session.get", ["session": .string(np.session)]),
           let c = s["commands"]?.arrayValue?.first(where: { $0["command"] == "changePlaybackRate" }) {
            rates = c["supportedPlaybackRates"]?.arrayValue?.compactMap(\.doubleValue).sorted() ?? []
        }
        guard let to = up ? rates.first(where: { $0 > current + 1e-9 }) : rates.last(where: { $0 < current - 1e-9 }) else {
            return "rate \(TimeText.number(current)) is the \(up ? "fastest" : "slowest") \(np.session) supports"
        }
        return send("changePlaybackRate", np.session, ["rate": .double(to)])
    }
}
