import Glibc
import Logging
import PlayerHostBase
import PlayerHostClient
import PlayerHostLoop
import PlayerHostModel
import PlayerHostRPC

/// Carries out `ArtworkResolution`'s actions: the embedded picture and local image files through
/// the decoder helper, the on-disk cache, and http(s) fetches through a few fetch helpers (each a
/// `playerhost-artwork` process that fetches, validates and writes the image; the daemon never
/// holds or writes a body, so many large fetches cost its loop nothing). The outcome goes back
/// into the model (`settleArtwork`), so it is published through the one publication path like
/// any other info change; a failure becomes a doctor fault.
///
/// It is an `EventSink` for the info and sessions topics: each session's published info names the
/// request, and a new request is a new generation.
public final class ArtworkResolver: EventSink {
    let service: NowPlayingService
    let logger: Logger
    public let cache: ArtworkCache
    let helper: ArtworkHelper
    /// The fetch helpers: at most this many fetches run at once (the rest wait, in order), so the
    /// temporary bytes in the cache directory stay under `fetchers.count × limits.maxBytes`.
    let fetchers: [ArtworkHelper]
    /// Fetch helpers started for `init`.
    static let fetcherCount = 4
    /// A fetch helper idle this long exits (started again on demand).
    static let fetcherIdleExitMilliseconds: UInt64 = 30_000

    /// The bounds of each image: what a fetch may take and any image's size.
    public struct Limits: Sendable, Equatable {
        /// `artwork_timeout_ms`: one fetch's total time.
        public var timeoutMilliseconds: Int = 10_000
        /// `artwork_max_kb`: the largest body fetched or image file read (the helper caps at 64 MiB).
        public var maxBytes: Int = 16 << 20
        public var maxRedirects: Int = 5
        /// `artwork_max_megapixels`: the most pixels (width × height) an image may declare; larger
        /// ones are refused from their header, before any decoding.
        public var maxPixels: Int = 100_000_000
        public init() {}
    }

    public var limits = Limits()
    public private(set) var state = ArtworkResolution()
    /// The fetch running for a session's generation, to cancel it when the track changes.
    private var fetches: [SessionID: (generation: UInt64, fetcher: Int, ticket: Int)] = [:]
    private var queue: [ArtworkResolution.Action] = []
    private var isRunning = false
    private var isClosed = false
    /// Outcomes settled since start (benchmarks and tests).
    public private(set) var resolvedCount = 0
    public private(set) var failedCount = 0

    init(service: NowPlayingService, cache: ArtworkCache, helper: ArtworkHelper, logger: Logger) {
        self.service = service
        self.cache = cache
        self.helper = helper
        self.fetchers = (0..<Self.fetcherCount).map { _ in
            let fetcher = ArtworkHelper(loop: helper.loop, executable: helper.executable, logger: logger)
            fetcher.idleExitMilliseconds = Self.fetcherIdleExitMilliseconds
            return fetcher
        }
        self.logger = logger
    }

    /// Where the helper executable is: beside the running daemon's own executable.
    static func helperPath() -> String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, 4095)
        let me = String(cBuffer: buf[0..<max(n, 0)])
        return SocketLocation.directory(of: me) + "/playerhost-artwork"
    }

    /// The `EventSink` side: info and session events from the publisher. Nothing is published
    /// from here; every step answers on a later loop turn.
    public func receive(_ event: PublishedEvent) {
        if case .model(let e) = event.payload { observe([e]) }
    }

    /// Sees published model events: sessions whose info changed get their request looked at
    /// again; closed sessions drop theirs.
    func observe(_ events: [ModelEvent]) {
        guard !isClosed else { return }
        var touched: [SessionID] = []
        for event in events {
            switch event {
            case .infoChanged(let s, _), .sessionCreated(let s):
                if !touched.contains(s) { touched.append(s) }
            case .sessionClosed(let s, _):
                run(state.closed(s))
            default:
                break
            }
        }
        for s in touched {
            guard let session = service.model.sessions[s] else { continue }
            let request = ArtworkRequest(info: service.model.publishedInfo(session).info)
            run(state.observe(s, request: request))
        }
    }

    /// Stops fetches and the helpers (shutdown).
    func close() {
        isClosed = true
        for f in fetchers { f.close() }
        helper.close()
    }

    /// What every request carries: the byte and pixel bounds.
    private var bounds: [String: JSON] {
        ["maxBytes": .int(Int64(limits.maxBytes)), "maxPixels": .int(Int64(limits.maxPixels))]
    }

    // MARK: - Actions

    private func run(_ actions: [ArtworkResolution.Action]) {
        queue += actions
        guard !isRunning else { return }
        isRunning = true
        defer { isRunning = false }
        while !queue.isEmpty {
            let action = queue.removeFirst()
            switch action {
            case .start(let s, let generation, let step, let request):
                start(s, generation, step, request)
            case .cancel(let s, let generation):
                if let f = fetches[s], f.generation == generation {
                    fetchers[f.fetcher].cancel(f.ticket)
                    fetches[s] = nil
                }
            case .settle(let s, let outcome):
                settle(s, outcome)
            }
        }
    }

    private func start(_ s: SessionID, _ generation: UInt64, _ step: ArtworkStep, _ request: ArtworkRequest) {
        let succeed = { [weak self] (image: ArtworkImage) in
            guard let self else { return }
            self.run(self.state.succeeded(s, generation: generation, image: image))
        }
        let fail = { [weak self] (reason: String?) in
            guard let self else { return }
            self.run(self.state.failed(s, generation: generation, reason: reason))
        }
        switch step {
        case .embedded(let media):
            let tmp = cache.temporaryPath()
            helper.request(bounds.merging(["op": "embedded", "media": .string(media), "out": .string(tmp)]) { $1 }) { [weak self] result in
                guard let self else { return }
                switch result {
                case .success(.file(let info)):
                    guard let e = self.cache.insert(id: request.id, original: true, temporary: tmp, info: info) else {
                        return fail("cannot store the embedded picture in \(self.cache.directory)")
                    }
                    succeed(self.image(e, from: .embedded))
                case .success(.none):
                    unlink(tmp)
                    fail(nil)
                case .failure(let reason):
                    unlink(tmp)
                    fail("embedded picture of \(media): \(reason)")
                }
            }
        case .cache:
            // On the next loop turn, like every other step: a sink never publishes from inside the
            // publication that called it, and the result still lands inside the gate's window.
            later { [weak self] in
                guard let self else { return }
                guard let e = self.cache.originalCandidate(for: request.id) else { return fail(nil) }
                self.verify(e) { [weak self] intact in
                    guard let self else { return }
                    guard intact else { return fail(nil) }
                    self.cache.touch(e)
                    succeed(self.image(e, from: .cache))
                }
            }
        case .file(let path):
            validate(input: path, request: request, what: path, succeed: succeed, fail: fail)
        case .remote(let url):
            // The least busy fetch helper; it fetches, validates and writes the image itself.
            let index = fetchers.indices.min { fetchers[$0].load < fetchers[$1].load } ?? 0
            let tmp = cache.temporaryPath()
            let params = bounds.merging(["op": "fetch", "url": .string(url), "out": .string(tmp),
                                         "timeoutMs": .int(Int64(limits.timeoutMilliseconds)),
                                         "maxRedirects": .int(Int64(limits.maxRedirects))]) { $1 }
            // The helper's own deadline is the fetch's plus time to decode what it got.
            let deadline = UInt64(max(1, limits.timeoutMilliseconds)) + helper.requestTimeoutMilliseconds
            let ticket = fetchers[index].request(params, timeoutMilliseconds: deadline) { [weak self] result in
                guard let self else { return }
                if self.fetches[s]?.generation == generation { self.fetches[s] = nil }
                self.adopt(result, temporary: tmp, request: request, what: url, from: .remote, succeed: succeed, fail: fail)
            }
            fetches[s] = (generation, index, ticket)
        case .data(let uri):
            // The text goes to the helper as it is: decoding (base64, then the image) is the
            // helper's. Bounded first, so an oversized one costs neither process anything.
            let size = uri.utf8.count
            let cap = ArtworkDataURI.maxURIBytes(forImageBytes: limits.maxBytes)
            guard size <= cap else {
                let reason = "the data: source of \(size) bytes is over the \(cap)-byte bound (artwork_max_kb = \(limits.maxBytes >> 10), in base64)"
                return later { fail(reason) }
            }
            let tmp = cache.temporaryPath()
            helper.request(bounds.merging(["op": "data", "uri": .string(uri), "out": .string(tmp)]) { $1 }) { [weak self] result in
                self?.adopt(result, temporary: tmp, request: request, what: "the data: source (\(size) bytes)", from: .data,
                            succeed: succeed, fail: fail)
            }
        }
    }

    /// Has the helper check that the file at `input` decodes as an image and adopts it as the original.
    private func validate(input: String, request: ArtworkRequest, what: String,
                          succeed: @escaping (ArtworkImage) -> Void, fail: @escaping (String?) -> Void) {
        let tmp = cache.temporaryPath()
        helper.request(bounds.merging(["op": "image", "in": .string(input), "out": .string(tmp)]) { $1 }) { [weak self] result in
            self?.adopt(result, temporary: tmp, request: request, what: what, from: .remote, succeed: succeed, fail: fail)
        }
    }

    /// A helper's image (fetched or read) becomes the request's original in the cache.
    private func adopt(_ result: Result<ArtworkHelper.Reply, ArtworkHelper.Failure>, temporary tmp: String,
                       request: ArtworkRequest, what: String, from origin: ArtworkOrigin,
                       succeed: @escaping (ArtworkImage) -> Void, fail: @escaping (String?) -> Void) {
        switch result {
        case .success(.file(let info)):
            guard let e = cache.insert(id: request.id, original: true, temporary: tmp, info: info) else {
                return fail("\(what): cannot store it in \(cache.directory)")
            }
            succeed(image(e, from: origin))
        case .success(.none):
            unlink(tmp)
            fail("\(what): not an image")
        case .failure(let reason):
            unlink(tmp)
            fail("\(what): \(reason)")
        }
    }

    /// Whether a cached file still holds what its name promises: checked once per run by the
    /// helper (which reads it; the loop never does). A mismatch discards the file; a helper that
    /// could not tell (it died) leaves it for another time.
    private func verify(_ e: ArtworkCache.Entry, _ body: @escaping (Bool) -> Void) {
        guard cache.needsCheck(e) else { return body(cache.isIntact(e)) }
        helper.request(["op": "verify", "in": .string(cache.path(e)), "bytes": .int(Int64(e.bytes)),
                        "checksum": .int(Int64(e.checksum))]) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success:
                self.cache.confirm(e, intact: true)
                body(true)
            case .failure(let f):
                if f.description == Self.verifyMismatch { self.cache.confirm(e, intact: false) }
                body(false)
            }
        }
    }

    /// The helper's error for a cached file that does not match its name.
    static let verifyMismatch = "the file does not match its name"

    private func settle(_ s: SessionID, _ outcome: ArtworkOutcome) {
        switch outcome {
        case .resolved: resolvedCount += 1
        case .failed(let r, let reason):
            failedCount += 1
            logger.warning("artwork '\(r.id)' of session \(s) not resolved: \(reason)")
        }
        do {
            try service.perform { m, t in try m.settleArtwork(session: s, outcome, now: t) }
        } catch {
            logger.debug("artwork of session \(s) not recorded: \(error)")
            return
        }
        // The `artwork` topic: what a resolution came to, failures included (which publish nothing).
        var event: [String: JSON] = ["topic": "artwork", "type": "artworkSettled", "session": .string(s),
                                     "id": .string(outcome.request.id)]
        switch outcome {
        case .resolved(_, let image): event["image"] = image.toJSON()
        case .failed(_, let reason): event["error"] = .string(reason)
        }
        service.publisher.publish(PublishedEvent(.artwork(.object(event))))
    }

    func image(_ e: ArtworkCache.Entry, from: ArtworkOrigin) -> ArtworkImage {
        ArtworkImage(url: "file://" + Self.escape(cache.path(e)), width: e.width, height: e.height, type: e.type, from: from)
    }

    /// Percent-escapes what a `file://` URL cannot carry as is (the cache's own names never need
    /// it; `$XDG_CACHE_HOME` might).
    static func escape(_ path: String) -> String {
        var out = ""
        for b in path.utf8 {
            let c = Character(Unicode.Scalar(b))
            if b < 0x80, c.isLetter || c.isNumber || "/-._~".contains(c) {
                out.append(c)
            } else {
                let hex = String(b, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    // MARK: - Renditions

    /// `artwork.get`: the best rendition of a session's resolved artwork for a `width`×`height`
    /// box — the smallest cached one at least that large, else the original scaled down now (and
    /// cached); never larger than the original. Nil when the session shows no artwork.
    func rendition(session: SessionID, width: Int?, height: Int?, _ completion: @escaping (Result<JSON, RPCError>) -> Void) {
        guard let s = service.model.sessions[session],
              case .artwork(let a)? = service.model.publishedInfo(s).info[.artwork], let image = a.image else {
            return completion(.success(.null))
        }
        guard let original = cache.originalCandidate(for: a.id) else { return completion(.success(.null)) }
        verify(original) { [weak self] intact in
            guard let self else { return }
            guard intact else { return completion(.success(.null)) }
            self.cache.touch(original)
            self.rendition(of: original, id: a.id, from: image.from, width: width, height: height, completion)
        }
    }

    /// The rest of `rendition` once the original is known intact.
    private func rendition(of original: ArtworkCache.Entry, id: String, from: ArtworkOrigin, width: Int?, height: Int?,
                           _ completion: @escaping (Result<JSON, RPCError>) -> Void) {
        let ow = original.width, oh = original.height
        let w = width ?? (height.map { $0 * ow / max(oh, 1) } ?? ow)
        let h = height ?? (width.map { $0 * oh / max(ow, 1) } ?? oh)
        let scale = min(Double(w) / Double(ow), Double(h) / Double(oh), 1)
        let tw = max(1, Int((Double(ow) * scale).rounded())), th = max(1, Int((Double(oh) * scale).rounded()))
        func answer(_ e: ArtworkCache.Entry) -> JSON {
            ["url": .string("file://" + Self.escape(cache.path(e))), "path": .string(cache.path(e)),
             "width": .int(Int64(e.width)), "height": .int(Int64(e.height)), "type": .string(e.type),
             "from": .string(from.rawValue), "original": .bool(e.isOriginal)]
        }
        if tw >= ow && th >= oh { return completion(.success(answer(original))) }
        if let best = cache.renditionCandidates(for: id).first(where: { $0.width + 1 >= tw && $0.height + 1 >= th && $0.width <= ow }) {
            return verify(best) { [weak self] intact in
                guard let self else { return }
                guard intact else { return self.makeRendition(of: original, id: id, tw, th, answer, completion) }
                self.cache.touch(best)
                completion(.success(answer(best)))
            }
        }
        makeRendition(of: original, id: id, tw, th, answer, completion)
    }

    /// Has the helper scale `original` down to `tw`×`th` and caches the result.
    private func makeRendition(of original: ArtworkCache.Entry, id: String, _ tw: Int, _ th: Int,
                               _ answer: @escaping (ArtworkCache.Entry) -> JSON,
                               _ completion: @escaping (Result<JSON, RPCError>) -> Void) {
        let png = original.type == "image/png" || original.type == "image/gif" || original.type == "image/webp"
        let tmp = cache.temporaryPath(png ? ".png" : ".jpg")
        helper.request(bounds.merging(["op": "thumbnail", "in": .string(cache.path(original)), "out": .string(tmp),
                                       "width": .int(Int64(tw)), "height": .int(Int64(th))]) { $1 }) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(.file(let info)):
                guard let e = self.cache.insert(id: id, original: false, temporary: tmp, info: info) else {
                    return completion(.failure(RPCError(.internalError, "cannot store the rendition in \(self.cache.directory)")))
                }
                completion(.success(answer(e)))
            case .success(.none), .failure:
                unlink(tmp)
                var reason = "no image"
                if case .failure(let r) = result { reason = r.description }
                completion(.failure(RPCError(.internalError, "the rendition could not be made: \(reason)")))
            }
        }
    }

    private func later(_ body: @escaping () -> Void) {
        guard let t = service.scheduler.makeTimer() else { return }
        t.start(after: 0) {
            t.close()
            body()
        }
    }

    /// `artwork.status`: the helper, the cache and what was resolved.
    var statusJSON: JSON {
        [
            "helper": ["pid": helper.pid.map { .int(Int64($0)) } ?? .null, "restarts": .int(Int64(helper.restarts)),
                       "lastExit": helper.lastExit.map { .string($0) } ?? .null],
            "cache": ["directory": .string(cache.directory), "bytes": .int(Int64(cache.totalBytes)),
                      "limitBytes": .int(Int64(cache.limitBytes)), "files": .int(Int64(cache.files.count)),
                      "evictions": .int(Int64(cache.evictions)), "discarded": .int(Int64(cache.discarded))],
            "fetching": .int(Int64(fetchers.reduce(0) { $0 + $1.load })),
            "resolved": .int(Int64(resolvedCount)),
            "failed": .int(Int64(failedCount)),
            "staleDropped": .int(Int64(state.staleDropped)),
        ]
    }
}
