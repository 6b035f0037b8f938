import Logging

/// One accepted client: its stream and its protocol state, joined. Reads are fed to the
/// `RPCConnection`; whatever that produced is written once per read, so a pipelined burst of
/// requests costs one write. A client whose unread replies exceed the output limit is cut off.
final class ClientConnection {
    let stream: PipeStream
    let rpc: RPCConnection
    private let maxOutput: Int
    private unowned let server: ControlServer
    private(set) var isClosed = false
    let peerPID: Int32?

    init(stream: PipeStream, rpc: RPCConnection, server: ControlServer, peerPID: Int32?) {
        self.stream = stream
        self.rpc = rpc
        self.server = server
        self.maxOutput = rpc.dispatcher.limits.maxOutputBytes
        self.peerPID = peerPID
    }

    func start() throws(LoopError) {
        rpc.onOutput = { [unowned self] in self.flush() }
        stream.onWriteFailure { [unowned self] error in
            self.close(reason: "write failed: \(error.message)")
        }
        try stream.startReading(
            onRead: { [unowned self] bytes in
                // Strong for the whole callback: flush() may close the connection, dropping the
                // server's reference, and we still read isClosed after it.
                let me = self
                let disposition = me.rpc.receive(bytes)
                me.flush()
                guard !me.isClosed else { return }
                if case .closeAfterFlush(let reason) = disposition {
                    me.closeAfterFlush(reason: reason)
                }
            },
            onEnd: { [unowned self] error in
                self.close(reason: error.map { "read failed: \($0.message)" } ?? "client closed")
            })
    }

    /// Writes pending output; cuts the client off if it is not keeping up.
    func flush() {
        guard !isClosed else { return }
        if !rpc.output.isEmpty {
            rpc.output.withUnsafeBytes { stream.write($0) }
            rpc.output.removeAll(keepingCapacity: rpc.output.capacity <= 1 << 20)
        }
        // Replies held behind a slow one count too, or a client could pile up memory behind it.
        let queued = stream.pendingWriteBytes + rpc.heldReplyBytes
        if !isClosed && queued > maxOutput {
            let reason = "client is not reading: \(queued) bytes queued (limit \(maxOutput))"
            server.logger.warning("disconnecting client \(rpc.id): \(reason)")
            close(reason: reason)
        }
    }

    /// Stops reading, lets queued replies go out, then closes.
    func closeAfterFlush(reason: String) {
        guard !isClosed else { return }
        stream.stopReading()
        server.logger.info("closing connection \(rpc.id): \(reason)")
        // Strong on purpose: a connection refused at accept is in no table, so the pending
        // shutdown is what keeps it alive until its last bytes are out.
        stream.shutdown { [self] _ in self.close(reason: reason) }
    }

    /// Closes now, dropping anything unwritten. Idempotent.
    func close(reason: String) {
        guard !isClosed else { return }
        isClosed = true
        server.logger.debug("connection \(rpc.id) closed: \(reason)")
        rpc.close()
        stream.close()
        server.connectionClosed(self)
    }
}
