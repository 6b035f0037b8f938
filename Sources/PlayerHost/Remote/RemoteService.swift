import Glibc
import Logging
import PlayerHostBase
import PlayerHostClient
import PlayerHostConfig
import PlayerHostLoop
import PlayerHostPlugin
import PlayerHostRPC

/// The web remote (issue 25): an HTTP + WebSocket server on the daemon's loop, linked to the host
/// as a built-in plugin — one in-process JSON-RPC connection, like any client. It subscribes to
/// the events that change what the page shows, refetches `nowPlaying.get` and `session.list` when
/// one arrives, and pushes the page a new `state` only when it differs; the page's buttons become
/// `command.send` (the session's command center, like a media key) and
/// `session.becomeActiveIfPossible`. It offers `remote.pair`, `remote.devices`, `remote.revoke`
/// and `remote.status` to `npctl remote`, and `remote.enable` / `remote.disable`, which write
/// `remote.toml` beside the config and reload: it is attached whether or not the remote is on.
public final class RemoteService: SessionPlugin {
    public let name = "remote"
    public var actsForHost: Bool { true }
    private(set) var config: RemoteConfig
    let stateDirectory: String
    let logger: Logger
    var context: PluginContext?
    var server: WebServer?
    var codes: PairingCodes
    var devices = DeviceStore()
    var page: [String: [UInt8]] = [:]
    var connections: [WebServer.WebConnection: RemoteConnection] = [:]
    var state = RemoteState(nowPlaying: nil, sessions: nil)
    var refreshing = false
    /// A devices write is on the pool / another is due after it.
    var savingDevices = false
    var saveDevicesAgain = false
    var refreshAgain = false
    /// The last thing that went wrong (`remote.status`, `npctl doctor`).
    var lastError: String?
    /// Counters for `remote.status` and the benchmark.
    var stateMessagesSent = 0
    /// Connections closed at accept by `max_connections` or `max_connections_per_address`.
    var refusedConnections = 0
    var maxConnections: Int { config.maxConnections ?? 64 }
    var maxConnectionsPerAddress: Int { config.maxConnectionsPerAddress ?? 16 }
    var maxMessageBytes: Int { (config.maxMessageKB ?? 16) << 10 }
    var slowReaderSeconds: Int { config.slowReaderSeconds ?? 10 }
    /// Counts loads: a reload's load supersedes one still on the thread pool.
    private var generation = 0
    /// The config file `remote.toml` goes beside (`RemoteService+Enable`).
    let configPath: String
    /// A load or a stop is under way: `whenSettled` waits for it.
    var isSettling = false
    var onSettled: [() -> Void] = []
    /// `remote.enable` / `remote.disable` calls, one write and reload at a time.
    var switches: [(overlay: RemoteOverlay, reply: (Result<JSON, RPCError>) -> Void)] = []
    var isSwitching = false
    /// Subscribed to the host's events: from the first load on (off, the host sends nothing).
    var isSubscribed = false
    /// Replies a page may have waiting before it counts as a slow reader.
    static let maxQueuedReplies = 64

    public init(config: RemoteConfig, stateDirectory: String, configPath: String, logger: Logger) {
        self.config = config
        self.stateDirectory = stateDirectory
        self.configPath = configPath
        self.logger = logger
        codes = PairingCodes(validSeconds: config.pairingCodeSeconds ?? 120)
    }

    static let devicesFile = "remote-devices.json"
    var devicesPath: String { stateDirectory + "/" + Self.devicesFile }
    var isTLS: Bool { config.usesTLS }
    /// The certificate and key served (the user's, or the self-signed pair), and its fingerprint.
    var tls: (certificate: String, key: String)?
    var fingerprint: String?
    var baseURL: String {
        guard var (address, _) = config.endpoint else { return "" }
        if address == "0.0.0.0" { address = RemoteFiles.lanAddress() ?? address }
        return "\(isTLS ? "https" : "http")://\(address):\(server?.port ?? 0)"
    }

    /// Where the page's files are: `page_dir`, else installed beside the daemon
    /// (`PREFIX/share/playerhost/remote`), else this source tree's (a development build).
    public static func pageDirectory(configured: String?) -> String {
        if let configured { return configured }
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, 4095)
        let exe = String(decoding: buf[0..<max(n, 0)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let bin = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let installed = bin + "/../share/playerhost/remote"
        if access(installed + "/index.html", R_OK) == 0 { return installed }
        let source = #filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return source + "/Page"
    }

    // MARK: SessionPlugin

    public func attach(_ context: PluginContext) {
        self.context = context
        // Off, there is no page to keep up to date.
        context.onEvent = { [weak self] _ in if self?.server != nil { self?.refresh() } }
        provideMethods(context)
        if config.listen != nil { load() }
    }

    /// A reload (SIGHUP, `host.reload`) with a changed `[remote]`: the server stops (its pages
    /// reconnect) and starts again with the new table; without `listen` it stays stopped. The
    /// remote is attached even when off, so a `[remote]` added after start applies too.
    public func reload(_ hostConfig: HostConfig) {
        let new = hostConfig.remote ?? RemoteConfig()
        guard context != nil else { return }
        // Where `listen` came from alone (the same address now from remote.toml) restarts nothing.
        var same = new
        same.source = config.source
        let changed = same != config, wasOn = config.listen != nil || server != nil
        config = new
        guard changed, new.listen != nil || wasOn else { return }
        isSettling = true
        codes.validMilliseconds = UInt64(max(new.pairingCodeSeconds ?? 120, 1)) * 1000
        generation += 1
        let restart = { [weak self] in
            guard let self else { return }
            if self.config.listen != nil {
                self.load()
            } else {
                self.logger.info("remote: stopped by a reload (no [remote] listen)")
                self.settled()
            }
        }
        tls = nil
        fingerprint = nil
        guard let s = server else { return restart() }
        server = nil
        connections.removeAll()
        // The port is free again only once lws has closed its listening socket.
        s.close(then: restart)
    }

    /// Reads the page, the devices and the TLS files off the loop, then listens.
    func load() {
        guard let context else { return }
        generation += 1
        let mine = generation
        isSettling = true
        lastError = nil
        if !isSubscribed {
            isSubscribed = true
            context.subscribe(["nowPlaying", "sessions", "info", "audio"])
        }
        let dir = Self.pageDirectory(configured: config.pageDirectory)
        let devicesPath = self.devicesPath, stateDirectory = self.stateDirectory, config = self.config
        RemoteFiles.offLoop(context.loop, { () -> (Result<[String: [UInt8]], RemoteFileError>, JSON?, RemoteTLS) in
            let page = RemoteFiles.loadPage(dir)
            let devices: JSON? = switch RemoteFiles.read(devicesPath, limit: 1 << 20) {
            case .success(let b): try? JSONParser.parse(b)
            case .failure: nil
            }
            return (page, devices, RemoteTLS.prepare(config: config, stateDirectory: stateDirectory))
        }) { [weak self] loaded in
            guard let self, let context = self.context, !context.isClosed, mine == self.generation, self.server == nil else { return }
            defer { self.settled() }
            guard let (page, devices, tls) = loaded else { return self.fail("the page could not be loaded") }
            switch tls {
            case .plain: break
            case .failed(let why): return self.fail("TLS: \(why)")
            case .files(let certificate, let key, let fingerprint):
                self.tls = (certificate, key)
                self.fingerprint = fingerprint
            }
            switch page {
            case .failure(let why): return self.fail("the page: \(why)")
            case .success(let files): self.page = files
            }
            if let devices, self.devices.devices.isEmpty { self.devices = DeviceStore(json: devices) }
            guard let loop = context.loop else { return self.fail("no event loop to listen on (an embedded host)") }
            self.listen(loop: loop)
            self.refresh()
        }
    }

    public func detach() {
        for c in connections.keys { server?.kill(c) }
        server?.close()
        server = nil
        connections.removeAll()
        context = nil
    }

    func fail(_ message: String) {
        lastError = message
        logger.error("remote: \(message)")
    }

    private func listen(loop: EventLoop) {
        guard let (address, port) = config.endpoint else { return fail("remote.listen is not ADDRESS:PORT") }
        let s = WebServer(loop: loop)
        wire(s)
        do {
            try s.start(WebServer.Options(address: address, port: port, headerTimeoutSeconds: config.headerTimeoutSeconds ?? 10,
                                          certificatePath: tls?.certificate, keyPath: tls?.key))
        } catch {
            // A bind refused: the system's reason ("address already in use"); else lws' own text.
            return fail("cannot listen on \(address):\(port): \(error.operation == "bind" ? error.message : error.operation)")
        }
        server = s
        logger.info("remote: listening on \(baseURL)")
    }

    // MARK: The host link

    /// Refetches what the page shows; one refetch at a time, and one more if events came meanwhile.
    func refresh() {
        guard let context, !context.isClosed else { return }
        guard !refreshing else {
            refreshAgain = true
            return
        }
        refreshing = true
        refreshAgain = false
        context.call("nowPlaying.get") { [weak self] np in
            self?.context?.call("session.list") { [weak self] list in
                guard let self else { return }
                self.refreshing = false
                self.update(RemoteState(nowPlaying: try? np.get(), sessions: try? list.get()))
                if self.refreshAgain { self.refresh() }
            }
        }
    }

    /// A new state: pushed to every page only when it differs from the last. Encoded once: every
    /// page is sent the same bytes, and `WebServer` spreads the writes over turns.
    func update(_ new: RemoteState) {
        guard new != state else { return }
        state = new
        let message = WebServer.Message(new.message(now: InfoSnapshot.hostNow()))
        var armed = false
        for (c, conn) in connections where conn.isSocket {
            // Only a page that has not taken the previous message gets a deadline: the usual
            // broadcast touches no timer.
            if conn.pendingState != nil || !conn.replies.isEmpty { armed = arm(c, conn) || armed }
            conn.pendingState = message
            server?.requestWritable(c)
        }
        if armed { server?.wake() }
    }

    func call(_ request: PageRequest, from c: WebServer.WebConnection) {
        guard let context, let asked = connections[c] else { return }
        context.call(request.method, request.params) { [weak self] result in
            // The same connection, not a new one that took the freed one's address.
            guard let self, let conn = self.connections[c], conn === asked else { return }
            self.enqueue(PageRequest.reply(id: request.id, result), to: c, conn)
        }
    }

    func enqueue(_ reply: String, to c: WebServer.WebConnection, _ conn: RemoteConnection) {
        guard conn.replies.count < Self.maxQueuedReplies else {
            logger.info("remote: \(conn.deviceName ?? "?") does not read its replies; closing it")
            return cut(c, conn)
        }
        if conn.pendingState != nil || !conn.replies.isEmpty, arm(c, conn) { server?.wake() }
        conn.replies.append(reply)
        server?.requestWritable(c)
    }

    /// Gives a page that has not taken what it was sent `slow_reader_s` to take it, or it is cut
    /// off; true when it armed a deadline (then `wake` lws once).
    func arm(_ c: WebServer.WebConnection, _ conn: RemoteConnection) -> Bool {
        guard let server, !conn.deadlineArmed else { return false }
        conn.deadlineArmed = true
        server.setDeadline(c, seconds: slowReaderSeconds)
        return true
    }

    /// Revokes the device called `name`: its token stops working and its sockets close now.
    func revoke(_ name: String) -> Int? {
        guard let hash = devices.revoke(name: name) else { return nil }
        var closed = 0
        for (c, conn) in connections where conn.tokenHash == hash {
            cut(c, conn)
            closed += 1
        }
        saveDevices()
        return closed
    }

    /// Closes a connection from outside lws' callbacks: lws closes a connection whose writable
    /// callback says so, on the loop's next turn.
    func cut(_ c: WebServer.WebConnection, _ conn: RemoteConnection) {
        conn.isCut = true
        server?.requestWritable(c)
        server?.kill(c)
    }

    /// Writes the devices file off the loop: one write at a time (two on the pool would share
    /// the temporary file), and a change during one writes again after it, the newest list.
    func saveDevices() {
        guard let context else { return }
        guard !savingDevices else {
            saveDevicesAgain = true
            return
        }
        savingDevices = true
        saveDevicesAgain = false
        let bytes = devices.json.serialized()
        let dir = stateDirectory
        RemoteFiles.offLoop(context.loop, { AtomicFile.write(bytes, directory: dir, name: Self.devicesFile) }) { [weak self] error in
            guard let self else { return }
            self.savingDevices = false
            if let error = error ?? nil { self.fail("saving the devices: \(error)") }
            if self.saveDevicesAgain { self.saveDevices() }
        }
    }
}

/// One connection's state: an HTTP request or a page's WebSocket.
final class RemoteConnection {
    var isSocket = false
    /// The peer's numeric address, read once (the per-address cap counts by it).
    var peer: String?
    var tokenHash: String?
    var deviceName: String?
    /// The newest state not yet sent (a newer one replaces it: a page never gets a backlog).
    var pendingState: WebServer.Message?
    var replies: [String] = []
    /// A message being received in pieces.
    var partial: [UInt8] = []
    var deadlineArmed = false
    /// Revoked or over a limit: the next writable callback closes it.
    var isCut = false
}
