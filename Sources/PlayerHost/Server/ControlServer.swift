import Glibc
import Logging
import PlayerHostBase
import PlayerHostClient
import PlayerHostLoop
import PlayerHostRPC

/// The listening control socket and its connections. It owns the socket file: created with mode
/// 0600 (the umask is set before bind, never a chmod after), removed on `stopAccepting`.
public final class ControlServer {
    public let loop: EventLoop
    public let dispatcher: RPCDispatcher
    public let path: String
    let logger: Logger
    private var listener: PipeServer?
    private var clients: [Int: ClientConnection] = [:]
    private var nextID = 1
    /// Connections accepted since start.
    public private(set) var totalAccepted = 0
    /// Connections refused (wrong uid, over the cap).
    public private(set) var totalRefused = 0
    /// Unsent output of every client connection together, against `maxTotalOutputBytes`.
    public private(set) var queuedOutputBytes = 0
    /// Clients cut off because the total output went over the global budget.
    public private(set) var cutOffOverBudget = 0
    /// Clients cut off because their own output passed `maxOutputBytes`.
    public internal(set) var cutOffOverLimit = 0
    /// Clients cut off because, held back, they took none of their output for `maxStallMilliseconds`.
    public internal(set) var cutOffStalled = 0
    private var enforcing = false

    /// A client connected (after the uid check).
    public var onConnect: ((RPCConnection) -> Void)?
    /// A client went away, for whatever reason. Its `RPCConnection` is still readable.
    public var onDisconnect: ((RPCConnection) -> Void)?

    public init(loop: EventLoop, dispatcher: RPCDispatcher, path: String, logger: Logger) {
        self.loop = loop
        self.dispatcher = dispatcher
        self.path = path
        self.logger = logger
    }

    /// Open client connections (built-in plugins' are the core's, not the server's).
    public var connectionCount: Int { clients.count }
    public var connections: [RPCConnection] { clients.keys.sorted().map { clients[$0]!.rpc } }
    public var isListening: Bool { listener != nil }

    /// The open connection with this id.
    public func connection(id: Int) -> RPCConnection? { clients[id]?.rpc }

    /// The device and inode of the socket file we bound: at exit only that file is removed, not
    /// one another daemon bound at the same path meanwhile.
    private var boundFile: (dev: UInt64, ino: UInt64)?

    /// Binds and listens. The caller holds the instance lock; an existing socket at `path` is
    /// replaced only if nothing answers on it (a stale socket from a daemon that died): a live
    /// listener's socket is never unlinked.
    public func start() throws(ServerError) {
        if path.utf8.count > UnixSocketPath.maxLength {
            throw .pathTooLong(path, limit: UnixSocketPath.maxLength)
        }
        var st = stat()
        if lstat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFSOCK else {
                throw .listen(path, reason: "a file that is not a socket is in the way")
            }
            if case .success(let fd) = UnixSocketConnector.connect(path: path) {
                Glibc.close(fd)
                throw .listen(path, reason: "another program is listening on it")
            }
            logger.info("replacing stale socket \(path)")
            unlink(path)
        }
        do throws(LoopError) {
            let server = try PipeServer(loop: loop)
            let old = umask(0o177)
            defer { umask(old) }
            do throws(LoopError) {
                try server.bind(path: path)
                var bound = stat()
                if lstat(path, &bound) == 0 { boundFile = (UInt64(bound.st_dev), UInt64(bound.st_ino)) }
                try server.listen { [weak self] error in self?.acceptOne(error) }
            } catch {
                server.close()
                removeSocketFileIfOurs()
                throw error
            }
            listener = server
        } catch {
            throw .listen(path, reason: error.message)
        }
    }

    private func acceptOne(_ error: LoopError?) {
        guard let listener else { return }
        if let error {
            logger.warning("accept: \(error)")
            return
        }
        let stream: PipeStream
        do { stream = try listener.accept() } catch {
            logger.warning("accept: \(error)")
            return
        }
        let creds = stream.peerCredentials()
        if creds?.uid != getuid() {
            totalRefused += 1
            logger.warning("refused a peer of uid \(creds.map { String($0.uid) } ?? "unknown") (we are uid \(getuid()))")
            stream.close()
            return
        }
        let limit = dispatcher.limits.maxConnections
        if connectionCount >= limit {
            let rpc = RPCConnection(id: nextID, dispatcher: dispatcher)
            nextID += 1
            let client = ClientConnection(stream: stream, rpc: rpc, server: self, peerPID: creds?.pid)
            totalRefused += 1
            logger.warning("refused a connection: \(limit) already open")
            RPCEncoder.writeReply(
                id: .null, .failure(.limitExceeded("too many connections", limit: limit)), into: &rpc.output)
            client.flush()
            client.closeAfterFlush(reason: "connection limit")
            return
        }
        totalAccepted += 1
        register(stream, peerPID: creds?.pid)
    }

    @discardableResult
    private func register(_ stream: PipeStream, peerPID: Int32?) -> RPCConnection? {
        let id = nextID
        nextID += 1
        let rpc = RPCConnection(id: id, dispatcher: dispatcher)
        let client = ClientConnection(stream: stream, rpc: rpc, server: self, peerPID: peerPID)
        clients[id] = client
        do { try client.start() } catch {
            client.close(reason: "cannot read: \(error)")
            return nil
        }
        onConnect?(rpc)
        return rpc
    }

    /// Connections with requests left over from their last turn, served round robin.
    private var ready: [ClientConnection] = []
    private var roundQueued = false

    /// Serves `client` again on the next turn, after everyone already waiting.
    func schedule(_ client: ClientConnection) {
        guard !client.isScheduled else { return }
        client.isScheduled = true
        ready.append(client)
        guard !roundQueued else { return }
        roundQueued = true
        loop.onNextTurn { [weak self] in self?.serveRound() }
    }

    /// One turn of the round robin: each waiting connection gets one budget.
    private func serveRound() {
        roundQueued = false
        let round = ready
        ready.removeAll(keepingCapacity: true)
        for client in round { client.serveInbox() }
    }

    /// A connection's unsent output changed by `delta` bytes.
    func outputChanged(by delta: Int) {
        queuedOutputBytes += delta
        if delta > 0 && queuedOutputBytes > dispatcher.limits.maxTotalOutputBytes { enforceOutputBudget() }
    }

    /// Cuts clients off until the total unsent output is within `maxTotalOutputBytes`, slowest
    /// first: those whose socket is full (bytes wait on it) before those whose output is merely
    /// in flight; among them the one holding most, then the one stalled longest. Each goes on
    /// the next loop turn (`closeSoon`), but its bytes leave the total at once, so no more are
    /// cut than needed. A scan of the clients, only when over the budget: rare, and it ends over.
    package func enforceOutputBudget() {
        let budget = dispatcher.limits.maxTotalOutputBytes
        guard queuedOutputBytes > budget, !enforcing else { return }
        enforcing = true
        defer { enforcing = false }
        let ordered = clients.values.filter { $0.accountedBytes > 0 && !$0.isClosing }.sorted { a, b in
            if a.isStalled != b.isStalled { return a.isStalled }
            if a.accountedBytes != b.accountedBytes { return a.accountedBytes > b.accountedBytes }
            return a.lastProgress < b.lastProgress
        }
        for client in ordered where queuedOutputBytes > budget {
            cutOffOverBudget += 1
            client.cutOff(reason: "over the global output budget: \(queuedOutputBytes) bytes queued for all clients, \(client.accountedBytes) of them for this one (max_total_output_mb, \(budget) bytes)")
        }
    }

    /// `host.stats`' `server` object: output held and clients cut off.
    public var statsJSON: JSON {
        ["queuedOutputBytes": .int(Int64(queuedOutputBytes)),
         "outputBudgetBytes": .int(Int64(dispatcher.limits.maxTotalOutputBytes)),
         "cutOffOverBudget": .int(Int64(cutOffOverBudget)),
         "cutOffOverLimit": .int(Int64(cutOffOverLimit)),
         "cutOffStalled": .int(Int64(cutOffStalled))]
    }

    func connectionClosed(_ client: ClientConnection) {
        guard clients.removeValue(forKey: client.rpc.id) != nil else { return }
        client.rpc.failAllOutgoing(reason: "the client disconnected")
        onDisconnect?(client.rpc)
    }

    /// Stops accepting and removes the socket file; existing connections go on.
    public func stopAccepting() {
        guard let listener else { return }
        listener.close()
        self.listener = nil
        if !removeSocketFileIfOurs() {
            logger.warning("not removing \(path): it is no longer the socket this daemon bound")
        }
    }

    /// Unlinks `path` if it is still the file we bound (libuv never does: see `PipeServer.bind`).
    @discardableResult
    private func removeSocketFileIfOurs() -> Bool {
        var st = stat()
        guard let ours = boundFile, lstat(path, &st) == 0, UInt64(st.st_dev) == ours.dev, UInt64(st.st_ino) == ours.ino else {
            return false
        }
        unlink(path)
        boundFile = nil
        return true
    }

    /// Closes every connection now, dropping unwritten output (the shutdown deadline).
    public func closeAllNow(reason: String) {
        for id in clients.keys.sorted() { clients[id]?.close(reason: reason) }
    }

    /// Closes every connection after its queued output is written.
    public func closeAll(reason: String) {
        for id in clients.keys.sorted() { clients[id]?.closeAfterFlush(reason: reason) }
    }
}
