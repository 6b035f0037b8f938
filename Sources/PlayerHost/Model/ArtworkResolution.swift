import PlayerHostBase

/// Artwork resolution as pure state (SPEC §1 "Artwork"): what each track's artwork is resolved
/// from, in which order, and which result may still be published. The I/O — the decoder helper,
/// HTTP, the cache — is `Host/ArtworkResolver`, which carries out the actions returned here.

/// Where a track's artwork can come from.
public enum ArtworkSource: Sendable, Hashable {
    /// The picture inside the item's local media file.
    case embedded(mediaPath: String)
    /// A local image file.
    case file(String)
    /// An http(s) URL.
    case remote(String)
    /// A `data:` URI carrying the image itself (decoded by the helper, never by the daemon).
    case data(String)

    /// Parses one `artwork.sources` entry; `embedded` needs the item's local media path. Nil for
    /// anything else (unsupported schemes are never fetched).
    public init?(_ uri: String, mediaPath: String?) {
        if uri == "embedded" {
            guard let mediaPath else { return nil }
            self = .embedded(mediaPath: mediaPath)
        } else if let path = Self.localPath(uri) {
            self = .file(path)
        } else if uri.hasPrefix("http://") || uri.hasPrefix("https://") {
            self = .remote(uri)
        } else if ArtworkDataURI.isDataURI(uri) {
            self = .data(uri)
        } else {
            return nil
        }
    }

    /// The path of an absolute path or a `file://` URI (percent-escapes decoded); nil otherwise.
    public static func localPath(_ uri: String) -> String? {
        if uri.hasPrefix("/") { return uri }
        guard uri.hasPrefix("file://") else { return nil }
        let rest = uri.dropFirst(7)
        guard rest.hasPrefix("/") else { return nil }  // file://host/… is not local
        var bytes: [UInt8] = []
        var it = Array(rest.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "%"), it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(v)
                it = it.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// What one track's artwork is resolved from: derived from its published info, so a new track
/// (a new artwork id, new sources, a new media file) is a new request.
public struct ArtworkRequest: Sendable, Hashable {
    /// The cache key: the artwork's id (a `data:` URI's is its short content id,
    /// `ArtworkDataURI.normalisedID`), or `embedded:<path>` for an item's implicit artwork.
    public var id: String
    /// Embedded first, then the rest in the order given.
    public var sources: [ArtworkSource]
    /// True when the info had no `artwork` and the media file's picture is tried implicitly.
    public var isImplicit: Bool

    /// The request for `info`: its `artwork` (sources parsed, embedded first), else — for a local
    /// media file — its embedded picture. Nil when there is nothing to resolve.
    public init?(info: NowPlayingInfo) {
        let mediaPath = info.text(.assetURL).flatMap(ArtworkSource.localPath)
        if case .artwork(let a)? = info[.artwork], !(a.image != nil && mediaPath.map { a.id == "embedded:" + $0 } == true) {
            // (An artwork with an image and the implicit id is the implicit one, resolved.)
            let parsed = a.sources.compactMap { ArtworkSource($0, mediaPath: mediaPath) }
            let embedded = parsed.filter { if case .embedded = $0 { return true } else { return false } }
            id = ArtworkDataURI.normalisedID(a.id)
            sources = embedded + parsed.filter { !embedded.contains($0) }
            isImplicit = false
        } else if let mediaPath {
            id = "embedded:" + mediaPath
            sources = [.embedded(mediaPath: mediaPath)]
            isImplicit = true
        } else {
            return nil
        }
    }

    public init(id: String, sources: [ArtworkSource], isImplicit: Bool = false) {
        self.id = ArtworkDataURI.normalisedID(id)
        self.sources = sources
        self.isImplicit = isImplicit
    }

    /// The steps tried in order: embedded > cached > remote/file.
    public var steps: [ArtworkStep] {
        var out: [ArtworkStep] = []
        for s in sources { if case .embedded(let p) = s { out.append(.embedded(p)) } }
        if !isImplicit { out.append(.cache) }
        for s in sources {
            switch s {
            case .embedded: break
            case .file(let p): out.append(.file(p))
            case .remote(let u): out.append(.remote(u))
            case .data(let u): out.append(.data(u))
            }
        }
        return out
    }
}

/// One step of a resolution.
public enum ArtworkStep: Sendable, Hashable {
    case embedded(String)
    case cache
    case file(String)
    case remote(String)
    case data(String)
}

/// Where a published image came from (`artwork.image.from`): `data` is a `data:` URI source.
public enum ArtworkOrigin: String, Sendable, Hashable {
    case embedded, cache, remote, data
}

/// A resolved image: a file in the cache (`artwork.image`).
public struct ArtworkImage: Sendable, Hashable {
    public var url: String
    public var width: Int
    public var height: Int
    public var type: String
    public var from: ArtworkOrigin

    public init(url: String, width: Int, height: Int, type: String, from: ArtworkOrigin) {
        self.url = url
        self.width = width
        self.height = height
        self.type = type
        self.from = from
    }
}

/// What a session's current track's artwork came to; kept with the request it answers, so it
/// never shows on another track.
public enum ArtworkOutcome: Sendable, Hashable {
    case resolved(ArtworkRequest, ArtworkImage)
    case failed(ArtworkRequest, reason: String)

    public var request: ArtworkRequest {
        switch self {
        case .resolved(let r, _), .failed(let r, _): return r
        }
    }
}

/// Per session, the current track's resolution: a generation token per track, the steps left,
/// and whether its result went out. Anything arriving for an older generation is dropped.
public struct ArtworkResolution: Sendable {
    /// What the resolver is to do.
    public enum Action: Sendable, Hashable {
        /// Run `step` for the session's `generation`.
        case start(SessionID, generation: UInt64, step: ArtworkStep, request: ArtworkRequest)
        /// Stop whatever runs for that generation (its result would be dropped anyway).
        case cancel(SessionID, generation: UInt64)
        /// Record the outcome in the model (published through the gate).
        case settle(SessionID, ArtworkOutcome)
    }

    struct Track: Sendable {
        var generation: UInt64
        var request: ArtworkRequest
        var steps: [ArtworkStep]
        var next = 0
        var inFlight = false
        var failures: [String] = []
        var done = false
    }

    private var tracks: [SessionID: Track] = [:]
    private var lastGeneration: UInt64 = 0
    /// Results dropped because their track had changed (tests read it).
    public private(set) var staleDropped = 0

    public init() {}

    /// The session's current generation, if it has a request.
    public func generation(of session: SessionID) -> UInt64? { tracks[session]?.generation }

    /// Whether anything is in flight for the session.
    public func isResolving(_ session: SessionID) -> Bool { tracks[session]?.inFlight ?? false }

    /// The session's published info now calls for `request` (nil: nothing to resolve). The same
    /// request as before changes nothing (at most one resolution, one publication per track).
    public mutating func observe(_ session: SessionID, request: ArtworkRequest?) -> [Action] {
        if let t = tracks[session], t.request == request { return [] }
        var out: [Action] = []
        if let old = tracks.removeValue(forKey: session), old.inFlight {
            out.append(.cancel(session, generation: old.generation))
        }
        guard let request else { return out }
        lastGeneration += 1
        tracks[session] = Track(generation: lastGeneration, request: request, steps: request.steps)
        return out + advance(session)
    }

    /// A step found the image. Stale generations are dropped.
    public mutating func succeeded(_ session: SessionID, generation: UInt64, image: ArtworkImage) -> [Action] {
        guard var t = tracks[session], t.generation == generation, t.inFlight, !t.done else {
            staleDropped += 1
            return []
        }
        t.inFlight = false
        t.done = true
        tracks[session] = t
        return [.settle(session, .resolved(t.request, image))]
    }

    /// A step found nothing (`reason` nil: simply absent, e.g. no cache entry or no picture in
    /// the file) or failed; the next step runs, or the track settles as failed.
    public mutating func failed(_ session: SessionID, generation: UInt64, reason: String?) -> [Action] {
        guard var t = tracks[session], t.generation == generation, t.inFlight, !t.done else {
            staleDropped += 1
            return []
        }
        t.inFlight = false
        if let reason { t.failures.append(reason) }
        tracks[session] = t
        return advance(session)
    }

    /// The session is gone.
    public mutating func closed(_ session: SessionID) -> [Action] {
        guard let t = tracks.removeValue(forKey: session), t.inFlight else { return [] }
        return [.cancel(session, generation: t.generation)]
    }

    private mutating func advance(_ session: SessionID) -> [Action] {
        guard var t = tracks[session] else { return [] }
        guard t.next < t.steps.count else {
            t.done = true
            tracks[session] = t
            // Nothing found and nothing failed (a file without a picture): no fault, nothing shown.
            guard !t.failures.isEmpty else { return [] }
            return [.settle(session, .failed(t.request, reason: t.failures.joined(separator: "; ")))]
        }
        let step = t.steps[t.next]
        t.next += 1
        t.inFlight = true
        tracks[session] = t
        return [.start(session, generation: t.generation, step: step, request: t.request)]
    }
}
