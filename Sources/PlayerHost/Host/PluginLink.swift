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
    /// What the plugin wrote that the core has not read yet.
    private var toCore: [UInt8] = []
    private var toCoreQueued = false
    private var toPluginQueued = false
    /// Either end closed: nothing more crosses.
    private(set) var isClosed = false

    init(id: Int, dispatcher: RPCDispatcher, scheduler: Scheduler, ended: @escaping (PluginLink) -> Void) {
        rpc = RPCConnection(id: id, dispatcher: dispatcher)
        // Served like a client, but not one in the counts (`host.stats`, requests served).
        rpc.isInternal = true
        rpc.scheduler = scheduler
        self.scheduler = scheduler
        self.ended = ended
        rpc.onOutput = { [weak self] in self?.queueToPlugin() }
    }

    // MARK: - The plugin's end

    func start(onBytes: @escaping (UnsafeRawBufferPointer) -> Void, onEnd: @escaping () -> Void) throws(LoopError) {
        guard !isClosed else { throw LoopError(code: -EPIPE, operation: "the host closed the plugin's connection") }
        self.onBytes = onBytes
        self.onEnd = onEnd
        if rpc.hasOutput { queueToPlugin() }
    }

    func write(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosed, bytes.count > 0 else { return }
        toCore.append(contentsOf: bytes)
        guard !toCoreQueued else { return }
        toCoreQueued = true
        scheduler.onNextTurn { [weak self] in self?.deliverToCore() }
    }

    /// The plugin closed its end: the core sees it on its next turn, as it sees a socket's end.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        onBytes = nil
        onEnd = nil
        toCore = []
        scheduler.onNextTurn { [self] in coreEnded() }
    }

    // MARK: - The core's end

    /// The core cuts the connection (as the server cuts a client off): the plugin's end learns
    /// of it on the next turn, then the core forgets the connection.
    func cut() {
        guard !isClosed else { return }
        isClosed = true
        let end = onEnd
        onBytes = nil
        onEnd = nil
        toCore = []
        scheduler.onNextTurn { [self] in
            end?()
            coreEnded()
        }
    }

    private func deliverToCore() {
        toCoreQueued = false
        guard !isClosed, !toCore.isEmpty else { return }
        let bytes = toCore
        toCore.removeAll(keepingCapacity: true)
        let disposition = bytes.withUnsafeBytes { rpc.receive($0) }
        // Replies made while reading go out together (the connection does not flush inside
        // `receive`).
        if rpc.hasOutput { queueToPlugin() }
        if case .closeAfterFlush = disposition {
            deliverToPlugin()
            cut()
        }
    }

    private func queueToPlugin() {
        guard !isClosed, !toPluginQueued else { return }
        toPluginQueued = true
        scheduler.onNextTurn { [weak self] in self?.deliverToPlugin() }
    }

    private func deliverToPlugin() {
        toPluginQueued = false
        guard !isClosed, let onBytes else { return }
        rpc.drainOutput { onBytes($0) }
    }

    private func coreEnded() {
        rpc.close()
        rpc.failAllOutgoing(reason: "the plugin's connection closed")
        ended(self)
    }
}
