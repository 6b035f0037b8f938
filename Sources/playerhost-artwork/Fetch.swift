import CCurl
import Glibc
import PlayerHost

/// An http(s) fetch in the helper (issue 21): the body is held here, never in the daemon, and
/// bounded — a total timeout, a size cap (the transfer is aborted past it), capped redirects,
/// http and https only, and no redirect that leads further inward than where the fetch started
/// (`ArtworkRedirectPolicy`), checked on each connection before a request is sent on it.
final class Fetch {
    struct Limits {
        var timeoutMilliseconds = 10_000
        var maxBytes = 16 << 20
        var maxRedirects = 5
    }

    struct Failed: Error { var message: String }

    let limits: Limits
    private var body: [UInt8] = []
    private var overLimit = false
    private var first: [UInt8]?
    private var refused: String?

    init(limits: Limits) { self.limits = limits }

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// The body of `url` (a 2xx answer), or why not.
    static func get(_ url: String, limits: Limits) throws(Failed) -> [UInt8] {
        Fetch.globalInit
        let fetch = Fetch(limits: limits)
        guard let easy = curl_easy_init() else { throw Failed(message: "the HTTP client could not start") }
        defer { curl_easy_cleanup(easy) }
        let code: CURLcode = withExtendedLifetime(fetch) {
            let user = Unmanaged.passUnretained(fetch).toOpaque()
            ph_curl_easy_setopt_str(easy, CURLOPT_URL, url)
            ph_curl_easy_set_write(easy, { data, size, count, user in
                guard let user else { return 0 }
                let f = Unmanaged<Fetch>.fromOpaque(user).takeUnretainedValue()
                let (n, overflow) = size.multipliedReportingOverflow(by: count)
                // (body.count never exceeds maxBytes, so the subtraction cannot overflow.)
                guard !overflow, n <= f.limits.maxBytes - f.body.count else {
                    f.overLimit = true
                    return 0  // curl aborts the transfer (CURLE_WRITE_ERROR)
                }
                if n > 0, let data { f.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: n)) }
                return n
            }, user)
            ph_curl_easy_set_prereq(easy, { user, ip, _, _, _ in
                guard let user, let ip else { return 1 }
                let f = Unmanaged<Fetch>.fromOpaque(user).takeUnretainedValue()
                return f.connected(to: String(cString: ip)) ? 0 : 1
            }, user)
            ph_curl_easy_setopt_str(easy, CURLOPT_PROTOCOLS_STR, "http,https")
            ph_curl_easy_setopt_str(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
            ph_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1)
            ph_curl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, limits.maxRedirects)
            ph_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, limits.timeoutMilliseconds)
            ph_curl_easy_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limits.maxBytes))
            ph_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
            ph_curl_easy_setopt_str(easy, CURLOPT_USERAGENT, "playerhost/\(HostVersion.string)")
            return curl_easy_perform(easy)
        }
        if let refused = fetch.refused { throw Failed(message: refused) }
        if fetch.overLimit || code == CURLE_FILESIZE_EXCEEDED {
            throw Failed(message: "the body is larger than the \(limits.maxBytes)-byte limit")
        }
        if code == CURLE_OPERATION_TIMEDOUT { throw Failed(message: "no complete answer within \(limits.timeoutMilliseconds) ms") }
        if code != CURLE_OK { throw Failed(message: String(cString: curl_easy_strerror(code))) }
        let status = ph_curl_easy_response_code(easy)
        guard (200..<300).contains(status) else { throw Failed(message: "the server answered HTTP \(status)") }
        return fetch.body
    }

    /// The policy, on each connection about to carry a request: the first one sets where the
    /// fetch started; every later one (a redirect) may not lead further inward.
    private func connected(to ip: String) -> Bool {
        guard let address = Self.bytes(ip) else {
            refused = "cannot read the address \(ip)"
            return false
        }
        guard let first else {
            self.first = address
            return true
        }
        guard ArtworkRedirectPolicy.allows(first: first, next: address) else {
            let from = ArtworkRedirectPolicy.reach(first).map(String.init(describing:)) ?? "?"
            let to = ArtworkRedirectPolicy.reach(address).map(String.init(describing:)) ?? "?"
            refused = "a redirect from a \(from) address to a \(to) one (\(ip)) is refused"
            return false
        }
        return true
    }

    /// An IPv4 or IPv6 address's bytes.
    static func bytes(_ ip: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, ip, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, ip, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
