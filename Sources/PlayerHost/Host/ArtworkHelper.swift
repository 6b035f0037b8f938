import Glibc
import Logging
import PlayerHostBase
import PlayerHostLoop
import PlayerHostModel
import PlayerHostRPC

/// The daemon's side of the artwork decoder helper (`playerhost-artwork`): a supervised child
/// spoken to over its stdin/stdout, one JSON request per line, one reply per line, in order.
///
/// Every untrusted byte is parsed there. A helper that dies (a decoder crash, SIGKILL) fails its
/// requests in flight with the reason and is started again after the `RestartPolicy`'s backoff
/// (doubling while it keeps dying quickly, so an image that crashes the decoder cannot make a
/// restart loop; it never gives up, artwork is asked for again with every track); requests
/// meanwhile wait for that start. One that does not answer in time is killed. The helper gets a clean environment and is reachable only through its pipes.
final class ArtworkHelper {
    /// What the helper wrote, or that a media file has no picture.
    enum Reply {
        case file(ArtworkCache.FileInfo)
        case none
    }

    /// Why a request failed, as faults show it.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    let loop: EventLoop
    let executable: String
    let logger: Logger
    /// How long one request may take before the helper is killed.
    var requestTimeoutMilliseconds: UInt64 = 10_000
    private var process: ChildProcess?
    private var input: PipeStream?
    private var buffer: [UInt8] = []
    private var pending: [(id: Int64, completion: (Result<Reply, Failure>) -> Void)] = []
    private var nextID: Int64 = 1
    private var watchdog: Timer?
    private var restartTimer: Timer?
    /// When to start it again after it died.
    var restartPolicy = RestartPolicy(initialBackoffMS: 100, maxBackoffMS: 8000, stableAfterMS: 10_000, startLimit: nil)
    /// The backoff chosen after the last death (ms), for `artwork.status` and tests.
    private(set) var lastRestartDelayMS: UInt64?
    /// When the running helper started (loop clock, ms).
    private var startedAtMS: UInt64 = 0
    /// Requests made while a restart waits for its backoff: sent once it has started.
    private var deferred: [(params: [String: JSON], completion: (Result<Reply, Failure>) -> Void)] = []
    private var isClosed = false
    /// Times the helper was started again after it died.
    private(set) var restarts = 0
    /// The last way it ended, for `artwork.status`.
    private(set) var lastExit: String?
    private var startedOnce = false

    init(loop: EventLoop, executable: String, logger: Logger) {
        self.loop = loop
        self.executable = executable
        self.logger = logger
    }

    /// The helper's pid while it runs.
    var pid: Int32? { process.flatMap { $0.exit == nil ? $0.pid : nil } }

    /// Sends one request; `completion` runs once on a later loop turn.
    func request(_ params: [String: JSON], completion: @escaping (Result<Reply, Failure>) -> Void) {
        guard !isClosed else {
            later { completion(.failure(Failure("the artwork helper is shut down"))) }
            return
        }
        if let restartTimer, restartTimer.isActive {
            deferred.append((params, completion))
            return
        }
        if process == nil { spawn() }
        guard let input else {
            later { completion(.failure(Failure("the artwork helper could not start (\(self.executable))"))) }
            return
        }
        let id = nextID
        nextID += 1
        var message = params
        message["id"] = .int(id)
        var bytes = JSON.object(message).serialized()
        bytes.append(0x0A)
        pending.append((id, completion))
        input.write(bytes)
        armWatchdog()
    }

    /// Stops the helper (shutdown); requests in flight fail.
    func close() {
        isClosed = true
        restartTimer?.close()
        watchdog?.close()
        failAll("the artwork helper is shut down")
        let waiting = deferred
        deferred.removeAll()
        for (_, completion) in waiting { later { completion(.failure(Failure("the artwork helper is shut down"))) } }
        if let p = process, p.exit == nil { try? p.kill(SIGTERM) }
        process?.close()
        process = nil
        input = nil
    }

    // MARK: -

    private func spawn() {
        buffer.removeAll()
        do {
            let p = try ChildProcess(loop: loop, executable: executable, arguments: [],
                                     environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"],
                                     stdio: [.pipe, .pipe, .inherit]) { [weak self] exit in
                self?.exited(exit)
            }
            process = p
            input = p.pipes[0]
            input?.onWriteFailure { _ in }  // the exit callback reports the death
            try p.pipes[1]?.startReading(onRead: { [weak self] bytes in self?.received(bytes) }, onEnd: { _ in })
            if startedOnce { restarts += 1 }
            startedOnce = true
            startedAtMS = loop.nowMilliseconds
            logger.debug("artwork helper started (pid \(p.pid))")
        } catch {
            logger.error("cannot start the artwork helper \(executable): \(error)")
            process = nil
            input = nil
        }
    }

    private func received(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
        while let nl = buffer.firstIndex(of: 0x0A) {
            let line = Array(buffer[..<nl])
            buffer.removeSubrange(...nl)
            guard !pending.isEmpty else { continue }
            let reply = try? JSONParser.parse(line)
            // Replies come in order; an id mismatch means the helper is confused: restart it.
            guard let reply, reply["id"]?.intValue.map(Int64.init) == pending[0].id else {
                kill("the artwork helper answered out of order")
                return
            }
            let (_, completion) = pending.removeFirst()
            completion(Self.parse(reply))
        }
        if buffer.count > 64 * 1024 { kill("the artwork helper sent an over-long line") }
        armWatchdog()
    }

    static func parse(_ reply: JSON) -> Result<Reply, Failure> {
        guard reply["ok"]?.boolValue == true else {
            return .failure(Failure(reply["error"]?.stringValue ?? "the artwork helper failed"))
        }
        if reply["none"]?.boolValue == true { return .success(.none) }
        guard let w = reply["width"]?.intValue, let h = reply["height"]?.intValue, let type = reply["type"]?.stringValue,
              let bytes = reply["bytes"]?.intValue, let sum = reply["checksum"]?.intValue, let checksum = UInt32(exactly: sum) else {
            return .failure(Failure("the artwork helper's reply is incomplete"))
        }
        return .success(.file(.init(width: w, height: h, type: type, bytes: bytes, checksum: checksum)))
    }

    private func exited(_ exit: ChildProcess.Exit) {
        let how = exit.signal != 0 ? "was killed by signal \(exit.signal)" : "exited with status \(exit.status)"
        lastExit = how
        process?.close()
        process = nil
        input = nil
        watchdog?.stop()
        failAll("the artwork helper \(how)")
        guard !isClosed else { return }
        let ranFor = loop.nowMilliseconds >= startedAtMS ? loop.nowMilliseconds - startedAtMS : 0
        guard case .restart(let delay) = restartPolicy.died(ranForMS: ranFor) else { return }
        lastRestartDelayMS = delay
        logger.warning("artwork helper \(how); starting it again in \(delay) ms")
        if restartTimer == nil { restartTimer = try? Timer(loop: loop) }
        restartTimer?.start(after: delay) { [weak self] in
            guard let self, !self.isClosed else { return }
            if self.process == nil { self.spawn() }
            let waiting = self.deferred
            self.deferred.removeAll()
            for (params, completion) in waiting { self.request(params, completion: completion) }
        }
    }

    private func kill(_ reason: String) {
        logger.warning("\(reason): killing it")
        failAll(reason)
        if let p = process, p.exit == nil { try? p.kill(SIGKILL) }
    }

    private func failAll(_ reason: String) {
        let failed = pending
        pending.removeAll()
        for (_, completion) in failed { later { completion(.failure(Failure(reason))) } }
    }

    private func armWatchdog() {
        guard !pending.isEmpty else { watchdog?.stop(); return }
        if watchdog == nil { watchdog = try? Timer(loop: loop) }
        watchdog?.start(after: requestTimeoutMilliseconds) { [weak self] in
            self?.kill("the artwork helper did not answer within \(self?.requestTimeoutMilliseconds ?? 0) ms")
        }
    }

    private func later(_ body: @escaping () -> Void) {
        guard let t = try? Timer(loop: loop) else { return }
        t.start(after: 0) {
            t.close()
            body()
        }
    }
}
