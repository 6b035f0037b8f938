import PlayerHostLoop

/// How a plugin's connection carries bytes to and from the host: the control socket for a
/// plugin process (`StreamTransport`), the core's memory for a built-in one (`PluginLink` in
/// Host). Either way the bytes are the protocol's lines through an `RPCConnection` at each end,
/// so a built-in plugin and a plugin process cannot behave differently.
package protocol PluginTransport: AnyObject {
    /// Starts delivering the host's bytes to `onBytes` (valid only during the call). `onEnd` runs
    /// once, on a later turn, when the host's end closes or a write fails; nothing comes after.
    func start(onBytes: @escaping (UnsafeRawBufferPointer) -> Void, onEnd: @escaping () -> Void) throws(LoopError)
    /// Sends bytes to the host (in order; the host reads them on a later turn).
    func write(_ bytes: UnsafeRawBufferPointer)
    /// Closes the plugin's end; the host sees it go on a later turn. Idempotent.
    func close()
}

/// A plugin's connection over a stream (the control socket).
package final class StreamTransport: PluginTransport {
    let stream: PipeStream

    package init(_ stream: PipeStream) { self.stream = stream }

    package func start(onBytes: @escaping (UnsafeRawBufferPointer) -> Void, onEnd: @escaping () -> Void) throws(LoopError) {
        // A write failure arrives on a later loop turn: no caller finds its context closed
        // inside its own call.
        stream.onWriteFailure { _ in onEnd() }
        try stream.startReading(onRead: onBytes, onEnd: { _ in onEnd() })
    }

    package func write(_ bytes: UnsafeRawBufferPointer) { stream.write(bytes) }

    package func close() { stream.close() }
}
