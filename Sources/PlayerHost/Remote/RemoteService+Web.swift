import Glibc
import PlayerHostBase
import PlayerHostLoop
import PlayerHostPlugin
import PlayerHostRPC
import PlayerHostClient

/// The HTTP and WebSocket side of the remote: routes, pairing, the token check, the Origin check,
/// and the bounded send queue of each page.
extension RemoteService {
    typealias Connection = WebServer.WebConnection

    func wire(_ s: WebServer) {
        s.onAccept = { [weak self, weak s] peer in
            guard let self, let s else { return false }
            return self.admits(peer, server: s)
        }
        s.onCreated = { [weak self] c in self?.connections[c] = RemoteConnection() }
        s.onDestroyed = { [weak self] c in self?.connections[c] = nil }
        s.onHTTP = { [weak self] c, path in self?.http(c, path: path) ?? false }
        s.onUpgrade = { [weak self] c in self?.upgrade(c) ?? false }
        s.onOpen = { [weak self] c in
            guard let self, let conn = self.connections[c] else { return }
            conn.isSocket = true
            conn.pendingState = WebServer.Message(self.state.message(now: InfoSnapshot.hostNow()))
            s.requestWritable(c)
        }
        s.onReceive = { [weak self] c, bytes, first, final, binary in
            self?.receive(c, bytes, first: first, final: final, binary: binary) ?? false
        }
        s.onWritable = { [weak self] c in self?.writable(c) ?? false }
    }

    /// Whether a connection from `peer` fits under both caps: `max_connections` in all and
    /// `max_connections_per_address` from one address (one LAN peer cannot take every connection;
    /// at most 64 connections are counted, each address read once).
    func admits(_ peer: String, server s: WebServer) -> Bool {
        guard connections.count < maxConnections else {
            refusedConnections += 1
            return false
        }
        var fromPeer = 0
        for (c, conn) in connections {
            if conn.peer == nil { conn.peer = s.peer(of: c) }
            if conn.peer == peer { fromPeer += 1 }
        }
        // Counted, not logged: a peer knocking in a loop must not flood the log.
        guard fromPeer < maxConnectionsPerAddress else {
            refusedConnections += 1
            return false
        }
        return true
    }

    /// The device whose token the request's cookie carries.
    func device(_ c: Connection) -> (hash: String, name: String)? {
        guard let server, let token = RemoteCookie.token(in: server.header(.cookie, of: c)) else { return nil }
        guard let digest = WebServer.sha256(Array(token.utf8)) else { return nil }
        let hash = remoteHex(digest)
        guard let d = devices.device(tokenHash: hash) else { return nil }
        return (hash, d.name)
    }

    func http(_ c: Connection, path: String) -> Bool {
        guard let server else { return false }
        switch RemoteRoute(path: path) {
        case .page:
            guard let file = page["index.html"] else { return respond(c, 503, text: "the page is not loaded") }
            guard device(c) != nil else { return unauthorized(c) }
            return server.respond(c, status: 200, contentType: "text/html; charset=utf-8",
                                  headers: [("Cache-Control", "no-store")] + Self.pageHeaders, body: file)
        case .asset(let name):
            guard let file = page[name] else { return respond(c, 404, text: "not found") }
            // The service worker lives with the page's files but controls the whole page.
            let scope = name == "sw.js" ? [("Service-Worker-Allowed", "/")] : []
            return server.respond(c, status: 200, contentType: RemoteRoute.contentType(of: name),
                                  headers: [("Cache-Control", "no-cache")] + scope + Self.pageHeaders, body: file)
        case .pair(let code):
            return pair(c, code: code)
        case .art(let id):
            guard device(c) != nil else { return unauthorized(c) }
            return art(c, id: id)
        case .socket:
            return respond(c, 400, text: "a WebSocket goes here")
        case .notFound:
            return respond(c, 404, text: "not found")
        }
    }

    /// A strict content policy: the page's own files only (no CDN, no inline script).
    static let pageHeaders = [
        ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; media-src 'self' data:; connect-src 'self'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
    ]

    func respond(_ c: Connection, _ status: Int, text: String, headers: [(String, String)] = []) -> Bool {
        server?.respond(c, status: status, contentType: "text/plain; charset=utf-8", headers: headers + [("Cache-Control", "no-store")],
                        body: Array((text + "\n").utf8)) ?? false
    }

    func unauthorized(_ c: Connection) -> Bool {
        guard let server else { return false }
        let body = page["unpaired.html"] ?? Array("not paired: run `npctl remote pair` and open the URL it prints\n".utf8)
        return server.respond(c, status: 401, contentType: page["unpaired.html"] == nil ? "text/plain; charset=utf-8" : "text/html; charset=utf-8",
                              headers: [("Cache-Control", "no-store")] + Self.pageHeaders, body: body)
    }

    func pair(_ c: Connection, code: String) -> Bool {
        guard let server, let context else { return false }
        let peer = server.peer(of: c)
        switch codes.redeem(code, from: peer, now: context.scheduler.nowNanoseconds / 1_000_000) {
        case .tooManyTries:
            logger.warning("remote: \(peer) tried too many wrong pairing codes")
            return respond(c, 429, text: "too many wrong codes from this address; wait a minute", headers: [("Retry-After", "60")])
        case .wrong:
            logger.info("remote: a wrong or used pairing code from \(peer)")
            return respond(c, 403, text: "this pairing code is wrong, used or expired: run `npctl remote pair` again")
        case .paired(let wanted):
            guard let random = WebServer.random(32) else { return respond(c, 500, text: "no random bytes") }
            let token = remoteHex(random)
            guard let digest = WebServer.sha256(Array(token.utf8)) else { return respond(c, 500, text: "no SHA-256 (libcrypto)") }
            let name = devices.freeName(wanted)
            let device = DeviceStore.Device(name: name, tokenHash: remoteHex(digest),
                                            pairedAt: Int64(time(nil)))
            guard devices.add(device) else {
                return respond(c, 507, text: "\(DeviceStore.maxDevices) devices are paired already: revoke one (`npctl remote revoke NAME`)")
            }
            saveDevices()
            logger.info("remote: paired \(name) from \(peer)")
            return server.respond(c, status: 303, contentType: "text/plain; charset=utf-8",
                                  headers: [("Set-Cookie", RemoteCookie.setCookie(token: token, secure: isTLS)), ("Location", "/"),
                                            ("Cache-Control", "no-store")],
                                  body: Array("paired as \(name)\n".utf8))
        }
    }

    func art(_ c: Connection, id: String) -> Bool {
        guard let server, let context, let asked = connections[c], let session = state.artwork[id] else {
            return respond(c, 404, text: "no such cover")
        }
        // Answers come later: only to the same connection, not a new one at the freed one's address.
        let same = { [weak self] in self?.connections[c] === asked }
        let size = server.query("size", of: c).flatMap(Int.init).map { max(16, min($0, 2048)) }
        let etag = "\"\(id)-\(size ?? 0)\""
        if server.header(.ifNoneMatch, of: c) == etag {
            return server.respond(c, status: 304, contentType: "image/jpeg", headers: [("ETag", etag)], body: [])
        }
        var params: [String: JSON] = ["session": .string(session)]
        if let size {
            params["width"] = .int(Int64(size))
            params["height"] = .int(Int64(size))
        }
        context.call("artwork.get", params) { [weak self] result in
            guard let self, same() else { return }
            guard case .success(let r) = result, let path = r["path"]?.stringValue else {
                _ = self.respond(c, 404, text: "no cover")
                return
            }
            let type = r["type"]?.stringValue ?? "application/octet-stream"
            RemoteFiles.offLoop(context.loop, { RemoteFiles.read(path, limit: RemoteFiles.maxArtworkBytes) }) { [weak self] read in
                guard let self, let server = self.server, same() else { return }
                guard case .success(let bytes) = read else {
                    _ = self.respond(c, 404, text: "the cover is gone")
                    return
                }
                server.respond(c, status: 200, contentType: type,
                               headers: [("ETag", etag), ("Cache-Control", "private, max-age=31536000, immutable")], body: bytes)
            }
        }
        return true
    }

    /// A WebSocket upgrade: at `/ws`, from a paired device, from a page of this origin.
    func upgrade(_ c: Connection) -> Bool {
        guard let server, let conn = connections[c] else { return false }
        guard server.header(.getPath, of: c) == "/ws" else { return false }
        guard let (hash, name) = device(c) else {
            logger.info("remote: a WebSocket without a valid token from \(server.peer(of: c))")
            return false
        }
        guard let origin = server.header(.origin, of: c), let host = server.header(.host, of: c),
              origin == (isTLS ? "https://" : "http://") + host else {
            logger.warning("remote: a WebSocket from another origin (\(server.header(.origin, of: c) ?? "none")) refused")
            return false
        }
        conn.tokenHash = hash
        conn.deviceName = name
        if devices.used(tokenHash: hash, at: Int64(time(nil))) { saveDevices() }
        return true
    }

    func receive(_ c: Connection, _ bytes: UnsafeRawBufferPointer, first: Bool, final: Bool, binary: Bool) -> Bool {
        guard let conn = connections[c], !conn.isCut else { return false }
        if first { conn.partial.removeAll(keepingCapacity: true) }
        guard !binary, conn.partial.count + bytes.count <= maxMessageBytes else {
            logger.info("remote: \(conn.deviceName ?? "?") sent a message over \(maxMessageBytes) bytes (or binary); closing it")
            return false
        }
        conn.partial.append(contentsOf: bytes)
        guard final else { return true }
        let message = conn.partial
        conn.partial.removeAll(keepingCapacity: true)
        switch PageRequest.parse(message) {
        case .success(let request): call(request, from: c)
        case .failure(let refusal):
            enqueue(PageRequest.reply(id: refusal.id ?? 0, .failure(RPCError(.invalidArgument, refusal.message))), to: c, conn)
        }
        return true
    }

    /// One message per writable turn: replies first, then the newest state.
    func writable(_ c: Connection) -> Bool {
        guard let server, let conn = connections[c], !conn.isCut else { return false }
        let next: WebServer.Message
        if !conn.replies.isEmpty {
            next = WebServer.Message(conn.replies.removeFirst())
        } else if let s = conn.pendingState {
            conn.pendingState = nil
            stateMessagesSent += 1
            next = s
        } else {
            return true
        }
        guard server.send(c, next) else { return false }
        if conn.replies.isEmpty && conn.pendingState == nil {
            if conn.deadlineArmed {
                conn.deadlineArmed = false
                server.setDeadline(c, seconds: 0)
            }
        } else {
            server.requestWritable(c)
        }
        return true
    }
}
