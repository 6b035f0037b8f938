import CUV

/// The base of every handle wrapper: one Swift object per libuv handle.
///
/// The object retains itself while the handle is open (libuv's `data` points at it), so callers
/// need not keep a reference to, say, a timer they armed. The memory of the C handle is released
/// only in libuv's close callback, after which the self-retain is dropped. `close()` is idempotent.
public class LoopHandle {
    let handle: UnsafeMutablePointer<uv_handle_t>
    private let deallocate: (UnsafeMutablePointer<uv_handle_t>) -> Void
    public let loop: EventLoop
    // `@exclusivity(unchecked)` below: touched per subscriber of every event; why it is safe in
    // `RPCConnection`'s comment.
    /// True once `close()` was called (the close callback may still be pending).
    @exclusivity(unchecked) public private(set) var isClosing = false
    private var onClose: (() -> Void)?

    init<H>(loop: EventLoop, pointer: UnsafeMutablePointer<H>) {
        self.loop = loop
        self.handle = UnsafeMutablePointer<uv_handle_t>(OpaquePointer(pointer))
        self.deallocate = { h in UnsafeMutablePointer<H>(OpaquePointer(h)).deallocate() }
    }

    /// Called by subclasses once `uv_*_init` succeeded: from now on only the close callback frees.
    func didInit() {
        handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
    }

    /// Called by subclasses when `uv_*_init` failed: nothing of libuv's refers to the memory.
    func failedInit() {
        deallocate(handle)
        isClosing = true
        isClosed = true
    }

    /// True once libuv's close callback ran: the C handle is freed and must not be touched.
    private(set) var isClosed = false

    /// Closes the handle; `then` runs from the close callback, when libuv is done with it. Closing
    /// again is harmless: `then` runs once the close completed (at once if it already has).
    public func close(then: (() -> Void)? = nil) {
        guard !isClosing else {
            if let then {
                if isClosed {
                    then()
                } else if let previous = onClose {
                    onClose = { previous(); then() }
                } else {
                    onClose = then
                }
            }
            return
        }
        isClosing = true
        onClose = then
        willClose()
        uv_close(handle) { h in
            guard let h else { return }
            let me = Unmanaged<LoopHandle>.fromOpaque(h.pointee.data!).takeRetainedValue()
            h.pointee.data = nil
            me.isClosed = true
            me.didClose()
            me.deallocate(h)
            let then = me.onClose
            me.onClose = nil
            then?()
        }
    }

    /// Throws instead of letting an operation reach a closing or freed C handle.
    func checkOpen(_ operation: @autoclosure () -> String) throws(LoopError) {
        if isClosing {
            throw LoopError(code: Int32(UV_EBADF.rawValue), operation: "\(operation()) on a closed handle")
        }
    }

    /// Called once, just before `uv_close`.
    func willClose() {}

    /// Subclasses drop their callbacks here so closures capturing their owners are released.
    func didClose() {}

    /// Whether the handle keeps the loop alive.
    public var isReferenced: Bool {
        get { !isClosing && uv_has_ref(handle) != 0 }
        set {
            guard !isClosing else { return }
            if newValue { uv_ref(handle) } else { uv_unref(handle) }
        }
    }

    /// Whether the handle is active (armed, reading, listening…).
    public var isActive: Bool { !isClosing && uv_is_active(handle) != 0 }

    /// The wrapper of a C handle, from inside a libuv callback.
    @inline(__always)
    static func object<H, T: LoopHandle>(_ pointer: UnsafeMutablePointer<H>?, as: T.Type) -> T {
        let h = UnsafeMutablePointer<uv_handle_t>(OpaquePointer(pointer!))
        // Each wrapper sets `data` to itself, so the cast cannot fail; skip the dynamic check.
        return unsafeDowncast(Unmanaged<LoopHandle>.fromOpaque(h.pointee.data!).takeUnretainedValue(), to: T.self)
    }
}
