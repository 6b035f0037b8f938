import Glibc
import Logging
import PlayerHostBase
import PlayerHostClient
import PlayerHostConfig
import PlayerHostLoop
import PlayerHostModel

/// Keeps the host's own sessions across restarts in `<dir>/state.json` (default
/// `$XDG_STATE_HOME/playerhost`, else `~/.local/state/playerhost`; directory 0700, file 0600).
///
/// A change (any event on the publisher, of which the store is an `EventSink`) arms one one-shot timer; when it fires, one snapshot is
/// written. So at most one write a second, and no timer at all while nothing changes. An
/// orderly stop writes at once with exact positions. Every write is atomic — temp file, fsync,
/// rename, fsync of the directory — so a `kill -9` at any moment leaves the previous file or the
/// new one, never a mix. After `kill -9` a session that was playing comes back at the position it
/// had reached when the last write happened (at most about a second after the last change); a
/// clock player that plays on without changes is not rewritten, so that can be earlier than
/// where it was when killed.
///
/// The loop's share of a write is incremental (`StateCache`): only sessions an event touched
/// since the last write are captured and rendered again; the others' cached bytes are handed
/// over as they are (`StateFilePieces`, shared, not copied). Joining them into the file and the
/// atomic write itself (with its two fsyncs) run on libuv's thread pool (`WorkerJob`), one at a
/// time: changes arriving meanwhile make one more write after it. A
/// playing session that plays on without changes keeps, in the file, the position of its own
/// last change (so after `kill -9` it can come back earlier than where it was); the orderly
/// stop captures every session again, for exact positions, and writes synchronously.
/// A failing write (unwritable directory, full disk) never stops the host:
/// the fault is kept for `host.stats` and logged once, and the next change tries again.
public final class StateStore {
    /// The file's directory.
    public let directory: String
    /// `<directory>/state.json`.
    public var path: String { directory + "/state.json" }
    /// What to write: the host's model, the current instant, the ids the config made (nil:
    /// nothing to write, the host is gone).
    var source: () -> (model: NowPlayingModel, now: MonotonicInstant, configSessions: Set<SessionID>)? = { nil }
    /// Each session's captured state and bytes, kept between writes.
    private var cache = StateCache()
    /// Sessions captured since the store was made (tests prove a write captures only what changed).
    public var captures: Int { cache.captures }
    /// Milliseconds between a change and its write.
    public var delayMilliseconds: UInt64 = 1000
    /// The largest file read or written (`max_state_file_mb`, default 64 MiB).
    public var maxBytes = HostConfig().maxStateFileBytes

    let loop: EventLoop
    let logger: Logger
    private var timer: HostTimer?
    /// A write is on the thread pool; `changed()` meanwhile sets `writeAgain`.
    public private(set) var isWriting = false
    private var writeAgain = false
    /// The orderly stop's file, waiting for the write in flight to finish first.
    private var finalPieces: StateFilePieces?
    /// Why the last write failed (nil after a good one).
    public private(set) var fault: String?
    /// The directory is not one the state may be kept in (another owner, writable by others):
    /// nothing is read from it or written to it until it is fixed (nil: it is fine).
    public private(set) var directoryProblem: StateDirectory.Problem?
    public private(set) var writes = 0
    public private(set) var failedWrites = 0
    /// Duration of the last write (on the worker), in microseconds.
    public private(set) var lastWriteMicroseconds: UInt64 = 0
    /// The loop's share of the last write (capture and render of the changed sessions, the
    /// hand-over of the rest), in microseconds.
    public private(set) var lastPrepareMicroseconds: UInt64 = 0
    /// What the last start found: `restored`, `none`, or why the file was set aside.
    public private(set) var loadResult = "none"
    /// Where the last start moved a bad state file (nil: it moved none).
    public private(set) var setAsidePath: String?
    /// What plugins asked to keep (`plugin.saveState`), by app name, as given: loaded from the
    /// file's `plugins` section and written back with it, so a plugin that does not come back
    /// loses nothing either.
    public private(set) var pluginStates: [String: JSON] = [:]
    /// The loaded file's `savedAt` (wall-clock seconds): a plugin extrapolates what was playing
    /// up to that instant.
    public private(set) var loadedSavedAt: Double?
    private var pluginsChanged = false

    public init(loop: EventLoop, directory: String, logger: Logger) {
        self.loop = loop
        self.directory = directory
        self.logger = logger
    }

    /// `explicit` (`--state-dir`, config `state_dir`), else `$XDG_STATE_HOME/playerhost`, else
    /// `~/.local/state/playerhost`.
    public static func defaultDirectory(explicit: String?, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let x = environment["XDG_STATE_HOME"], !x.isEmpty { return x + "/playerhost" }
        return (environment["HOME"] ?? "/root") + "/.local/state/playerhost"
    }

    // MARK: Loading

    /// Reads the file. Missing → nil. Unreadable as a snapshot (truncated, garbage, a future
    /// version) → nil, and the file is moved aside as `state.json.corrupt-<unix time>` with one
    /// log line, so the host starts empty and the evidence is kept.
    public func load() -> HostSnapshot? {
        if let problem = StateDirectory.check(directory) {
            // As sshd's StrictModes: another user could have planted what is there.
            directoryProblem = problem
            fault = problem.message
            loadResult = "refused: \(problem.message)"
            logger.error("state directory \(directory) \(problem.message); not reading or writing the state file until it is fixed (\(problem.fix))")
            return nil
        }
        let bytes: [UInt8]
        switch Self.readFile(path, maxBytes: maxBytes) {
        case .success(let b): bytes = b
        case .failure(let e) where e.errno == ENOENT || e.errno == ENOTDIR:
            // No file there (ENOTDIR: the directory is not one; the first write reports that).
            loadResult = "none"
            return nil
        case .failure(.cannotOpen(_, let code)), .failure(.cannotRead(_, let code)):
            let message = String(cString: strerror(code))
            loadResult = "unreadable: \(message)"
            logger.error("state file \(path) cannot be read (\(message)); starting without saved sessions")
            return nil
        case .failure(let e):
            // A FIFO, a link, a device, a file over the limit: not ours to read; kept aside.
            return setAside(e.reason)
        }
        do throws(StateFileError) {
            let file = try StateFile.parseFile(bytes)
            loadResult = "restored"
            pluginStates = file.plugins
            loadedSavedAt = file.savedAt
            return file.snapshot
        } catch {
            return setAside("\(error)")
        }
    }

    /// Moves the file at `path` aside as `state.json.corrupt-<unix time>` (the link or FIFO
    /// itself, never what it names), so the host starts empty and the evidence is kept.
    private func setAside(_ why: String) -> HostSnapshot? {
        let aside = path + ".corrupt-\(time(nil))"
        let moved = rename(path, aside) == 0
        if moved { setAsidePath = aside }
        loadResult = "set aside: \(why)"
        let line = "state file \(path) is unusable (\(why)); starting without saved sessions" + (moved ? ", moved it to \(aside)" : "")
        logger.error("\(line)")
        return nil
    }

    // MARK: Writing

    /// Something changed: write within `delayMilliseconds` (one timer, armed only now; none
    /// while a write is in flight, whose completion writes again).
    public func changed() {
        guard !isStopped else { return }
        if isWriting {
            writeAgain = true
            return
        }
        if timer == nil {
            guard let t = loop.makeTimer() else {
                fault = "cannot arm the write timer: the loop is closing"
                return
            }
            timer = t
        }
        guard let timer, !timer.isActive else { return }
        timer.start(after: delayMilliseconds) { [weak self] in self?.writeNow() }
    }

    /// Whether a write is pending (armed or in flight).
    public var isPending: Bool { (timer?.isActive ?? false) || isWriting }

    /// Keeps (or, with nil, drops) what the plugin `name` asked to keep; written with the next
    /// change's write.
    public func setPluginState(_ name: String, _ state: JSON?) {
        guard pluginStates[name] != state else { return }
        pluginStates[name] = state
        pluginsChanged = true
        changed()
    }

    /// The file if it changed since the last write (or the last write failed).
    private func prepare() -> StateFilePieces? {
        guard let src = source() else { return nil }
        let started = EventLoop.hrtime()
        let plugins = pluginStates.isEmpty ? nil : JSON.object(pluginStates).serialized()
        let r = cache.render(src.model, now: src.now, configSessions: src.configSessions, savedAt: Self.wallClock(),
                             plugins: plugins)
        lastPrepareMicroseconds = (EventLoop.hrtime() - started) / 1000
        defer { pluginsChanged = false }
        return r.changed || pluginsChanged || fault != nil ? r.pieces : nil
    }

    /// Writes what changed now (the timer), on the thread pool; one write at a time.
    public func writeNow() {
        timer?.stop()
        guard !isWriting, let pieces = prepare() else { return }
        let directory = directory, maxBytes = maxBytes
        isWriting = true
        let started = EventLoop.hrtime()
        do {
            try WorkerJob.queue(on: loop, compute: { Self.writeChecked(pieces, directory: directory, maxBytes: maxBytes) },
                                done: { [weak self] outcome in self?.finished(outcome ?? .failed("cancelled"), started: started) })
        } catch {
            // No thread pool: write here rather than not at all.
            finished(Self.writeChecked(pieces, directory: directory, maxBytes: maxBytes), started: started)
        }
    }

    private func finished(_ outcome: WriteOutcome, started: UInt64) {
        isWriting = false
        lastWriteMicroseconds = (EventLoop.hrtime() - started) / 1000
        record(outcome)
        if let pieces = finalPieces {
            finalPieces = nil
            writeSynchronously(pieces)
        } else if writeAgain {
            writeAgain = false
            changed()
        }
    }

    private func record(_ outcome: WriteOutcome) {
        let why: String?
        switch outcome {
        case .written:
            directoryProblem = nil
            why = nil
        case .failed(let w):
            // Whatever failed, it was not the directory's owner or mode (checked before writing,
            // or the directory could not even be made): that diagnosis is out of date.
            directoryProblem = nil
            why = w
        case .unsafeDirectory(let problem):
            if directoryProblem != problem {
                logger.error("state directory \(directory) \(problem.message); not writing the state file until it is fixed (\(problem.fix))")
            }
            directoryProblem = problem
            why = problem.message
        }
        if let why {
            failedWrites += 1
            if fault != why, directoryProblem == nil { logger.error("cannot write the state file \(path): \(why); will retry on the next change") }
            fault = why
        } else {
            writes += 1
            if fault != nil { logger.notice("state file \(path) written again") }
            fault = nil
        }
    }

    private func writeSynchronously(_ pieces: StateFilePieces) {
        let started = EventLoop.hrtime()
        let outcome = Self.writeChecked(pieces, directory: directory, maxBytes: maxBytes)
        lastWriteMicroseconds = (EventLoop.hrtime() - started) / 1000
        record(outcome)
    }

    /// The orderly stop: every session captured again (exact positions) and written at once,
    /// on the loop (it is ending) — after the write in flight, if any, so that one cannot land
    /// over it. Then no timer again.
    public func stop() {
        guard !isStopped else { return }
        isStopped = true
        timer?.close()
        timer = nil
        cache.recaptureAll()
        // Plugins' states extrapolate what played up to `savedAt`: make it the stop's instant.
        if !pluginStates.isEmpty { pluginsChanged = true }
        guard let pieces = prepare() else { return }
        if isWriting { finalPieces = pieces } else { writeSynchronously(pieces) }
    }

    /// After `stop`, changes (the shutdown closing things) write nothing.
    public private(set) var isStopped = false

    /// `host.stats`' `state` entry.
    public var statsJSON: JSON {
        var o: [String: JSON] = [
            "path": .string(path), "writes": .int(Int64(writes)), "failedWrites": .int(Int64(failedWrites)),
            "lastWriteMicroseconds": .int(Int64(lastWriteMicroseconds)), "pending": .bool(isPending),
            "lastPrepareMicroseconds": .int(Int64(lastPrepareMicroseconds)), "captures": .int(Int64(captures)),
            "loaded": .string(loadResult), "pluginStates": .int(Int64(pluginStates.count)),
        ]
        if let fault { o["fault"] = .string(fault) }
        return .object(o)
    }

    /// The store's faults for `host.doctor`, each with the file it is about: the last write
    /// failed (until a write succeeds), or the start found a file it could not use.
    public var diagnostics: [(diagnostic: Diagnostic, path: String)] {
        var out: [(Diagnostic, String)] = []
        if let problem = directoryProblem {
            out.append((Diagnostic(severity: .error, code: "stateDirectoryUnsafe",
                                   message: "the state directory \(directory) \(problem.message): the state file is neither read nor written there (another user could plant or read it); sessions are not kept across a restart",
                                   fix: "run: \(problem.fix) (then the next change writes the state file; a restart reads it)"),
                        directory))
        } else if let fault {
            out.append((Diagnostic(severity: .error, code: "stateNotWritten",
                                   message: "the state file \(path) cannot be written: \(fault); changes since the last good write would be lost on a restart",
                                   fix: "make \(directory) a directory this user can write (or point state_dir / --state-dir elsewhere); the next change tries again"),
                        path))
        }
        if let setAsidePath {
            out.append((Diagnostic(severity: .warning, code: "stateSetAside",
                                   message: "at start the state file was \(loadResult.dropFirst("set aside: ".count)); it was moved to \(setAsidePath) and the daemon started without saved sessions",
                                   fix: "nothing to do to keep running; look into or delete \(setAsidePath)"),
                        setAsidePath))
        } else if loadResult.hasPrefix("unreadable") {
            out.append((Diagnostic(severity: .error, code: "stateUnreadable",
                                   message: "at start the state file \(path) was \(loadResult); the daemon started without saved sessions",
                                   fix: "make \(path) readable by this user, then restart to restore from it"),
                        path))
        }
        return out
    }

    // MARK: Wiring

    /// Opens the host's store: restores what the file kept (config sessions only while the
    /// config still lists them), then writes after every published change.
    static func attach(to host: HostDaemon) {
        let store = StateStore(loop: host.loop, directory: host.stateDirectory, logger: host.logger)
        host.applyAtStart(store)
        host.state = store
        let configIDs = { [weak host] in host?.reloader?.configSessionIDs ?? [] }
        if let saved = store.load() {
            let listed = configIDs()
            do {
                let failures = try host.nowPlaying.perform { m, t in
                    saved.restore(into: &m, now: t) { $0.origin != .config || listed.contains($0.id) }
                }
                for f in failures { host.logger.warning("restoring session \(f.session): \(f.message)") }
                if let p = saved.pinned { host.core.applyArbiter(pinned: p, config: host.core.config) }
                host.logger.info("restored \(host.nowPlaying.model.sessions.count) session(s) from \(store.path)")
            } catch {
                host.logger.error("restoring from \(store.path): \(error.message)")
            }
        }
        store.source = { [weak host] in
            guard let host else { return nil }
            return (host.nowPlaying.model, host.nowPlaying.now, configIDs())
        }
        host.nowPlaying.publisher.add(store)
    }

    // MARK: File system

    static func wallClock() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return ((Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9) * 1000).rounded() / 1000
    }

    /// How a write ended.
    enum WriteOutcome: Sendable, Equatable {
        case written
        case failed(String)
        /// Refused: the directory is not safe to keep the state in.
        case unsafeDirectory(StateDirectory.Problem)
    }

    /// One write of the state file, on the writing thread: the directory checked (created 0700
    /// when missing), the size checked against `maxBytes`, then `AtomicFile.write`.
    static func writeChecked(_ pieces: StateFilePieces, directory: String, maxBytes: Int) -> WriteOutcome {
        if let e = Directories.make(directory) { return .failed("mkdir \(directory): \(String(cString: strerror(e)))") }
        if let problem = StateDirectory.check(directory) { return .unsafeDirectory(problem) }
        let size = pieces.byteCount
        guard size <= maxBytes else {
            // A file the next start would refuse to read is not written: the previous one stays.
            return .failed("the file would be \(BoundedFileError.mebibytes(size)), over max_state_file_mb (\(BoundedFileError.mebibytes(maxBytes)))")
        }
        if let why = AtomicFile.write(pieces.chunks, directory: directory, name: "state.json") { return .failed(why) }
        return .written
    }

    /// The state file's bytes: never through a symbolic link, regular files only, at most
    /// `maxBytes` (see `BoundedFile`).
    static func readFile(_ path: String, maxBytes: Int = HostConfig().maxStateFileBytes) -> Result<[UInt8], BoundedFileError> {
        BoundedFile.read(path, maxBytes: maxBytes, links: .refuse)
    }
}

/// A sink of the one publication path: any published change schedules a write.
extension StateStore: EventSink {
    public func receive(_ event: PublishedEvent) {
        if case .model(let e) = event.payload { cache.note(e) }
        changed()
    }
}
