import Logging
import PlayerHostBase
import PlayerHostClient
import PlayerHostConfig
import PlayerHostLoop
import PlayerHostModel
import PlayerHostRPC

/// Re-reads the configuration file (SIGHUP, `host.reload`, `npctl daemon reload`) and applies
/// what changed to the running host:
///
/// - `[[session]]` entries added are created (by the in-process plugins' `reload`, the same
///   path that creates them at start); entries removed are closed — only sessions the config
///   made, and only while the host still owns them. An entry kept keeps its live state.
/// - `command_timeout_ms` takes effect for the next command; `coalesce_ms` and `placeholders`
///   reconfigure the now-playing gate; `log_level` goes to `applyLogLevel`, the executable's
///   hook (playerhostd's switches its log handler's level at once, unless `--log-level` was
///   given: the command line wins).
/// - `[mpris] export` switches what the MPRIS export shows at once.
/// - `requests_per_turn`, `turn_budget_us`, `output_high_water_kb`, `max_stall_ms`, `max_total_output_mb` and
///   `max_subscriptions_per_client` apply at once, to open connections too.
/// - The model's limits, `max_provided_methods`, `max_pending_provided_calls`, the artwork keys
///   and `max_state_file_mb` apply at once too: start and reload are one path (`HostCore.apply`,
///   `HostDaemon.applyParts`). Keys only a restart applies (`socket`, `state_dir`,
///   `[mpris]` enabled, import, interrupt_imported, ignore) are named in the reply's `restartNeeded` and logged.
/// - `[[plugin]]` entries and the plugin directory's executables: added ones start, removed ones
///   get SIGTERM, and kept ones that failed (the start limit gave up on them) start again.
///
/// A file with an error changes nothing: the old configuration stays and the error, with its
/// line, is logged and returned (`configInvalid`).
///
/// The file is read and parsed on libuv's thread pool (`WorkerJob`), never on the loop: a FIFO,
/// a slow disk or a 4 MiB file delays only the reload. One read at a time: reloads asked for
/// while one is read wait for it, then share one fresh read. Applying is O(n) in the sessions
/// the config lists (issue 21: it rebuilt a set per entry, 6 s at 10 000).
public final class ConfigReloader {
    /// Weak: the host owns the reloader, and a reload asked for while it shuts down does nothing.
    private(set) weak var host: HostDaemon?
    /// The configuration in effect.
    public private(set) var config: HostConfig {
        didSet { configSessionIDs = Set(config.sessions.map(\.id)) }
    }
    /// Where it was read from (nil: none was; a reload then reads the default path if present).
    let path: String?
    let required: Bool
    /// Sets the daemon's log level (the logging backend belongs to the executable).
    public var applyLogLevel: ((Logger.Level) -> Void)?
    /// Reloads done and refused since start.
    public private(set) var reloads = 0
    public private(set) var refused = 0

    init(host: HostDaemon) {
        self.host = host
        config = host.core.config
        configSessionIDs = Set(config.sessions.map(\.id))
        path = host.options.configPath
        required = host.options.configPath != nil && host.options.configRequired
    }

    /// The ids of sessions the config made (a reload closes only those; a restart drops a
    /// kept one the config no longer lists).
    /// Kept with `config`: the state store asks for it at every write.
    public private(set) var configSessionIDs: Set<SessionID>
    /// A read is on the thread pool.
    private var isReading = false
    /// Reloads asked for during the read in flight: one fresh read after it serves them all.
    private var waiting: [(trigger: String, done: (Result<Summary, HostError>) -> Void)] = []

    /// What a reload changed, as `host.reload` answers it.
    public struct Summary: Sendable {
        public var added: [String] = []
        public var removed: [String] = []
        public var changed: [String] = []
        public var pluginsStarted: [String] = []
        public var pluginsStopped: [String] = []
        /// Keys that changed but only a restart applies (the socket path, the state directory,
        /// MPRIS on or off and the import's settings): the old value stays until then.
        public var restartNeeded: [String] = []

        public var json: JSON {
            ["reloaded": true, "sessionsAdded": .array(added.map(JSON.string)),
             "sessionsRemoved": .array(removed.map(JSON.string)), "settingsChanged": .array(changed.map(JSON.string)),
             "restartNeeded": .array(restartNeeded.map(JSON.string)),
             "pluginsStarted": .array(pluginsStarted.map(JSON.string)),
             "pluginsStopped": .array(pluginsStopped.map(JSON.string))]
        }
    }

    /// Reads the file (on the thread pool) and applies it (on the loop); on an error nothing
    /// changes. `done` runs on the loop with what changed or why nothing did.
    public func reload(trigger: String, done: @escaping (Result<Summary, HostError>) -> Void = { _ in }) {
        waiting.append((trigger, done))
        if !isReading { readNext() }
    }

    /// What the worker hands back: the parsed file, or the error's text.
    private enum Read: Sendable {
        case loaded(HostConfig)
        case refused(String)
    }

    private func readNext() {
        guard let host, !waiting.isEmpty else { return }
        let batch = waiting
        waiting = []
        isReading = true
        let env = host.options.effectiveEnvironment
        let file = path ?? HostConfig.defaultPath(environment: env)
        let required = required
        let read: @Sendable () -> Read = {
            do throws(ConfigError) {
                return .loaded(try HostConfig.load(path: file, required: required))
            } catch {
                if case .config(let text) = error { return .refused(text) }
                return .refused(error.description)
            }
        }
        do {
            try WorkerJob.queue(on: host.loop, compute: read) { [weak self] r in
                self?.finished(r ?? .refused("\(file): the read was cancelled"), batch: batch, file: file, environment: env)
            }
        } catch {
            // No thread pool: read here rather than not at all.
            finished(read(), batch: batch, file: file, environment: env)
        }
    }

    private func finished(_ read: Read, batch: [(trigger: String, done: (Result<Summary, HostError>) -> Void)],
                          file: String, environment env: [String: String]) {
        isReading = false
        let trigger = batch.map(\.trigger).joined(separator: ", ")
        let result: Result<Summary, HostError>
        if let host, !host.isShuttingDown {
            switch read {
            case .loaded(let new):
                let summary = apply(new, environment: env)
                reloads += 1
                host.logger.notice("\(trigger): configuration reloaded from \(file): sessions +\(summary.added) -\(summary.removed), settings \(summary.changed), plugins +\(summary.pluginsStarted) -\(summary.pluginsStopped)")
                result = .success(summary)
            case .refused(let text):
                refused += 1
                host.logger.error("\(trigger): not reloading, the old configuration stays: configuration: \(text)")
                result = .failure(.config(text))
            }
        } else {
            result = .failure(.config("the host is shutting down"))
        }
        for entry in batch { entry.done(result) }
        readNext()
    }

    /// Applies `new` through the one path start takes too: the core's keys (`HostCore.apply`),
    /// then the daemon's parts (`HostDaemon.applyParts`), the log level and supervised plugins.
    func apply(_ new: HostConfig, environment env: [String: String]) -> Summary {
        guard let host else { return Summary() }
        let old = config
        var s = Summary()
        // One set, built once: a lookup per entry, not a set per entry.
        let oldIDs = configSessionIDs
        s.added = new.sessions.map(\.id).filter { !oldIDs.contains($0) }
        var changes = host.core.apply(new)
        if old.effectiveLogLevel != new.effectiveLogLevel {
            // Removed from the file: back to the default, as a restart would do.
            applyLogLevel?(new.effectiveLogLevel)
            changes.changed.append("log_level")
        }
        host.applyParts(new, old: old, changes: &changes)
        s.removed = changes.sessionsRemoved
        s.changed = changes.changed
        s.restartNeeded = changes.restartNeeded
        for key in changes.restartNeeded {
            host.logger.warning("reload: \(key) changed, but only a restart applies it; the old value stays until then")
        }
        config = new
        let (started, stopped) = reloadSupervised(old: old, new: new, environment: env)
        s.pluginsStarted = started
        s.pluginsStopped = stopped
        return s
    }

    /// Starts plugins that are new in the config or the plugin directory; stops those gone.
    func reloadSupervised(old: HostConfig, new: HostConfig, environment env: [String: String]) -> ([String], [String]) {
        guard let host else { return ([], []) }
        let wanted = HostDaemon.pluginSpecs(config: new, environment: env)
        let running = host.supervisor?.specs ?? []
        var started: [String] = []
        var stopped: [String] = []
        for spec in running where !wanted.contains(spec) {
            host.supervisor?.stop(name: spec.name)
            stopped.append(spec.name)
        }
        for spec in wanted where !running.contains(spec) {
            host.ensureSupervisor().start(spec)
            started.append(spec.name)
        }
        // A plugin given up on is tried again: the reload is how its fix is applied (doctor
        // says so), since nothing else would ever start it before the daemon restarts.
        for spec in wanted where running.contains(spec) {
            if host.supervisor?.retryFailed(name: spec.name) == true { started.append(spec.name) }
        }
        return (started, stopped)
    }

    /// `host.reload`.
    /// `reloader`: the daemon's, once started.
    static func method(reloader: @escaping () -> ConfigReloader?) -> RPCMethod {
        RPCMethod("host.reload", summary: "Re-read the configuration file, as SIGHUP does: sessions added are created, removed ones closed, settings and plugins applied. A file with an error changes nothing (configInvalid, with the line).",
                  result: .object, resultSummary: "{reloaded, sessionsAdded, sessionsRemoved, settingsChanged, restartNeeded, pluginsStarted, pluginsStopped}") { _ throws(RPCError) in
            guard let reloader = reloader() else { throw RPCError(.invalidState, "the host is not started") }
            // The file is read off the loop: the reply comes when it has been applied.
            let promise = RPCPromise()
            reloader.reload(trigger: "host.reload") { result in
                switch result {
                case .success(let summary): promise.complete(.success(summary.json))
                case .failure(.config(let text)): promise.complete(.failure(RPCError(.configInvalid, text, data: Self.errorData(text))))
                case .failure(let error): promise.complete(.failure(RPCError(.configInvalid, error.description)))
                }
            }
            return .deferred(promise)
        }
    }

    /// `{file, line, column}` from a `file:line:column: message` error, when it has them.
    static func errorData(_ text: String) -> JSON {
        let parts = text.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let line = Int(parts[1]), let column = Int(parts[2]) else { return ["error": .string(text)] }
        return ["file": .string(String(parts[0])), "line": .int(Int64(line)), "column": .int(Int64(column)),
                "error": .string(parts[3].trimmingPrefix(" ").description)]
    }
}

extension HostDaemon {
    /// The supervised plugins a config asks for: the plugin directory's executables, then `[[plugin]]`.
    static func pluginSpecs(config: HostConfig, environment env: [String: String]) -> [PluginSupervisor.Spec] {
        var specs = PluginSupervisor.discover(directory: config.effectivePluginDirectory(environment: env))
        for p in config.plugins ?? [] {
            specs.append(.init(name: p.name ?? SocketLocation.basename(of: p.path), path: p.path, arguments: p.args ?? []))
        }
        return specs
    }

    /// The supervisor, made on first use (a reload may add the first plugin).
    func ensureSupervisor() -> PluginSupervisor {
        if let supervisor { return supervisor }
        let sup = PluginSupervisor(loop: loop, socketPath: options.socketPath, logger: logger)
        supervisor = sup
        return sup
    }
}
