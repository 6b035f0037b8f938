/// What an HTTP request to the remote asks for, from its path alone (pure). Static files are
/// named, never looked up as paths: a name is letters, digits, `.`, `-` and `_`, not starting
/// with a dot, and it must be one of the page's own files — no traversal can be expressed.
public enum RemoteRoute: Sendable, Equatable {
    /// The page (`/`): needs a paired device's token.
    case page
    /// A static file of the page (`/static/app.js`): public, so the pairing page can load.
    case asset(String)
    /// `/pair/CODE`: pairs the device that opens it.
    case pair(code: String)
    /// `/art/<id>`: a cover, by content; needs a token.
    case art(id: String)
    /// `/ws`: the WebSocket (the upgrade is judged apart).
    case socket
    case notFound

    /// The route of `path` (query already split off by lws).
    public init(path: String) {
        let p = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        if p == "/" || p == "/index.html" { self = .page; return }
        if p == "/ws" { self = .socket; return }
        let parts = p.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts[0].isEmpty else { self = .notFound; return }
        switch parts[1] {
        case "static" where Self.isFileName(parts[2]): self = .asset(parts[2])
        case "pair" where !parts[2].isEmpty && parts[2].utf8.count <= 32 && parts[2].utf8.allSatisfy(Self.isCodeByte):
            self = .pair(code: parts[2])
        case "art" where !parts[2].isEmpty && parts[2].utf8.count <= 64 && parts[2].utf8.allSatisfy(Self.isHexByte):
            self = .art(id: parts[2])
        default: self = .notFound
        }
    }

    /// A plain file name: no separators, no leading dot, at most 64 bytes.
    public static func isFileName(_ s: String) -> Bool {
        guard !s.isEmpty, s.utf8.count <= 64, s.first != "." else { return false }
        return s.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x2D || b == 0x5F
        }
    }

    static func isCodeByte(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
    static func isHexByte(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) }

    /// The content type of a page file, by its extension.
    public static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last.map(String.init) ?? "" {
        case "html": return "text/html; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "json": return "application/json"
        case "webmanifest": return "application/manifest+json"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "ogg", "oga": return "audio/ogg"
        case "wav": return "audio/wav"
        case "mp3": return "audio/mpeg"
        default: return "application/octet-stream"
        }
    }
}

/// The token cookie: its name, how it is read from a `Cookie` header and how it is set.
public enum RemoteCookie {
    public static let name = "ph_remote"

    /// The token in a `Cookie` header (`a=b; ph_remote=…`), if it is a well-formed one (64 hex).
    public static func token(in header: String?) -> String? {
        guard let header else { return nil }
        for part in header.split(separator: ";") {
            let kv = part.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, kv[0].trimmingSpaces == name else { continue }
            let v = String(kv[1].trimmingSpaces)
            if v.utf8.count == 64, v.utf8.allSatisfy(RemoteRoute.isHexByte) { return v }
        }
        return nil
    }

    /// `Set-Cookie` for a new token: HttpOnly (no script reads it), SameSite=Strict (no other site
    /// sends it), a year long; Secure over TLS.
    public static func setCookie(token: String, secure: Bool) -> String {
        "\(name)=\(token); Path=/; Max-Age=31536000; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}

/// Hex of bytes (tokens, hashes).
public func remoteHex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for b in bytes {
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 15)])
    }
    return String(decoding: out, as: UTF8.self)
}
