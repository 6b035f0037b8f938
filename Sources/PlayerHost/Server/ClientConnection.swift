import Logging
import PlayerHostLoop
import PlayerHostRPC

/// One accepted client: its stream and its protocol state, joined.
///
/// Fairness: each loop turn a connection has at most `requestsPerTurn` requests served, and none
/// more once its requests took `turnBudgetMicroseconds` (the clock is read once per request); what
/// it sent beyond that waits in `inbox` (reading paused) and the server serves it on later turns,
/// round robin with everyone else. Back-pressure: once its unsent output passes the high-water
/// mark it is not read (nor served) until the client takes half of it, so a client that never
/// reads costs almost nothing; it is cut off only if output it did not ask for (events, requests
/// to a target) still takes it past the output limit.
///
/// Lifetime: the stream's callbacks hold the connection strongly, and the stream drops them in its
/// close callback, so the connection lives exactly as long as any callback can still reach it.
/// A failure found inside someone else's call (a write made while another client's request is
/// served) closes the connection on the loop's next turn, never under that caller.
///
/// Output accounting: the connection reports each change of its unsent output to the server
/// (`accountedBytes`), which holds the total of every client against the global budget and cuts
/// off the slowest when it is over. The limits are read from the dispatcher as they are needed,
/// so a configuration reload applies to open connections.
final class ClientConnection {
    let stream: PipeStream
    let rpc: RPCConnection
    private var limits: RPCLimits { rpc.dispatcher.limits }
    private var maxOutput: Int { limits.maxOutputBytes }
    private var highWater: Int { limits.effectiveHighWater }
    private var budget: Int { max(1, limits.requestsPerTurn) }
    private var maxStall: UInt64 { limits.maxStallMilliseconds }
    private weak var server: ControlServer?
    private let logger: Logger
    // `@exclusivity(unchecked)` below: touched per subscriber of every event; why it is safe in
    // `RPCConnection`'s comment.
    @exclusivity(unchecked) private(set) var isClosed = false
    /// A close is scheduled for the next turn: nothing more is read or written.
    @exclusivity(unchecked) private(set) var isClosing = false
    let peerPID: Int32?
    /// Input read but not served yet (beyond one turn's budget), from a line boundary.
    private var inbox: [UInt8] = []
    /// Waiting in the server's round robin.
    var isScheduled = false
    /// Not read until its unsent output drains below half the high-water mark.
    @exclusivity(unchecked) private(set) var isHeldBack = false
    /// Input ended (a limit broke, closing after flush): never read again.
    private var inputDone = false
    /// Armed while held back: a client that takes none of its output for `maxStallMilliseconds`
    /// is cut off.
    private var stallTimer: Timer?
    private var pendingAtStallCheck = 0
    /// This connection's share of the server's `queuedOutputBytes`, as last reported.
    @exclusivity(unchecked) private(set) var accountedBytes = 0
    /// When the socket last took queued bytes, or stopped taking them (`EventLoop.hrtime`): of
    /// two clients holding as much, the one stalled longer is cut off first.
    @exclusivity(unchecked) private(set) var lastProgress: UInt64 = 0

    init(stream: PipeStream, rpc: RPCConnection, server: ControlServer, peerPID: Int32?) {
        self.stream = stream
        self.rpc = rpc
        self.server = server
        self.logger = server.logger
        self.peerPID = peerPID
    }

    /// Unsent output: on the socket, not yet written, held behind a slow reply.
    var queuedBytes: Int { stream.pendingWriteBytes + rpc.unsentBytes }

    /// Bytes wait on the socket: the client is not taking its output as fast as it comes.
    var isStalled: Bool { stream.pendingWriteBytes > 0 }

    /// Reports a change of the unsent output to the server (which may cut clients off, this one
    /// included: callers check `isClosing` after).
    private func account() {
        let now = isClosed || isClosing ? 0 : queuedBytes
        guard now != accountedBytes else { return }
        let delta = now - accountedBytes
        accountedBytes = now
        server?.outputChanged(by: delta)
    }

    func start() throws(LoopError) {
        let loop = stream.loop
        rpc.scheduler = loop
        // Strong, both: `rpc.close()` (in `close`) drops them. A weak reference would give the
        // stream and this connection side-table reference counts, slower on every write of an
        // event fanned out to many subscribers.
        rpc.transportQueuedBytes = { [stream] in stream.pendingWriteBytes }
        rpc.onOutput = { [self] in flush() }
        // Strong: released in the stream's close callback (see the type's comment).
        stream.onWriteFailure { [self] error in
            close(reason: "write failed: \(error.message)")
        }
        // Every completed write: the accounting follows the socket, and a held-back client is
        // read again once it took enough (`outputDrained` checks how much).
        stream.onWritesDrained(below: .max) { [self] in writeCompleted() }
        try stream.startReading(
            onRead: { [self] bytes in received(bytes) },
            onEnd: { [self] error in
                close(reason: error.map { "read failed: \($0.message)" } ?? "client closed")
            })
    }

    private var isLive: Bool { !isClosed && !isClosing && !inputDone }

    private func received(_ bytes: UnsafeRawBufferPointer) {
        guard isLive else { return }
        if inbox.isEmpty {
            let consumed = serve(bytes)
            if isLive && consumed < bytes.count {
                inbox.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[consumed...]))
            }
        } else {
            inbox.append(contentsOf: bytes)  // read paused late in a libuv read burst
        }
        decideReading()
    }

    /// Serves one turn's budget of `bytes`; returns the bytes taken.
    private func serve(_ bytes: UnsafeRawBufferPointer) -> Int {
        // uv_now is cached for the whole turn, so it cannot tell how long this connection took:
        // uv_hrtime (clock_gettime through the vDSO, tens of ns) once here and once per request.
        let deadline = EventLoop.hrtime() &+ limits.turnBudgetMicroseconds &* 1000
        let (consumed, disposition) = rpc.receive(bytes, maxLines: budget) { EventLoop.hrtime() >= deadline }
        flush()
        guard isLive else { return bytes.count }
        if case .closeAfterFlush(let reason) = disposition {
            closeAfterFlush(reason: reason)
            return bytes.count
        }
        return consumed
    }

    /// The server's round robin: one more turn's budget of what is waiting.
    func serveInbox() {
        isScheduled = false
        guard isLive, !isHeldBack, !inbox.isEmpty else { return }
        let consumed = inbox.withUnsafeBytes { serve($0) }
        if consumed >= inbox.count {
            inbox.removeAll(keepingCapacity: false)
        } else {
            inbox.removeFirst(consumed)
        }
        decideReading()
    }

    /// Read on, wait for a turn, or wait for the client to take its output.
    private func decideReading() {
        guard isLive else { return }
        if queuedBytes >= highWater {
            if !isHeldBack { armStallTimer() }
            isHeldBack = true
            stream.stopReading()
        } else if !inbox.isEmpty {
            stream.stopReading()
            server?.schedule(self)
        } else {
            stream.resumeReading()
        }
    }

    private func writeCompleted() {
        lastProgress = EventLoop.hrtime()
        account()
        outputDrained()
    }

    private func outputDrained() {
        guard isHeldBack, queuedBytes < highWater / 2 || queuedBytes == 0 else { return }
        isHeldBack = false
        stallTimer?.stop()
        decideReading()
    }

    private func armStallTimer() {
        if stallTimer == nil { stallTimer = try? Timer(loop: stream.loop) }
        pendingAtStallCheck = stream.unwrittenBytes
        stallTimer?.start(after: maxStall) { [weak self] in self?.stallCheck() }
    }

    /// Held back for `maxStall`: cut off unless the client took some of its output meanwhile.
    private func stallCheck() {
        guard isHeldBack, isLive else { return }
        // Progress inside one big write counts: a client reading a large reply slowly is not stalled.
        if stream.unwrittenBytes < pendingAtStallCheck {
            armStallTimer()
            return
        }
        let reason = "client is not reading: \(queuedBytes) bytes queued, none taken for \(maxStall) ms"
        logger.warning("disconnecting client \(rpc.id): \(reason)")
        server?.cutOffStalled += 1
        close(reason: reason)
    }

    /// Writes pending output; cuts the client off (on the next turn) if it is not keeping up.
    func flush() {
        guard !isClosed else { return }
        guard !isClosing else {
            rpc.discardOutput()
            return
        }
        let wasFlowing = stream.pendingWriteBytes == 0
        // One write of everything ready; an event shared with other subscribers is written from
        // the shared bytes (no copy per subscriber).
        rpc.drainOutput { stream.write($0) }
        // Replies held behind a slow one count too, or a client could pile up memory behind it.
        let queued = queuedBytes
        // The common case of an event or reply the socket took whole: nothing to account.
        if queued == 0 && accountedBytes == 0 && !isHeldBack { return }
        if wasFlowing && stream.pendingWriteBytes > 0 { lastProgress = EventLoop.hrtime() }
        // (A built-in plugin's connection is not here: it is the core's `PluginLink`, never cut
        // off for what other clients' calls queued on it; `ProvidedMethods` bounds that.)
        if queued > maxOutput {
            let reason = "client is not reading: \(queued) bytes queued (limit \(maxOutput))"
            logger.warning("disconnecting client \(rpc.id): \(reason)")
            server?.cutOffOverLimit += 1
            closeSoon(reason: reason)
            return
        }
        account()
        guard !isClosing else { return }  // cut off for the global budget
        if isHeldBack && queued < highWater / 2 {
            // Held replies went out (a slow provider answered): no write completion says so.
            outputDrained()
        }
    }

    /// Stops reading and writing now and closes on the loop's next turn: for failures noticed
    /// inside a call someone else made (a request or event written to this client), whose caller
    /// must not see this connection's pending requests fail under it.
    func closeSoon(reason: String) {
        guard !isClosed, !isClosing else { return }
        isClosing = true
        stream.stopReading()
        rpc.discardOutput()
        inbox = []
        account()  // what it holds is freed on the next turn: the budget counts it gone now
        stream.loop.onNextTurn { [self] in
            isClosing = false
            close(reason: reason)
        }
    }

    /// Cut off by the server to bring the total output back under the global budget.
    func cutOff(reason: String) {
        logger.warning("disconnecting client \(rpc.id): \(reason)")
        closeSoon(reason: reason)
    }

    /// Stops reading, lets queued replies go out, then closes.
    func closeAfterFlush(reason: String) {
        guard !isClosed, !isClosing else { return }
        inputDone = true
        inbox = []
        stream.stopReading()
        logger.info("closing connection \(rpc.id): \(reason)")
        // Strong on purpose: a connection refused at accept is in no table, so the pending
        // shutdown is what keeps it alive until its last bytes are out.
        stream.shutdown { [self] _ in self.close(reason: reason) }
    }

    /// Closes now, dropping anything unwritten, and fails each request the host sent this client
    /// that is still unanswered, once. Idempotent. Call it only from the top of a loop callback.
    func close(reason: String) {
        guard !isClosed else { return }
        isClosed = true
        inbox = []
        stallTimer?.close()
        stallTimer = nil
        logger.debug("connection \(rpc.id) closed: \(reason)")
        rpc.close()
        stream.close()
        account()
        server?.connectionClosed(self)
        rpc.failAllOutgoing(reason: "the client disconnected")
    }
}
