import Glibc
import PlayerHostClient
import PlayerHostLoop
import PlayerHostModel

/// Runs a `SessionPlugin` as its own process: connects to the daemon's control socket, says
/// `host.hello`, attaches the plugin, and when the daemon goes away (restart, upgrade) detaches
/// it and reconnects with backoff, attaching it afresh — unless the daemon that started it (as a
/// supervised plugin) died, when it exits instead. SIGTERM/SIGINT end it cleanly.
///
/// ```swift
/// @main struct Main { static func main() { PluginRunner(plugin: MyPlugin()).run() } }
/// ```
public final class PluginRunner {
    public let plugin: SessionPlugin
    public let socketPath: String
    let loop: EventLoop
    private var context: PluginContext?
    private var retryTimer: Timer?
    /// Reconnecting: quickly at first, never giving up (the daemon may be down for a while); a
    /// connection that lasted a while starts the backoff over.
    private var reconnectPolicy = RestartPolicy(initialBackoffMS: 100, maxBackoffMS: 5000, stableAfterMS: 10_000, startLimit: nil)
    private var connectedAt: UInt64?
    private var stopping = false
    private var signals: [SignalWatcher] = []
    private var wakeup: AsyncWakeup?
    /// The supervising daemon's pid when the daemon started this process (`$PLAYERHOST_SUPERVISOR_PID`).
    private let supervisorPID: pid_t? = getenv("PLAYERHOST_SUPERVISOR_PID").flatMap { pid_t(String(cString: $0)) }

    /// `socketPath` nil: `--socket PATH` from the command line, `$PLAYERHOST_SOCKET`, or the default.
    public init(plugin: SessionPlugin, socketPath: String? = nil) {
        self.plugin = plugin
        var explicit = socketPath
        let args = CommandLine.arguments
        if explicit == nil, let i = args.firstIndex(of: "--socket"), i + 1 < args.count { explicit = args[i + 1] }
        self.socketPath = SocketLocation.resolve(explicit: explicit)
        // Start-up of the plugin's own process, before any peer exists: uv_loop_init fails only
        // without descriptors or memory, and a plugin cannot run without its loop.
        loop = try! EventLoop()
        wakeup = try? AsyncWakeup(loop: loop) { [weak self] in self?.stop() }
    }

    /// Stops a running runner from any thread: the loop detaches the plugin and `run` returns.
    public struct StopHandle: Sendable {
        let wakeup: AsyncWakeup?
        public func stop() { wakeup?.send() }
    }

    /// The thread-safe way to stop this runner (the rest of it belongs to its loop's thread).
    public var stopHandle: StopHandle { StopHandle(wakeup: wakeup) }


    /// Runs until SIGTERM/SIGINT; returns the exit status.
    @discardableResult
    public func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        for sig in [SIGTERM, SIGINT] {
            if let w = try? SignalWatcher(loop: loop) {
                try? w.start(signal: sig) { [weak self] _ in self?.stop() }
                signals.append(w)
            }
        }
        connect()
        loop.run()
        try? loop.close()
        return 0
    }

    /// Detaches the plugin, closes the connection and lets `run` return.
    public func stop() {
        guard !stopping else { return }
        stopping = true
        retryTimer?.close()
        retryTimer = nil
        if let c = context {
            context = nil
            c.onClosed = nil
            plugin.detach()
            c.close()
        }
        for s in signals { s.close() }
        signals.removeAll()
        wakeup?.close()
    }

    private func connect() {
        guard !stopping else { return }
        let stream: PipeStream
        do {
            stream = try PipeStream(loop: loop)
            try stream.connect(path: socketPath) { [weak self] error in
                guard let self else { return stream.close() }
                if let error {
                    stream.close()
                    self.retryLater(because: "cannot connect to \(self.socketPath): \(error.message)")
                } else {
                    self.connected(stream)
                }
            }
        } catch {
            retryLater(because: "cannot connect: \(error)")
        }
    }

    private func connected(_ stream: PipeStream) {
        guard !stopping else {
            stream.close()
            return
        }
        let c = PluginContext(loop: loop, name: plugin.name, stream: stream)
        do { try c.start() } catch {
            c.close()
            retryLater(because: "cannot read from the daemon: \(error)")
            return
        }
        context = c
        // The daemon going away reaches these: weak, never unowned.
        c.onClosed = { [weak self] in
            guard let self else { return }
            self.context = nil
            self.plugin.detach()
            self.retryLater(because: "lost the daemon")
        }
        let attach = { [weak self] in
            guard let self else { return }
            self.connectedAt = self.loop.nowMilliseconds
            self.plugin.attach(c)
        }
        if plugin.actsForHost {
            attach()
        } else {
            c.call("host.hello", ["name": .string(plugin.name)]) { [weak self] result in
                switch result {
                case .success: attach()
                case .failure(let e):
                    self?.log("host.hello refused: \(e.message)")
                    c.close()
                }
            }
        }
    }

    /// The connection failed or ended: reconnect after the policy's delay. How long the last
    /// attached connection lasted is the run the policy judges (0 when it never attached).
    private func retryLater(because reason: String) {
        guard !stopping else { return }
        if let pid = supervisorPID, getppid() != pid {
            // Started by a daemon that has died (kill -9, crash): a restarted daemon starts its
            // own copy, so reconnecting would run the plugin twice.
            log("the daemon that started this plugin (pid \(pid)) is gone; exiting")
            stop()
            return
        }
        let ran = connectedAt.map { loop.nowMilliseconds - $0 } ?? 0
        connectedAt = nil
        // No start limit: the decision is always a restart.
        guard case .restart(let delay) = reconnectPolicy.died(ranForMS: ran) else { return stop() }
        log("\(reason); reconnecting in \(delay) ms")
        if retryTimer == nil { retryTimer = try? Timer(loop: loop) }
        retryTimer?.start(after: delay) { [weak self] in self?.connect() }
    }

    private func log(_ s: String) {
        let line = "plugin \(plugin.name): \(s)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}
