import PlayerHostBase

/// The protocol state of one connection, with no socket in it: bytes go in through `receive`,
/// reply bytes accumulate in `output`, and the transport writes them out when `receive` returns or
/// when `onOutput` asks. It frames lines, decodes JSON-RPC 2.0 (single, batch, notification),
/// dispatches to the method table, keeps replies in request order even when some complete later
/// (unless `repliesInRequestOrder` is off), and carries requests the host sends to the client (and
/// their responses).
///
/// Exclusivity: the properties an event fan-out touches for every subscriber are
/// `@exclusivity(unchecked)` (here, in `PipeStream`, `LoopHandle`, `ClientConnection` and
/// `RPCSubscribers`). Each is used on the loop thread only, and no access to one spans a call that
/// can reach the same property again (`drainOutput`'s `write` must not reach this connection);
/// the dynamic checks (a thread-local lookup each) were about a fifth of the daemon's user time
/// per delivery, ~30 per subscriber (docs/PERFORMANCE.md, "Fan-out without a copy or exclusivity
/// checks per subscriber").
/// The attribute holds only in the module that declares the property, so other modules go
/// through methods and computed properties declared here (`unsentBytes`, `drainOutput`,
/// `queueEvent`, `flushQueued`) rather than the stored properties.
public final class RPCConnection {
    /// What the transport should do after `receive`.
    public enum Disposition: Equatable {
        case keepOpen
        /// Write what is in `output`, then close: the client broke a limit.
        case closeAfterFlush(reason: String)
    }

    public let id: Int
    public let dispatcher: RPCDispatcher
    /// Per-client state owned by the host (which app this is, its subscriptions…).
    public var context: AnyObject?
    /// Bytes ready to be written to the client (after `sharedLine`).
    @exclusivity(unchecked) public var output: [UInt8] = []
    /// An event line shared with every other subscriber, queued without a copy while nothing else
    /// waits: `drainOutput` writes it before `output`. A fan-out to a thousand
    /// subscribers then costs no copy, and no write access to each one's `output`. Empty: none.
    @exclusivity(unchecked) public private(set) var sharedLine: [UInt8] = []
    /// Asks the transport to write `output` when bytes were added outside `receive` (an event,
    /// a late reply, a request to the client).
    @exclusivity(unchecked) public var onOutput: (() -> Void)?
    /// Reply bytes ready but held behind an earlier reply that is not (they count toward the
    /// client's output limit like bytes queued on the socket).
    @exclusivity(unchecked) public private(set) var heldReplyBytes = 0
    /// Set by `close()`.
    @exclusivity(unchecked) public private(set) var isClosed = false
    /// Whether the connection waits in a batch whose owner calls `flushQueued` later (the event
    /// subscribers' flush): set by `queueEvent`, so the owner queues the connection once without
    /// a lookup.
    @exclusivity(unchecked) public private(set) var isQueuedForFlush = false
    /// The transport's clock (its loop; a `ManualScheduler` in tests): it keeps the deadlines of
    /// requests sent to the client, and a request made on a closed connection fails on its next
    /// turn, not inside the `request` call. Unset (tests of the protocol alone): requests have no
    /// deadline, and one on a closed connection fails at once.
    public var scheduler: Scheduler? {
        didSet { outgoing.scheduler = scheduler }
    }

    private var framer: LineFramer
    @exclusivity(unchecked) private var inReceive = false
    @exclusivity(unchecked) private var slots: [ReplySlot] = []
    @exclusivity(unchecked) private var slotHead = 0
    private var nextOutgoingID: Int64 = 1
    /// Requests sent to the client, waiting for its response (each with its own deadline).
    private let outgoing = PendingRequests<Int64, Result<JSON, RPCError>>(scheduler: nil)
    /// Off only in tests that compare the fast path with the general one.
    @exclusivity(unchecked) var usesFastPath = true
    /// Whether replies go out in request order (the default: what the host promises its clients,
    /// so a client may pipeline requests and read the answers in turn). Off, each reply (a batch's
    /// as a whole) goes out as soon as it is complete: JSON-RPC pairs a response with its request
    /// by id, and a plugin serving the host's `command.handle` for many sessions must not hold
    /// one session's answer behind another's slow one.
    @exclusivity(unchecked) public var repliesInRequestOrder = true
    /// The core's end of a built-in plugin's connection (`PluginLink`): served like any client,
    /// but not a client in the counts (requests served), and what waits on it is bounded where
    /// it is queued (`ProvidedMethods`' high-water mark), not by cutting it off.
    @exclusivity(unchecked) public package(set) var isInternal = false

    public init(id: Int, dispatcher: RPCDispatcher) {
        self.id = id
        self.dispatcher = dispatcher
        self.framer = LineFramer(maxLine: dispatcher.limits.maxLineBytes)
        output.reserveCapacity(4096)
    }

    /// Requests the host sent that still await the client's response.
    public var pendingOutgoingCount: Int { outgoing.count }

    /// Feeds bytes read from the client. Complete lines are handled at once; replies that are
    /// ready are appended to `output`.
    public func receive(_ bytes: UnsafeRawBufferPointer) -> Disposition {
        var offset = 0
        while true {
            let (taken, disposition) = receive(UnsafeRawBufferPointer(rebasing: bytes[offset...]), maxLines: .max)
            offset += taken
            if disposition != .keepOpen || taken == 0 || offset >= bytes.count { return disposition }
        }
    }

    /// Feeds bytes, handling at most `maxLines` complete lines; returns how many bytes were taken
    /// (the rest, from a line boundary, is the caller's to feed again on a later turn).
    ///
    /// A line over `maxLineBytes` is answered with one `limitExceeded` error (id null: the request
    /// was never read) and skipped; the connection stays open. Closing instead left a client that
    /// was still writing its line with a broken pipe and no error it could read.
    ///
    /// `stopAfter` is asked after each line is handled: when it returns true the rest waits too
    /// (the server's time budget per connection per turn).
    public func receive(
        _ bytes: UnsafeRawBufferPointer, maxLines: Int, stopAfter: () -> Bool = { false }
    ) -> (consumed: Int, disposition: Disposition) {
        inReceive = true
        defer { inReceive = false }
        do {
            return (try framer.feed(bytes, maxLines: maxLines, stopAfter: stopAfter) { line in handleLine(line) }, .keepOpen)
        } catch {
            emit(.reply(id: .null, .failure(.limitExceeded(
                "a line of more than \(error.limit) bytes (--max-line-bytes) was skipped", limit: error.limit))))
            return (error.consumed, .keepOpen)
        }
    }

    /// Bytes the transport holds for this client besides `output` (queued on the socket). With
    /// it, a reply that would take the client past `maxOutputBytes` becomes an error reply.
    @exclusivity(unchecked) public var transportQueuedBytes: () -> Int = { 0 }

    /// Everything queued for the client: on the socket, in `output`, held behind a slow reply.
    public var queuedBytes: Int { transportQueuedBytes() + unsentBytes }

    /// Whether bytes wait to be written (`sharedLine` or `output`).
    public var hasOutput: Bool { !sharedLine.isEmpty || !output.isEmpty }

    /// Everything waiting to be written, in order (tests, and transports that copy anyway).
    public var pendingOutput: [UInt8] { sharedLine.isEmpty ? output : sharedLine + output }

    /// Bytes held here for the client: the shared line, `output`, replies held behind a slow one
    /// (what the transport has queued on the socket is not included).
    public var unsentBytes: Int { sharedLine.count + output.count + heldReplyBytes }

    /// Hands everything ready to `write`, in order, as one buffer, and forgets it: the shared
    /// event line alone when it is all that waits (no copy), else `output` (with the shared line
    /// moved to its front). `write` must not reach back into this connection.
    public func drainOutput(_ write: (UnsafeRawBufferPointer) -> Void) {
        if !sharedLine.isEmpty {
            if output.isEmpty {
                let line = sharedLine
                sharedLine = []
                line.withUnsafeBytes(write)
                return
            }
            output.insert(contentsOf: sharedLine, at: 0)
            sharedLine = []
        }
        guard !output.isEmpty else { return }
        #if DEBUG
        isDraining = true
        defer { isDraining = false }
        #endif
        output.withUnsafeBytes(write)
        output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
    }

    #if DEBUG
    /// `drainOutput`'s `write` is running over `output` (unchecked: see the type's comment), so
    /// nothing may change it; debug builds (the tests) assert that nothing does.
    private var isDraining = false
    #endif

    @inline(__always)
    private func assertNotDraining() {
        #if DEBUG
        assert(!isDraining, "output changed while drainOutput's write ran over it")
        #endif
    }

    /// Queues an event line for a later `flushQueued` (the event subscribers' batch): returns
    /// true when the connection was not queued yet, so the caller adds it to its batch once.
    public func queueEvent(_ line: [UInt8]) -> Bool {
        let first = !isQueuedForFlush
        isQueuedForFlush = true
        sendEncoded(line, flush: false)
        return first
    }

    /// The batch's turn: out of the batch, and its bytes asked to be written (`onOutput`).
    public func flushQueued() {
        isQueuedForFlush = false
        if !isClosed && hasOutput { onOutput?() }
    }

    /// Drops everything unwritten (the connection is being cut off).
    public func discardOutput() {
        assertNotDraining()
        sharedLine = []
        output.removeAll(keepingCapacity: false)
    }

    /// The reply to send for `result`: the error `limitExceeded` (with the output limit in `data`)
    /// instead of one that would take the client past its output limit, so a client that reads is
    /// never cut off for asking something big.
    private func replyBytes(id: RequestID, _ result: Result<JSON, RPCError>) -> [UInt8] {
        let bytes = RPCEncoder.reply(id: id, result)
        let limit = dispatcher.limits.maxOutputBytes
        guard queuedBytes + bytes.count + 1 > limit else { return bytes }
        return RPCEncoder.reply(id: id, .failure(.limitExceeded(
            "a reply of \(bytes.count + 1) bytes would pass the output limit", limit: limit, actual: queuedBytes + bytes.count + 1)))
    }

    /// Sends a notification (e.g. an event) to the client.
    public func notify(method: String, params: JSON) {
        assertNotDraining()
        guard !isClosed else { return }
        RPCEncoder.notification(method: method, params: params, into: &output)
        requestFlush()
    }

    /// Queues a notification line encoded elsewhere, once for many connections (an event sent
    /// to every subscriber): the bytes are appended as they are, never re-encoded. With `flush`
    /// false the caller asks for the write later (`onOutput`), so that many events cost one write.
    public func sendEncoded(_ line: [UInt8], flush: Bool = true) {
        assertNotDraining()
        guard !isClosed else { return }
        // Nothing waits: keep a reference to the shared bytes. Otherwise copy after what waits
        // (bytes added later go to `output`, which is written after `sharedLine`: order holds).
        if output.isEmpty {
            if sharedLine.isEmpty {
                sharedLine = line
                if flush { requestFlush() }
                return
            }
            // A second event before the write: both go out in one write from `output`.
            output.append(contentsOf: sharedLine)
            sharedLine = []
        }
        output.append(contentsOf: line)
        if flush { requestFlush() }
    }

    /// Sends a request to the client; `completion` runs exactly once: with the client's response
    /// (its error object as an `RPCError`), with `timeout` (1080) when `timeoutMilliseconds` pass
    /// first (nil: no deadline of its own), with `shuttingDown` (1070) when the connection goes
    /// (`failAllOutgoing`). A response that comes after any of
    /// these is dropped. Returns the request id (0 on a closed connection: it fails on the next
    /// turn).
    @discardableResult
    public func request(method: String, params: JSON, timeoutMilliseconds: UInt64? = nil,
                        completion: @escaping (Result<JSON, RPCError>) -> Void) -> Int64 {
        guard !isClosed else {
            let fail = { completion(.failure(RPCError(.shuttingDown, "the connection is closed"))) }
            if let scheduler { scheduler.onNextTurn(fail) } else { fail() }
            return 0
        }
        assertNotDraining()
        let rid = nextOutgoingID
        nextOutgoingID += 1
        outgoing.add(rid, timeoutMilliseconds: timeoutMilliseconds) { outcome in
            switch outcome {
            case .reply(let result):
                completion(result)
            case .timedOut:
                completion(.failure(RPCError(.timeout, "no answer to \(method) within \(timeoutMilliseconds ?? 0) ms")))
            case .cancelled(let reason):
                completion(.failure(RPCError(.shuttingDown, reason)))
            }
        }
        RPCEncoder.request(method: method, params: params, id: rid, into: &output)
        requestFlush()
        return rid
    }

    /// Fails every outgoing request with `shuttingDown` and `reason` (the client went away), in
    /// the order they were sent; their deadlines are disarmed.
    public func failAllOutgoing(reason: String) {
        outgoing.cancelAll(reason: reason)
    }

    // MARK: - Lines

    private func handleLine(_ line: UnsafeRawBufferPointer) {
        if Self.isBlank(line) { return }
        // The common single request skips building a JSON object; anything the scanner is not
        // sure of goes the general way below, with the same outcome.
        if usesFastPath,
           let envelope = RequestScanner.scan(line, maxDepth: dispatcher.limits.maxDepth) {
            dispatcher.linesReceived += 1
            emit(dispatcher.handle(envelope, connection: self))
            return
        }
        let value: JSON
        do {
            value = try JSONParser.parse(line, maxDepth: dispatcher.limits.maxDepth)
        } catch {
            emit(.reply(id: .null, .failure(.parseError(error.message))))
            return
        }
        dispatcher.linesReceived += 1
        // A number id the writer would not give back as sent is read again from the line
        // (rare: the usual integer id never pays for it).
        switch value {
        case .array(let items):
            handleBatch(items, idTexts: items.contains(where: RequestID.needsText) ? RequestID.texts(in: line) : [])
        default:
            if isResponse(value) { return }
            let idText = RequestID.needsText(value) ? RequestID.texts(in: line).first ?? nil : nil
            emit(dispatcher.handle(value, idText: idText, connection: self))
        }
    }

    /// `idTexts`: the id text of each item (`RequestID.texts`), or empty when none needs it.
    private func handleBatch(_ items: [JSON], idTexts: [[UInt8]?]) {
        if items.isEmpty {
            emit(.reply(id: .null, .failure(.invalidRequest("empty batch"))))
            return
        }
        let limit = dispatcher.limits.maxBatch
        if items.count > limit {
            emit(.reply(id: .null, .failure(.limitExceeded("batch of \(items.count) requests", limit: limit, actual: items.count))))
            return
        }
        var results: [RPCDispatcher.ItemResult] = []
        results.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            if isResponse(item) { continue }
            let r = dispatcher.handle(item, idText: i < idTexts.count ? idTexts[i] : nil, connection: self)
            if case .none = r { continue }
            results.append(r)
        }
        if results.isEmpty { return }  // all notifications: nothing at all is sent
        let slot = ReplySlot(parts: results.count)
        for (i, r) in results.enumerated() {
            switch r {
            case .none: break
            case .reply(let id, let result):
                heldReplyBytes += slot.fill(i, replyBytes(id: id, result))
            case .pending(let id, let promise):
                // Weak: the client may be gone by the time the answer comes; it is then dropped.
                promise.onComplete { [weak self, slot] result in
                    guard let self, !self.isClosed else { return }
                    self.heldReplyBytes += slot.fill(i, self.replyBytes(id: id, result))
                    if self.repliesInRequestOrder { self.drain() } else { self.sendIfComplete(slot) }
                }
            }
        }
        enqueue(slot)
    }

    /// A response to a request the host sent; routes it and reports true.
    private func isResponse(_ value: JSON) -> Bool {
        guard case .object(let o) = value, o["method"] == nil,
              o["result"] != nil || o["error"] != nil else { return false }
        guard case .int(let rid)? = o["id"], outgoing.contains(rid) else {
            return true  // unknown or late response (timed out, failed): nothing to do
        }
        if let e = o["error"], case .object(let eo) = e {
            let code = eo["code"]?.intValue ?? RPCErrorCode.internalError.rawValue
            let message = eo["message"]?.stringValue ?? "error"
            outgoing.complete(rid, with: .failure(RPCError(code: code, message: message, data: eo["data"])))
        } else {
            outgoing.complete(rid, with: .success(o["result"] ?? .null))
        }
        return true
    }

    // MARK: - Ordered replies

    private func emit(_ r: RPCDispatcher.ItemResult) {
        assertNotDraining()
        switch r {
        case .none:
            return
        case .reply(let id, let result):
            if slotHead == slots.count || !repliesInRequestOrder {
                let before = output.count
                RPCEncoder.writeReply(requestID: id, result, into: &output)  // fast path: nothing ahead
                if queuedBytes > dispatcher.limits.maxOutputBytes {
                    let size = output.count - before
                    output.removeSubrange(before...)
                    let limit = dispatcher.limits.maxOutputBytes
                    RPCEncoder.writeReply(requestID: id, .failure(.limitExceeded(
                        "a reply of \(size) bytes would pass the output limit", limit: limit, actual: queuedBytes + size)),
                        into: &output)
                }
                requestFlush()
            } else {
                let slot = ReplySlot(parts: 0)
                heldReplyBytes += slot.setSingle(replyBytes(id: id, result))
                enqueue(slot)
            }
        case .pending(let id, let promise):
            let slot = ReplySlot(parts: 0)
            enqueue(slot)
            promise.onComplete { [weak self, slot] result in
                guard let self, !self.isClosed else { return }
                self.heldReplyBytes += slot.setSingle(self.replyBytes(id: id, result))
                if self.repliesInRequestOrder { self.drain() } else { self.sendIfComplete(slot) }
            }
        }
    }

    private func enqueue(_ slot: ReplySlot) {
        guard repliesInRequestOrder else { return sendIfComplete(slot) }
        slots.append(slot)
        drain()
    }

    /// Without request order: `slot` goes out once complete, whatever is still pending before it.
    private func sendIfComplete(_ slot: ReplySlot) {
        guard !slot.isSent, let bytes = slot.bytes() else { return }
        slot.isSent = true
        output.append(contentsOf: bytes)
        heldReplyBytes -= slot.byteCount
        requestFlush()
    }

    private func drain() {
        var wrote = false
        while slotHead < slots.count, let bytes = slots[slotHead].bytes() {
            output.append(contentsOf: bytes)
            heldReplyBytes -= slots[slotHead].byteCount
            slotHead += 1
            wrote = true
        }
        if slotHead == slots.count {
            slots.removeAll(keepingCapacity: true)
            slotHead = 0
        }
        if wrote { requestFlush() }
    }

    /// Marks the connection gone: late answers to its deferred requests are dropped, nothing more
    /// is produced. Idempotent.
    public func close() {
        assertNotDraining()
        guard !isClosed else { return }
        isClosed = true
        onOutput = nil
        sharedLine = []
        slots.removeAll()
        slotHead = 0
        heldReplyBytes = 0
    }

    private func requestFlush() {
        if !inReceive { onOutput?() }
    }

    private static func isBlank(_ line: UnsafeRawBufferPointer) -> Bool {
        for b in line where b != 0x20 && b != 0x09 && b != 0x0D { return false }
        return true
    }
}
