import CCurl
import PlayerHostBase

/// HTTP(S) fetches on the loop: one libcurl multi handle driven by libuv, the libuv guide's
/// pattern — curl says which sockets to watch (`CURLMOPT_SOCKETFUNCTION`, an `FDPoll` each) and
/// when to call back (`CURLMOPT_TIMERFUNCTION`, one `Timer`); readiness and the timer go back to
/// `curl_multi_socket_action`. Nothing blocks the loop, and nothing is armed while idle.
///
/// Every fetch is bounded: a total timeout, a size cap (the transfer is aborted past it), capped
/// redirects, http and https only. Results come back on a later loop turn, never from inside
/// `fetch`.
public final class CurlMulti {
    /// The bounds of one fetch.
    public struct Limits: Sendable, Equatable {
        public var timeoutMilliseconds: Int = 10_000
        public var maxBytes: Int = 16 << 20
        public var maxRedirects: Int = 5
        public init() {}
    }

    /// Why a fetch failed; `description` is the reason faults show.
    public enum FetchError: Error, Equatable, CustomStringConvertible {
        case tooLarge(limit: Int)
        case timedOut(milliseconds: Int)
        case httpStatus(Int)
        case transport(String)
        case cancelled

        public var description: String {
            switch self {
            case .tooLarge(let limit): return "the body is larger than the \(limit)-byte limit"
            case .timedOut(let ms): return "no complete answer within \(ms) ms"
            case .httpStatus(let code): return "the server answered HTTP \(code)"
            case .transport(let message): return message
            case .cancelled: return "cancelled"
            }
        }
    }

    /// One transfer in flight; the curl easy handle's private pointer refers to it.
    final class Transfer {
        let token: Int
        let easy: UnsafeMutableRawPointer
        let limits: Limits
        var body: [UInt8] = []
        var overLimit = false
        var completion: ((Result<[UInt8], FetchError>) -> Void)?
        init(token: Int, easy: UnsafeMutableRawPointer, limits: Limits, completion: @escaping (Result<[UInt8], FetchError>) -> Void) {
            self.token = token
            self.easy = easy
            self.limits = limits
            self.completion = completion
        }
    }

    public let loop: EventLoop
    private var multi: UnsafeMutableRawPointer?
    private var timer: Timer?
    private var polls: [Int32: FDPoll] = [:]
    private var transfers: [Int: Transfer] = [:]
    private var nextToken = 1
    /// Transfers in flight (tests and stats).
    public var activeCount: Int { transfers.count }

    public init(loop: EventLoop) throws(LoopError) {
        self.loop = loop
        CurlMulti.globalInit
        guard let m = curl_multi_init() else { throw LoopError(code: -12, operation: "curl_multi_init") }
        multi = m
        timer = try Timer(loop: loop)
        let me = Unmanaged.passUnretained(self).toOpaque()
        ph_curl_multi_set_callbacks(m, { _, fd, what, user, _ in
            Unmanaged<CurlMulti>.fromOpaque(user!).takeUnretainedValue().watch(fd: fd, what: what)
            return 0
        }, { _, timeout, user in
            Unmanaged<CurlMulti>.fromOpaque(user!).takeUnretainedValue().armTimer(timeout)
            return 0
        }, me)
    }

    /// curl_global_init once per process, before the first multi handle.
    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Starts fetching `url`; `completion` runs once on a later loop turn with the body or why
    /// not. Returns a token for `cancel`.
    @discardableResult
    public func fetch(_ url: String, limits: Limits = Limits(), completion: @escaping (Result<[UInt8], FetchError>) -> Void) -> Int {
        let token = nextToken
        nextToken += 1
        guard let multi, let easy = curl_easy_init() else {
            later { completion(.failure(.transport("the HTTP client is closed"))) }
            return token
        }
        let t = Transfer(token: token, easy: easy, limits: limits, completion: completion)
        transfers[token] = t
        let user = Unmanaged.passUnretained(t).toOpaque()
        ph_curl_easy_setopt_str(easy, CURLOPT_URL, url)
        ph_curl_easy_setopt_ptr(easy, CURLOPT_PRIVATE, user)
        ph_curl_easy_set_write(easy, { data, size, count, user in
            let t = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            let n = size * count
            if t.body.count + n > t.limits.maxBytes {
                t.overLimit = true
                return 0  // curl aborts the transfer (CURLE_WRITE_ERROR)
            }
            if n > 0, let data { t.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: n)) }
            return n
        }, user)
        ph_curl_easy_setopt_str(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        ph_curl_easy_setopt_str(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        ph_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1)
        ph_curl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, limits.maxRedirects)
        ph_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, limits.timeoutMilliseconds)
        ph_curl_easy_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limits.maxBytes))
        ph_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        ph_curl_easy_setopt_str(easy, CURLOPT_USERAGENT, "playerhost/\(HostVersion.string)")
        let status = curl_multi_add_handle(multi, easy)
        if status != CURLM_OK {
            finish(t, .failure(.transport(String(cString: curl_multi_strerror(status)))))
        }
        return token
    }

    /// Stops a transfer; its completion never runs. Unknown or finished tokens are ignored.
    public func cancel(_ token: Int) {
        guard let t = transfers.removeValue(forKey: token) else { return }
        t.completion = nil
        if let multi { curl_multi_remove_handle(multi, t.easy) }
        curl_easy_cleanup(t.easy)
    }

    /// Cancels every transfer and closes the handles (shutdown).
    public func close() {
        for token in Array(transfers.keys) { cancel(token) }
        for p in polls.values { p.close() }
        polls.removeAll()
        timer?.close()
        timer = nil
        if let multi { curl_multi_cleanup(multi) }
        multi = nil
    }

    // MARK: - curl's callbacks

    private func watch(fd: Int32, what: Int32) {
        if what == CURL_POLL_REMOVE {
            polls.removeValue(forKey: fd)?.close()
            return
        }
        var events: FDPoll.Events = []
        if what & CURL_POLL_IN != 0 { events.insert(.readable) }
        if what & CURL_POLL_OUT != 0 { events.insert(.writable) }
        let poll: FDPoll
        if let p = polls[fd] {
            poll = p
        } else {
            guard let p = try? FDPoll(loop: loop, fileDescriptor: fd) else { return }
            polls[fd] = p
            poll = p
        }
        try? poll.start(events) { [weak self] result in
            guard let self, let multi = self.multi else { return }
            var flags: Int32 = 0
            switch result {
            case .success(let ev):
                if ev.contains(.readable) { flags |= CURL_CSELECT_IN }
                if ev.contains(.writable) { flags |= CURL_CSELECT_OUT }
            case .failure:
                flags = CURL_CSELECT_ERR
            }
            var running: Int32 = 0
            curl_multi_socket_action(multi, fd, flags, &running)
            self.collect()
        }
    }

    private func armTimer(_ timeout: Int) {
        guard let timer else { return }
        guard timeout >= 0 else { timer.stop(); return }
        timer.start(after: UInt64(timeout)) { [weak self] in
            guard let self, let multi = self.multi else { return }
            var running: Int32 = 0
            curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running)
            self.collect()
        }
    }

    /// Hands every finished transfer its result.
    private func collect() {
        guard let multi else { return }
        var code = CURLE_OK
        while let easy = ph_curl_multi_next_done(multi, &code) {
            guard let p = ph_curl_easy_private(easy) else { continue }
            let t = Unmanaged<Transfer>.fromOpaque(p).takeUnretainedValue()
            guard transfers[t.token] === t else { continue }
            let result: Result<[UInt8], FetchError>
            if t.overLimit || code == CURLE_FILESIZE_EXCEEDED {
                result = .failure(.tooLarge(limit: t.limits.maxBytes))
            } else if code == CURLE_OPERATION_TIMEDOUT {
                result = .failure(.timedOut(milliseconds: t.limits.timeoutMilliseconds))
            } else if code != CURLE_OK {
                result = .failure(.transport(String(cString: curl_easy_strerror(code))))
            } else {
                let status = ph_curl_easy_response_code(easy)
                result = (200..<300).contains(status) ? .success(t.body) : .failure(.httpStatus(status))
            }
            finish(t, result)
        }
    }

    private func finish(_ t: Transfer, _ result: Result<[UInt8], FetchError>) {
        let completion = t.completion
        transfers.removeValue(forKey: t.token)
        if let multi { curl_multi_remove_handle(multi, t.easy) }
        curl_easy_cleanup(t.easy)
        t.completion = nil
        later { completion?(result) }
    }

    /// Runs `body` on a later loop turn.
    private func later(_ body: @escaping () -> Void) {
        guard let t = try? Timer(loop: loop) else { return }
        t.start(after: 0) {
            t.close()
            body()
        }
    }
}
