import CUV
import CWebSockets
import Glibc
import PlayerHostBase

/// An HTTP + WebSocket server (libwebsockets) on this loop: lws runs on the daemon's own libuv
/// loop as a *foreign* loop, so there is no second loop and no thread per client. One object per
/// lws context: it retains itself while the context lives, and the C memory is freed only once
/// lws has closed every handle it put on the loop (`close`).
///
/// Connections are named by `WebConnection` (the lws connection's address, valid from `created`
/// until `destroyed`). Every callback runs on the loop's thread, from inside lws.
public final class WebServer {
    /// One lws connection (HTTP or WebSocket), valid between `onCreated` and `onDestroyed`.
    public struct WebConnection: Hashable, Sendable {
        let bits: UInt
        var wsi: OpaquePointer? { OpaquePointer(bitPattern: bits) }
    }

    /// One text message, encoded once, in a buffer with lws' header room before it: the same
    /// bytes go to every page it is sent to (no copy per socket).
    public final class Message {
        private let buffer: UnsafeMutableRawPointer
        /// The message's length in bytes.
        public let count: Int
        private static let room = Int(ph_ws_pre())

        public init(_ text: String) {
            var text = text
            count = text.utf8.count
            buffer = .allocate(byteCount: Self.room + max(count, 1), alignment: 16)
            text.withUTF8 { u in
                if let base = u.baseAddress { (buffer + Self.room).copyMemory(from: base, byteCount: u.count) }
            }
        }

        deinit { buffer.deallocate() }

        /// The message's bytes, with the header room writable before them (for lws only).
        var payload: UnsafeMutablePointer<UInt8> { (buffer + Self.room).assumingMemoryBound(to: UInt8.self) }

        /// The message as text (tests).
        public var text: String {
            String(decoding: UnsafeRawBufferPointer(start: buffer + Self.room, count: count), as: UTF8.self)
        }
    }

    /// At most this many connections are made writable in one loop turn: a change sent to 200
    /// pages goes out over several turns, and a socket client that is read in between waits for
    /// one batch of writes, not for all of them (issue 25: `host.ping` p99 with 200 remotes).
    public static let writablePerTurn = 32
    private var waiting = WritableQueue<WebConnection>(perTurn: WebServer.writablePerTurn)
    private var turnQueued = false

    /// Where and how to listen.
    public struct Options: Sendable {
        public var address: String
        public var port: Int
        public var headerTimeoutSeconds: Int
        public var idleTimeoutSeconds: Int
        public var certificatePath: String?
        public var keyPath: String?

        public init(address: String, port: Int, headerTimeoutSeconds: Int = 10, idleTimeoutSeconds: Int = 20,
                    certificatePath: String? = nil, keyPath: String? = nil) {
            self.address = address
            self.port = port
            self.headerTimeoutSeconds = headerTimeoutSeconds
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.certificatePath = certificatePath
            self.keyPath = keyPath
        }
    }

    /// The request headers `header(_:of:)` reads.
    public enum Header: Int32, Sendable { case cookie = 0, origin, host, userAgent, ifNoneMatch, getPath }

    public let loop: EventLoop
    private var server: OpaquePointer?
    private var callbacks = ph_ws_callbacks()
    public private(set) var isClosing = false
    /// The port it listens on (the one asked for, or the one the kernel chose for port 0).
    public private(set) var port = 0

    /// A TCP connection arrives from `peer` (its numeric address): false refuses it (the caps).
    public var onAccept: (_ peer: String) -> Bool = { _ in true }
    public var onCreated: (WebConnection) -> Void = { _ in }
    public var onDestroyed: (WebConnection) -> Void = { _ in }
    /// An HTTP request for a path: answer with `respond`, now or later; false closes.
    public var onHTTP: (WebConnection, String) -> Bool = { _, _ in false }
    /// A WebSocket upgrade: false refuses it.
    public var onUpgrade: (WebConnection) -> Bool = { _ in false }
    public var onOpen: (WebConnection) -> Void = { _ in }
    /// A piece of a message (`first`, `final`, `binary`): false closes the socket.
    public var onReceive: (WebConnection, UnsafeRawBufferPointer, Bool, Bool, Bool) -> Bool = { _, _, _, _, _ in false }
    /// The socket can take one write (`send`): false closes it.
    public var onWritable: (WebConnection) -> Bool = { _ in true }
    public var onClosed: (WebConnection) -> Void = { _ in }

    public init(loop: EventLoop) {
        self.loop = loop
    }

    /// Servers whose lws context was made but never bound (the port was taken between the
    /// check below and lws' bind): destroying such a context crashes lws, so it is kept for the
    /// process's life (it holds no socket).
    nonisolated(unsafe) private static var unbound: [WebServer] = []

    /// Listens; throws with why it cannot (address in use, lws' libuv library missing).
    public func start(_ options: Options) throws(LoopError) {
        guard server == nil, !isClosing else { return }
        // lws makes its context even when the bind fails, and destroying such a context crashes
        // it: a port someone else holds is found out before lws is asked.
        if let e = Self.bindError(address: options.address, port: options.port) {
            throw LoopError(code: -e, operation: "bind")
        }
        let me = Unmanaged.passRetained(self)
        callbacks.user = me.toOpaque()
        callbacks.accept = { user, peer in
            WebServer.me(user).onAccept(peer.map { String(cString: $0) } ?? "?") ? 0 : 1
        }
        callbacks.created = { user, wsi in WebServer.me(user).onCreated(WebConnection(wsi)) }
        callbacks.destroyed = { user, wsi in
            let me = WebServer.me(user), c = WebConnection(wsi)
            me.waiting.forget(c)  // never asks lws about a freed connection
            me.onDestroyed(c)
        }
        callbacks.http = { user, wsi, path in
            WebServer.me(user).onHTTP(WebConnection(wsi), path.map { String(cString: $0) } ?? "/") ? 0 : -1
        }
        callbacks.ws_filter = { user, wsi in WebServer.me(user).onUpgrade(WebConnection(wsi)) ? 0 : 1 }
        callbacks.ws_open = { user, wsi in WebServer.me(user).onOpen(WebConnection(wsi)) }
        callbacks.ws_receive = { user, wsi, data, length, first, final, binary in
            let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : length)
            return WebServer.me(user).onReceive(WebConnection(wsi), bytes, first != 0, final != 0, binary != 0) ? 0 : -1
        }
        callbacks.ws_writable = { user, wsi in WebServer.me(user).onWritable(WebConnection(wsi)) ? 0 : -1 }
        callbacks.ws_closed = { user, wsi in WebServer.me(user).onClosed(WebConnection(wsi)) }
        var error = [CChar](repeating: 0, count: 256)
        let made: OpaquePointer? = options.address.withCString { address in
            withOptionalCString(options.certificatePath) { cert in
                withOptionalCString(options.keyPath) { key in
                    var o = ph_ws_options(interface_address: address, port: Int32(clamping: options.port),
                                          header_timeout_seconds: Int32(clamping: options.headerTimeoutSeconds),
                                          idle_timeout_seconds: Int32(clamping: options.idleTimeoutSeconds),
                                          cert_path: cert, key_path: key)
                    return ph_ws_create(UnsafeMutableRawPointer(loop.raw), &o, &callbacks, &error, error.count)
                }
            }
        }
        guard let made else {
            me.release()
            throw LoopError(code: Int32(UV_EINVAL.rawValue), operation: String(cBuffer: error))
        }
        // Taken between the check and lws' bind: lws has no port then. The context is kept,
        // never destroyed (see `unbound`), and this server is not started.
        guard ph_ws_port(made) > 0 else {
            Self.unbound.append(self)
            throw LoopError(code: Int32(UV_EADDRINUSE.rawValue), operation: "bind")
        }
        server = made
        port = Int(ph_ws_port(made))
    }

    /// The errno binding a TCP socket to `address:port` gives now (nil: it binds), with
    /// `SO_REUSEADDR` as lws sets it. Port 0 (the kernel's pick) always binds. Non-blocking.
    public static func bindError(address: String, port: Int) -> Int32? {
        guard port != 0 else { return nil }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { Glibc.close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
        guard inet_pton(AF_INET, address, &a.sin_addr) == 1 else { return EINVAL }
        let bound = withUnsafePointer(to: &a) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return bound == 0 ? nil : errno
    }

    private static func me(_ user: UnsafeMutableRawPointer?) -> WebServer {
        // `user` is always the retained self set in `start` (lws passes it back untouched).
        Unmanaged<WebServer>.fromOpaque(user!).takeUnretainedValue()
    }

    /// Stops listening and closes every connection; lws' handles close on the next turns and
    /// then the memory is freed. `then` runs once it is all gone. Idempotent.
    public func close(then: (() -> Void)? = nil) {
        guard let server, !isClosing else { return }
        isClosing = true
        closeDone = then
        ph_ws_destroy(server, { user in
            // lws' last callback (from the second destroy): the context frees itself in the same
            // call chain, so on the next turn its memory (and ours) can go.
            let me = WebServer.me(user)
            me.loop.onNextTurn { me.finishClose() }
        }, callbacks.user)
        // lws closes its handles over the next turns; once none is left, the second destroy.
        // A short poll: a timer keeps the loop alive until lws' memory is freed.
        guard let poll = try? Timer(loop: loop) else { return }
        closePoll = poll
        poll.start(after: 1, repeat: 5) { [weak self] in
            guard let self, let server = self.server else { return poll.close() }
            guard ph_ws_closing_handles(server, UnsafeMutableRawPointer(self.loop.raw)) == 0 else { return }
            poll.close()
            self.closePoll = nil
            ph_ws_finish_destroy(server)
        }
    }

    private var closeDone: (() -> Void)?
    private var closePoll: Timer?

    private func finishClose() {
        guard let server else { return }
        if ph_ws_is_gone(server) != 0 { ph_ws_free(server) }
        self.server = nil
        let done = closeDone
        closeDone = nil
        Unmanaged.passUnretained(self).release()
        done?()
    }

    // MARK: Per connection

    /// A request header (nil when absent or longer than `limit` bytes).
    public func header(_ h: Header, of c: WebConnection, limit: Int = 4096) -> String? {
        guard let wsi = c.wsi else { return nil }
        var buffer = [CChar](repeating: 0, count: limit + 1)
        let n = ph_ws_header(wsi, h.rawValue, &buffer, Int32(buffer.count))
        guard n >= 0 else { return nil }
        return String(cBuffer: buffer)
    }

    /// A query argument's value (`size` in `?size=96`).
    public func query(_ name: String, of c: WebConnection, limit: Int = 256) -> String? {
        guard let wsi = c.wsi else { return nil }
        var buffer = [CChar](repeating: 0, count: limit + 1)
        guard ph_ws_query(wsi, name, &buffer, Int32(buffer.count)) >= 0 else { return nil }
        return String(cBuffer: buffer)
    }

    /// The peer's address as text.
    public func peer(of c: WebConnection) -> String {
        guard let wsi = c.wsi else { return "?" }
        var buffer = [CChar](repeating: 0, count: 128)
        guard ph_ws_peer(wsi, &buffer, Int32(buffer.count)) >= 0 else { return "?" }
        return String(cBuffer: buffer)
    }

    /// Queues an HTTP response; it goes out when the socket can take it. False: it could not be
    /// queued (then close the connection).
    @discardableResult
    public func respond(_ c: WebConnection, status: Int, contentType: String, headers: [(String, String)] = [],
                        body: [UInt8]) -> Bool {
        guard let wsi = c.wsi, !isClosing else { return false }
        let names = headers.map { strdup($0.0.lowercased() + ":") }
        let values = headers.map { strdup($0.1) }
        defer {
            names.forEach { free($0) }
            values.forEach { free($0) }
        }
        let cNames = names.map { UnsafePointer<CChar>($0) }
        let cValues = values.map { UnsafePointer<CChar>($0) }
        return body.withUnsafeBytes { b in
            ph_ws_http_respond(wsi, Int32(status), contentType, cNames, cValues, Int32(headers.count),
                               b.baseAddress, b.count) == 0
        }
    }

    /// Sends one text message; call it from `onWritable` (one per callback). False: it failed.
    public func send(_ c: WebConnection, _ message: Message) -> Bool {
        guard let wsi = c.wsi, !isClosing else { return false }
        return ph_ws_send_shared(wsi, message.payload, message.count) == 0
    }

    /// Asks for an `onWritable` call, in order, at most `writablePerTurn` a turn. They are asked of
    /// lws on the loop's next turn, before it polls: libuv applies a watcher change only when it
    /// polls, so this costs no latency, and each poll finds at most one batch writable.
    public func requestWritable(_ c: WebConnection) {
        guard c.wsi != nil, !isClosing else { return }
        waiting.enqueue(c)
        queueTurn()
    }

    /// The next turn asks for a batch (an idle handle, only while something waits: an idle server
    /// arms nothing).
    private func queueTurn() {
        guard !turnQueued else { return }
        turnQueued = true
        loop.onNextTurn { [weak self] in self?.nextBatch() }
    }

    private func nextBatch() {
        turnQueued = false
        guard !isClosing else { return waiting.removeAll() }
        for c in waiting.nextBatch() {
            if let wsi = c.wsi { ph_ws_request_writable(wsi) }
        }
        if !waiting.isEmpty { queueTurn() }
    }

    /// Arms (seconds > 0) or clears (0) a deadline past which lws closes the connection: a reader
    /// that does not take what it was sent in time is cut off.
    public func setDeadline(_ c: WebConnection, seconds: Int) {
        guard let wsi = c.wsi, !isClosing else { return }
        ph_ws_set_deadline(wsi, Int32(clamping: seconds))
    }

    /// Makes lws arm the deadlines set since it last ran (call once after setting them from
    /// outside its callbacks: lws re-arms its timer only when its own service runs).
    public func wake() {
        guard let server, !isClosing else { return }
        ph_ws_wake(server)
    }

    /// Closes a connection on the next turn (revocation).
    public func kill(_ c: WebConnection) {
        guard let wsi = c.wsi, !isClosing else { return }
        ph_ws_kill(wsi)
    }

    /// `count` random bytes from the kernel, or nil when it gave fewer.
    public static func random(_ count: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBytes { ph_random($0.baseAddress, $0.count) } == 0
        return ok ? out : nil
    }

    /// Makes a self-signed certificate for `address` and its key (0600 both); nil, or why not.
    /// Blocking (key generation, files): call it off the loop.
    public static func makeSelfSigned(certificate: String, key: String, address: String) -> String? {
        var error = [CChar](repeating: 0, count: 256)
        return ph_tls_make_self_signed(certificate, key, address, &error, error.count) == 0 ? nil : String(cBuffer: error)
    }

    /// A PEM certificate's SHA-256 fingerprint (`AB:CD:…`), what a browser shows for it.
    /// Blocking (reads the file): call it off the loop.
    public static func fingerprint(certificate: String) -> String? {
        var hex = [CChar](repeating: 0, count: 100)
        return ph_tls_fingerprint(certificate, &hex, hex.count) == 0 ? String(cBuffer: hex) : nil
    }

    /// SHA-256 (tokens are kept hashed); nil when libcrypto could not be loaded (it is loaded on
    /// first use, with libwebsockets: the daemon does not link either).
    public static func sha256(_ bytes: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 32)
        let status = bytes.withUnsafeBytes { b in ph_sha256(b.baseAddress, b.count, &out) }
        return status == 0 ? out : nil
    }
}

extension WebServer.WebConnection {
    init(_ wsi: OpaquePointer?) { bits = UInt(bitPattern: wsi.map { Int(bitPattern: UnsafeRawPointer($0)) } ?? 0) }
}

private func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let s else { return body(nil) }
    return s.withCString { body($0) }
}
