import Logging

/// One accepted client: its stream and its protocol state, joined. Reads are fed to the
/// `RPCConnection`; whatever that produced is written once per read, so a pipelined burst of
/// requests costs one write. A client whose unread replies exceed the output limit is cut off.
///
/// Lifetime: the stream's callbacks hold the connection strongly, and the stream drops them in its
/// close callback, so the connection lives exactly as long as any callback can still reach it.
/// A failure found inside someone else's call (a write made while another client's request is
/// served) closes the connection on the loop's next turn, never under that caller.
final class ClientConnection {
    let stream: PipeStream
    let rpc: RPCConnection
    private let maxOutput: Int
    private weak var server: ControlServer?
    private let logger: Logger
    private(set) var isClosed = false
    /// A close is scheduled for the next turn: nothing more is read or written.
    private(set) var isClosing = false
    let peerPID: Int32?

    init(stream: PipeStream, rpc: RPCConnection, server: ControlServer, peerPID: Int32?) {
        self.stream = stream
        self.rpc = rpc
        self.server = server
        self.logger = server.logger
        self.maxOutput = rpc.dispatcher.limits.maxOutputBytes
        self.peerPID = peerPID
    }

    func start() throws(LoopError) {
        let loop = stream.loop
        rpc.scheduler = { work in loop.onNextTurn(work) }
        // Weak: the RPC connection outlives nothing of ours; `rpc.close()` drops this anyway.
        rpc.onOutput = { [weak self] in self?.flush() }
        // Strong: released in the stream's close callback (see the type's comment).
        stream.onWriteFailure { [self] error in
            close(reason: "write failed: \(error.message)")
        }
        try stream.startReading(
            onRead: { [self] bytes in
                let disposition = rpc.receive(bytes)
                flush()
                guard !isClosed, !isClosing else { return }
                if case .closeAfterFlush(let reason) = disposition {
                    closeAfterFlush(reason: reason)
                }
            },
            onEnd: { [self] error in
                close(reason: error.map { "read failed: \($0.message)" } ?? "client closed")
            })
    }

    /// Writes pending output; cuts the client off (on the next turn) if it is not keeping up.
    func flush() {
        guard !isClosed else { return }
        guard !isClosing else {
            rpc.output.removeAll(keepingCapacity: false)
            return
        }
        if !rpc.output.isEmpty {
            rpc.output.withUnsafeBytes { stream.write($0) }
            rpc.output.removeAll(keepingCapacity: rpc.output.capacity <= 1 << 20)
        }
        // Replies held behind a slow one count too, or a client could pile up memory behind it.
        let queued = stream.pendingWriteBytes + rpc.heldReplyBytes
        if queued > maxOutput {
            let reason = "client is not reading: \(queued) bytes queued (limit \(maxOutput))"
            logger.warning("disconnecting client \(rpc.id): \(reason)")
            closeSoon(reason: reason)
        }
    }

    /// Stops reading and writing now and closes on the loop's next turn: for failures noticed
    /// inside a call someone else made (a request or event written to this client), whose caller
    /// must not see this connection's pending requests fail under it.
    func closeSoon(reason: String) {
        guard !isClosed, !isClosing else { return }
        isClosing = true
        stream.stopReading()
        rpc.output.removeAll(keepingCapacity: false)
        stream.loop.onNextTurn { [self] in
            isClosing = false
            close(reason: reason)
        }
    }

    /// Stops reading, lets queued replies go out, then closes.
    func closeAfterFlush(reason: String) {
        guard !isClosed, !isClosing else { return }
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
        logger.debug("connection \(rpc.id) closed: \(reason)")
        rpc.close()
        stream.close()
        server?.connectionClosed(self)
        rpc.failAllOutgoing(RPCError(.shuttingDown, "the client disconnected"))
    }
}
