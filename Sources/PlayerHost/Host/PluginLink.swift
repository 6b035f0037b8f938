import Glibc
import PlayerHostBase
import PlayerHostLoop
import PlayerHostPlugin
import PlayerHostRPC

/// A built-in plugin's connection to the core, in memory: the core's end is an `RPCConnection`
/// served by the core's dispatcher as a socket client's is, the plugin's end is this transport
/// under its `PluginContext`. The bytes are the protocol's lines either way (what a plugin
/// process sends over the socket), so a built-in plugin behaves as it would out of process.
///
/// Bytes cross on the scheduler's next turn, never inside the writer's stack, as a socket's do:
/// neither end is re-entered from its own call, and an end's closing reaches the other later.
/// It needs no file descriptor and no libuv, so the core attaches built-ins on an
/// `EmbeddedHost`'s manual clock as on the daemon's loop.
final class PluginLink: PluginTransport {
    /// The core's end.
    let rpc: RPCConnection
    private let scheduler: Scheduler
    /// Tells the core the connection ended (its subscriptions, sessions and methods go).
    private let ended: (PluginLink) -> Void
    private var onBytes: ((UnsafeRawBufferPointer) -> Void)?
    private var onEnd: (() -> Void)?
    /// What the plugin wrote that the core has not read yet (from a line boundary).
    private var toCore: [UInt8] = []
    private var toCoreQueued = false
    private var toPluginQueued = false
    /// The plugin's end is open: it may write, and the core's output reaches it.
    private var pluginEndOpen = true
    /// The core's end is gone: nothing more is read or delivered.
    private(set) var isEnded = false

    init(id: Int, dispatcher: RPCDispatcher, scheduler: Scheduler, ended: @escaping (PluginLink) -> Void) {
        rpc = RPCConnection(id: id, dispatcher: dispatcher)
        // Served like a client, but not one in the counts (`host.stats`, requests served).
        rpc.isInternal = true
        rpc.scheduler = scheduler
        self.scheduler = scheduler
        self.ended = ended
        rpc.onOutput = { [weak self] in self?.queueToPlugin() }
    }

    /// Either end closed.
    var isClosed: Bool { !pluginEndOpen || isEnded }

    // MARK: - The plugin's end

    func start(onBytes: @escaping (UnsafeRawBufferPointer) -> Void, onEnd: @escaping () -> Void) throws(LoopError) {
        guard !isClosed else { throw LoopError(code: -EPIPE, operation: "the host closed the plugin's connection") }
        self.onBytes = onBytes
        self.onEnd = onEnd
        if rpc.hasOutput { queueToPlugin() }
    }

    func write(_ bytes: UnsafeRawBufferPointer) {
        guard pluginEndOpen, !isEnded, bytes.count > 0 else { return }
        toCore.append(contentsOf: bytes)
        queueToCore()
    }

    /// The plugin closed its end: what it wrote before is still read (as a socket's bytes are
    /// read before its end), then the core sees it go, on its next turn.
    func close() {
        guard pluginEndOpen else { return }
        pluginEndOpen = false
        onBytes = nil
        onEnd = nil
        scheduler.onNextTurn { [self] in
            // Its last lines are served; their replies have no one left to go to.
            while !isEnded, !toCore.isEmpty {
                rpc.discardOutput()
                guard readTurn() else { break }
            }
            endCore()
        }
    }

    // MARK: - The core's end

    /// The core cuts the connection (as the server cuts a client off, its unread input and
    /// unsent output dropped): the plugin's end learns of it on the next turn, then the core
    /// forgets the connection.
    func cut() {
        guard pluginEndOpen, !isEnded else { return }
        pluginEndOpen = false
        let end = onEnd
        onBytes = nil
        onEnd = nil
        toCore = []
        scheduler.onNextTurn { [self] in
            end?()
            endCore()
        }
    }

    private func queueToCore() {
        guard !toCoreQueued, !isEnded else { return }
        toCoreQueued = true
        scheduler.onNextTurn { [weak self] in
            guard let self else { return }
            self.toCoreQueued = false
            if self.readTurn(), !self.toCore.isEmpty { self.queueToCore() }
        }
    }

    /// Serves one turn's budget of what the plugin wrote, as the server serves a socket client:
    /// at most `requests_per_turn` requests or `turn_budget_us`, so a built-in that passes on a
    /// flood (a paired page's, a bus peer's) cannot hold the other clients for a whole turn; and
    /// nothing while the core's output for it is past the high-water mark (it is delivered
    /// first). Returns whether the rest may be read on the next turn.
    @discardableResult
    private func readTurn() -> Bool {
        guard !isEnded, !toCore.isEmpty else { return false }
        let limits = rpc.dispatcher.limits
        guard rpc.queuedBytes < limits.effectiveHighWater else { return false }
        let deadline = scheduler.nowNanoseconds &+ limits.turnBudgetMicroseconds &* 1000
        let (consumed, disposition) = toCore.withUnsafeBytes { bytes in
            rpc.receive(bytes, maxLines: max(1, limits.requestsPerTurn)) { scheduler.nowNanoseconds >= deadline }
        }
        toCore.removeFirst(min(consumed, toCore.count))
        // Replies made while reading go out together (the connection does not flush inside
        // `receive`).
        if rpc.hasOutput { queueToPlugin() }
        if case .closeAfterFlush = disposition {
            deliverToPlugin()
            cut()
            return false
        }
        return true
    }

    private func queueToPlugin() {
        guard pluginEndOpen, !isEnded, !toPluginQueued else { return }
        toPluginQueued = true
        scheduler.onNextTurn { [weak self] in self?.deliverToPlugin() }
    }

    /// Hands the core's output to the plugin. Taken out first: the plugin's handlers run in
    /// `onBytes`, and must never run inside the core connection's `drainOutput`.
    private func deliverToPlugin() {
        toPluginQueued = false
        guard pluginEndOpen, !isEnded, let onBytes else { return }
        var out: [UInt8] = []
        rpc.drainOutput { out.append(contentsOf: $0) }
        if !out.isEmpty { out.withUnsafeBytes { onBytes($0) } }
        // Reading waited for the output to go below the high-water mark.
        if !toCore.isEmpty { queueToCore() }
    }

    private func endCore() {
        guard !isEnded else { return }
        isEnded = true
        toCore = []
        rpc.close()
        rpc.failAllOutgoing(reason: "the plugin's connection closed")
        ended(self)
    }
}
