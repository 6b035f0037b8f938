import PlayerHostBase
import PlayerHostClient
import PlayerHostRPC

/// A client of an `EmbeddedHost`: the far end of an in-memory byte pipe, with `ControlClient`'s
/// API (`call`, `notify`, `send`, `readLine`, `readMessage`, `nextNotification`,
/// `notifications`, `requestHandler`, `timeout`, `close`), so a test written against the real
/// daemon moves here by changing how it gets its clients.
///
/// Waiting is the host's time, not the wall clock's: a read runs the host until idle, and while
/// nothing has arrived moves its time to the next timer, up to `timeout` seconds of host time;
/// then it throws `.timeout` as `ControlClient` does.
public final class EmbeddedClient: RPCClientEndpoint {
    /// The host (strong: a test may keep only its clients; `EmbeddedHost.close` ends the cycle).
    public let host: EmbeddedHost
    /// The host's end of the pipe.
    public let rpc: RPCConnection
    /// Seconds of host time to wait for any one reply.
    public var timeout: Double
    /// Notifications received so far (oldest first).
    public var notifications: [JSON] = []
    /// Answers requests the host sends (e.g. `command.handle`); unset → method not found.
    public var requestHandler: ((String, JSON) -> Result<JSON, RPCError>)?
    /// Bytes the host wrote that this end has not read.
    private var inbox: [UInt8] = []
    private var inboxStart = 0
    private var nextID: Int64 = 1
    /// The client closed its end.
    public private(set) var isClosed = false
    /// The host closed its end (after a limit broke): reads past what it wrote fail as closed.
    private var hostClosed = false

    init(host: EmbeddedHost, rpc: RPCConnection, timeout: Double) {
        self.host = host
        self.rpc = rpc
        self.timeout = timeout
    }

    /// The connection's id in the host (its `ClientID`).
    public var id: Int { rpc.id }

    /// Moves what the host queued for this end into its inbox.
    func takeOutput() {
        rpc.drainOutput { inbox.append(contentsOf: $0) }
    }

    /// Closes this end; the host sees the disconnect on its next turn.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        host.disconnected(self)
    }

    /// Calls `method` with params by name (an object) or by position (an array).
    @discardableResult
    public func call(_ method: String, params: JSON) throws(ClientError) -> JSON {
        let id = nextID
        nextID += 1
        var line: [UInt8] = []
        RPCEncoder.request(method: method, params: params, id: id, into: &line)
        // The host's loop turns between a client's calls: what earlier ones left for later turns
        // is done first. (`send` does not: bytes sent together are read in one turn.)
        host.runUntilIdle()
        return try exchange(line, id: id)
    }

    /// Writes raw bytes to the host, which reads them at once (as its socket would on its next
    /// turn); replies ready then wait in this end's inbox.
    public func send(_ bytes: [UInt8]) throws(ClientError) {
        guard !isClosed, !hostClosed, !rpc.isClosed else { throw .closed }
        let disposition = bytes.withUnsafeBytes { rpc.receive($0) }
        takeOutput()
        if case .closeAfterFlush = disposition {
            hostClosed = true
            host.disconnected(self)
        }
    }

    /// Whether a complete line waits in the inbox.
    public var hasBufferedInput: Bool {
        !notifications.isEmpty || inbox[inboxStart...].contains(0x0A)
    }

    /// Reads one line (without its newline), waiting up to `timeout` seconds of host time.
    public func readLine() throws(ClientError) -> [UInt8] {
        let budget = UInt64(max(0, Microseconds.from(seconds: timeout) / 1000))
        var waited: UInt64 = 0
        // What already arrived is read first, as from a socket; then the host runs its pending
        // turns; only then does its time move, as a client waiting on a daemon lets it run.
        var ranHost = false
        while true {
            takeOutput()
            if let nl = inbox[inboxStart...].firstIndex(of: 0x0A) {
                let line = Array(inbox[inboxStart..<nl])
                inboxStart = nl + 1
                if inboxStart == inbox.count {
                    inbox.removeAll(keepingCapacity: true)
                    inboxStart = 0
                }
                return line
            }
            if isClosed || hostClosed || rpc.isClosed { throw .closed }
            if !ranHost {
                ranHost = true
                host.runUntilIdle()
                continue
            }
            guard waited < budget else { throw .timeout(seconds: timeout) }
            // Nothing yet: the host's time moves to its next timer (or to the deadline).
            let step = min(host.scheduler.nextDueInMilliseconds ?? budget - waited, budget - waited)
            host.advance(byMilliseconds: max(step, 1))
            waited += max(step, 1)
        }
    }

    /// Reads and parses one message.
    public func readMessage() throws(ClientError) -> JSON {
        let line = try readLine()
        let parsed = line.withUnsafeBytes { b in
            Result { () throws(JSONParseError) in try JSONParser.parse(b, maxDepth: 512) }
        }
        switch parsed {
        case .success(let value): return value
        case .failure(let error): throw .protocolViolation(error.message)
        }
    }
}
