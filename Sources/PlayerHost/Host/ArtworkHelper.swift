import Glibc
import Logging
import PlayerHostBase
import PlayerHostLoop
import PlayerHostModel
import PlayerHostRPC

/// The daemon's side of one artwork helper process (`playerhost-artwork`): a supervised child
/// spoken to over its stdin/stdout, one JSON request per line, one reply per line.
///
/// Every untrusted byte is fetched and parsed there. One request is in the helper at a time;
/// the rest wait here in order. So when the helper dies (a decoder crash, SIGKILL) or hangs past
/// the request's deadline (it is then killed), the one request it was working on is known: that
/// one fails with the reason, and the waiting ones go to the helper once it has started again —
/// an innocent request never fails with another's reason. It is started again after the
/// `RestartPolicy`'s backoff (doubling while it keeps dying quickly, so an image that crashes the
/// decoder cannot make a restart loop; it never gives up, artwork is asked for again with every
/// track). The helper gets a clean environment and is reachable only through its pipes.
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

    private struct Job {
        var ticket: Int
        var params: [String: JSON]
        var timeoutMilliseconds: UInt64
        var completion: (Result<Reply, Failure>) -> Void
    }

    let loop: EventLoop
    /// The helper's clock: the deadline of the request in the helper, the restart backoff, the
    /// idle exit and the later turns completions run on (the loop; a `ManualScheduler` in tests).
    /// The process and its pipes are the loop's.
    let scheduler: Scheduler
    let executable: String
    let logger: Logger
    /// How long one request may take before the helper is killed (unless the request says).
    var requestTimeoutMilliseconds: UInt64 = 10_000
    private var process: ChildProcess?
    private var input: PipeStream?
    private var buffer: [UInt8] = []
    /// The request the helper is working on (at most one), by its line id, with its deadline:
    /// past it the helper is killed. A reply for any other id means the helper is confused.
    private let inHelper: PendingRequests<Int64, JSON>
    /// The requests waiting for the helper, in order.
    private var waiting: [Job] = []
    private var nextID: Int64 = 1
    private var nextTicket = 1
    private var restartTimer: HostTimer?
    /// A restart is scheduled: nothing is sent until it ran.
    private var restartPending = false
    /// When to start it again after it died.
    var restartPolicy = RestartPolicy(initialBackoffMS: 100, maxBackoffMS: 8000, stableAfterMS: 10_000, startLimit: nil)
    /// The backoff chosen after the last death (ms), for `artwork.status` and tests.
    private(set) var lastRestartDelayMS: UInt64?
    /// When the running helper started (loop clock, ms).
    private var startedAtMS: UInt64 = 0
    private var isClosed = false
    /// Killed and not yet reaped: nothing more is sent to it.
    private var isDying = false
    /// When set, a helper idle this long is stopped, and started again by the next request: the
    /// fetch helpers do not keep a burst's memory (a large body, decoder buffers) for ever.
    var idleExitMilliseconds: UInt64?
    private var idleTimer: HostTimer?
    /// Stopped for idleness and not yet reaped: not a death, no restart backoff.
    private var isRetiring = false
    /// Times the helper was started again after it died.
    private(set) var restarts = 0
    /// The last way it ended, for `artwork.status`.
    private(set) var lastExit: String?

    /// A helper run as `executable`, its process on `loop`, its time kept by `scheduler`
    /// (nil: the loop).
    init(loop: EventLoop, scheduler: Scheduler? = nil, executable: String, logger: Logger) {
        self.loop = loop
        self.scheduler = scheduler ?? loop
        self.executable = executable
        self.logger = logger
        inHelper = PendingRequests(scheduler: scheduler ?? loop)
    }

    /// The helper's pid while it runs.
    var pid: Int32? { process.flatMap { $0.exit == nil ? $0.pid : nil } }

    /// Requests in the helper or waiting for it.
    var load: Int { waiting.count + inHelper.count }

    /// Sends one request (after those waiting); `completion` runs once on a later loop turn,
    /// unless the request is cancelled. `timeoutMilliseconds` replaces the default deadline.
    /// Returns a ticket for `cancel`.
    @discardableResult
    func request(_ params: [String: JSON], timeoutMilliseconds: UInt64? = nil,
                 completion: @escaping (Result<Reply, Failure>) -> Void) -> Int {
        let ticket = nextTicket
        nextTicket += 1
        guard !isClosed else {
            later { completion(.failure(Failure("the artwork helper is shut down"))) }
            return ticket
        }
        waiting.append(Job(ticket: ticket, params: params, timeoutMilliseconds: timeoutMilliseconds ?? requestTimeoutMilliseconds,
                           completion: completion))
        sendNext()
        return ticket
    }

    /// Drops a waiting request: it is never sent and its completion never runs. One already in
    /// the helper runs its course (bounded by its deadline) and completes as usual, so whatever
    /// it wrote is adopted or removed by its owner. Unknown tickets are ignored.
    func cancel(_ ticket: Int) {
        waiting.removeAll { $0.ticket == ticket }
    }

    /// Stops the helper (shutdown); requests in flight and waiting fail.
    func close() {
        isClosed = true
        restartTimer?.close()
        restartPending = false
        idleTimer?.close()
        failCurrent("the artwork helper is shut down")
        let dropped = waiting
        waiting.removeAll()
        for job in dropped { later { job.completion(.failure(Failure("the artwork helper is shut down"))) } }
        if let p = process, p.exit == nil { try? p.kill(SIGTERM) }
        process?.close()
        process = nil
        input = nil
    }

    // MARK: -

    /// Hands the next waiting request to the helper when it is idle and not waiting to restart.
    private func sendNext() {
        guard !isClosed, !isDying, !isRetiring, inHelper.count == 0, !waiting.isEmpty else { return }
        idleTimer?.stop()
        if restartPending { return }
        if process == nil { spawn() }
        guard let input else {
            // It could not start at all: nothing will run these.
            let dropped = waiting
            waiting.removeAll()
            for job in dropped {
                later { job.completion(.failure(Failure("the artwork helper could not start (\(self.executable))"))) }
            }
            return
        }
        let job = waiting.removeFirst()
        let id = nextID
        nextID += 1
        var message = job.params
        message["id"] = .int(id)
        var bytes = JSON.object(message).serialized()
        bytes.append(0x0A)
        inHelper.add(id, timeoutMilliseconds: job.timeoutMilliseconds) { [weak self] outcome in
            switch outcome {
            case .reply(let reply):
                job.completion(Self.parse(reply))
            case .timedOut:
                // Hung on this request: it fails with that reason, and the helper is killed (its
                // exit restarts it for the waiting ones).
                let reason = "the artwork helper did not answer within \(job.timeoutMilliseconds) ms"
                self?.later { job.completion(.failure(Failure(reason))) }
                self?.kill(reason)
            case .cancelled(let reason):
                self?.later { job.completion(.failure(Failure(reason))) }
            }
        }
        input.write(bytes)
    }

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
            startedAtMS = scheduler.nowNanoseconds / 1_000_000
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
            guard let id = inHelper.ids.first else { continue }  // a killed request's late answer
            let reply = try? JSONParser.parse(line)
            // One request is in the helper: any other id means it is confused. Restart it.
            guard let reply, reply["id"]?.intValue.map(Int64.init) == id else {
                kill("the artwork helper answered out of order")
                return
            }
            inHelper.complete(id, with: reply)
            sendNext()
            if inHelper.count == 0 && waiting.isEmpty { armIdleExit() }
        }
        if buffer.count > 64 * 1024 { kill("the artwork helper sent an over-long line") }
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
        isDying = false
        process?.close()
        process = nil
        input = nil
        if isRetiring {
            // Stopped on purpose while idle: the next request starts a fresh one.
            isRetiring = false
            sendNext()
            return
        }
        lastExit = how
        // Only the request it was working on fails; the waiting ones go to the next helper.
        failCurrent("the artwork helper \(how)")
        guard !isClosed else { return }
        let nowMS = scheduler.nowNanoseconds / 1_000_000
        let ranFor = nowMS >= startedAtMS ? nowMS - startedAtMS : 0
        guard case .restart(let delay) = restartPolicy.died(ranForMS: ranFor) else { return }
        lastRestartDelayMS = delay
        logger.warning("artwork helper \(how); starting it again in \(delay) ms")
        if restartTimer == nil { restartTimer = scheduler.makeTimer() }
        restartPending = restartTimer != nil
        restartTimer?.start(after: delay) { [weak self] in
            guard let self else { return }
            self.restartPending = false
            guard !self.isClosed else { return }
            if self.process == nil {
                self.spawn()
                if self.process != nil { self.restarts += 1 }
            }
            self.sendNext()
        }
    }

    /// Stops the helper (SIGTERM: it is between requests, nothing is lost) after
    /// `idleExitMilliseconds` without one.
    private func armIdleExit() {
        guard let ms = idleExitMilliseconds else { return }
        if idleTimer == nil { idleTimer = scheduler.makeTimer() }
        idleTimer?.start(after: ms) { [weak self] in
            guard let self, !self.isClosed, self.inHelper.count == 0, self.waiting.isEmpty,
                  let p = self.process, p.exit == nil, !self.isDying else { return }
            self.isRetiring = true
            try? p.kill(SIGTERM)
        }
    }

    /// Fails the request in the helper with `reason` and kills the helper; the exit callback
    /// then restarts it for the waiting requests.
    private func kill(_ reason: String) {
        logger.warning("\(reason): killing it")
        failCurrent(reason)
        if let p = process, p.exit == nil {
            isDying = true
            try? p.kill(SIGKILL)
        }
    }

    /// Fails the request in the helper (if any) with `reason`, on a later turn; its deadline goes.
    private func failCurrent(_ reason: String) {
        inHelper.cancelAll(reason: reason)
    }

    /// Runs `body` on a later turn, never inside the caller's stack (dropped once the scheduler
    /// closed, as at shutdown).
    private func later(_ body: @escaping () -> Void) {
        scheduler.onNextTurn(body)
    }
}
