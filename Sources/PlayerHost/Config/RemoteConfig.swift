import PlayerHostBase

/// `[remote]`: the web remote (issue 25), off unless the table is there with a `listen` address.
///
/// ```toml
/// [remote]
/// listen = "127.0.0.1:8470"   # loopback: plain HTTP; any other address is always TLS
/// pairing_code_s = 120        # how long a code of `npctl remote pair` is valid
/// max_connections = 64        # HTTP and WebSocket connections at once
/// max_connections_per_address = 16  # of them from one address (one LAN peer cannot take all)
/// max_message_kb = 16         # the largest WebSocket message a page may send
/// header_timeout_s = 10       # a request's headers must be complete within this (slowloris)
/// slow_reader_s = 10          # a page that does not take what it was sent within this is cut off
/// ```
public struct RemoteConfig: Codable, Sendable, Equatable {
    /// `listen`: `ADDRESS:PORT` (IPv4).
    public var listen: String?
    /// `pairing_code_s`: seconds a pairing code stays valid (default 120).
    public var pairingCodeSeconds: Int?
    /// `max_connections`: connections at once (default 64).
    public var maxConnections: Int?
    /// `max_connections_per_address`: connections at once from one peer address (default 16),
    /// so one machine on the network cannot take every connection and lock the phones out.
    public var maxConnectionsPerAddress: Int?
    /// `max_message_kb`: the largest message a page may send, KiB (default 16).
    public var maxMessageKB: Int?
    /// `header_timeout_s`: seconds for a request's headers (default 10).
    public var headerTimeoutSeconds: Int?
    /// `slow_reader_s`: seconds a page may take to take a message (default 10).
    public var slowReaderSeconds: Int?
    /// `page_dir`: where the page's files are (default: installed beside the daemon).
    public var pageDirectory: String?
    /// `certificate` and `key`: PEM files for TLS. Off loopback without them the daemon makes a
    /// self-signed pair in the state dir (`remote-cert.pem`, `remote-key.pem`).
    public var certificate: String?
    public var key: String?
    /// Where `listen` came from: nil for the config file, else the overlay's path
    /// (`remote.toml`, written by `npctl remote enable` / `disable`; see `RemoteOverlay`).
    /// Not a key of the file.
    public var source: String? = nil

    static let schema: [ConfigKey] = [
        ConfigKey("listen", .string),
        ConfigKey("pairing_code_s", .integer),
        ConfigKey("max_connections", .integer),
        ConfigKey("max_connections_per_address", .integer),
        ConfigKey("max_message_kb", .integer),
        ConfigKey("header_timeout_s", .integer),
        ConfigKey("slow_reader_s", .integer),
        ConfigKey("page_dir", .string),
        ConfigKey("certificate", .string),
        ConfigKey("key", .string),
    ]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case listen
        case pairingCodeSeconds = "pairing_code_s"
        case maxConnections = "max_connections"
        case maxConnectionsPerAddress = "max_connections_per_address"
        case maxMessageKB = "max_message_kb"
        case headerTimeoutSeconds = "header_timeout_s"
        case slowReaderSeconds = "slow_reader_s"
        case pageDirectory = "page_dir"
        case certificate
        case key
    }

    public init(listen: String? = nil) { self.listen = listen }

    /// `listen` split into an IPv4 address and a port, or nil when it is not `A.B.C.D:PORT`.
    public static func parse(listen: String) -> (address: String, port: Int)? {
        guard let colon = listen.lastIndex(of: ":") else { return nil }
        let address = String(listen[..<colon])
        guard let port = Int(listen[listen.index(after: colon)...]), (0...65_535).contains(port) else { return nil }
        let parts = address.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ p in p.count <= 3 && UInt8(p) != nil }) else { return nil }
        return (address, port)
    }

    /// True when the remote speaks TLS: a certificate given, or any address off loopback.
    public var usesTLS: Bool { certificate != nil || !(endpoint.map { Self.isLoopback($0.address) } ?? true) }

    /// True for 127.0.0.0/8, where plain HTTP is allowed.
    public static func isLoopback(_ address: String) -> Bool { address.hasPrefix("127.") }

    /// The address and port when the remote is on.
    public var endpoint: (address: String, port: Int)? { listen.flatMap(Self.parse(listen:)) }

    /// Refuses what cannot work, naming the key (`--check-config`).
    func validate(source: String) throws(ConfigError) {
        if let listen {
            guard let (address, _) = Self.parse(listen: listen) else {
                throw .config("\(source): remote.listen must be ADDRESS:PORT with an IPv4 address (\"127.0.0.1:8470\"), not '\(listen)'")
            }
            _ = address  // off loopback it is always TLS: the user's certificate, else a self-signed one
        }
        if (certificate == nil) != (key == nil) {
            throw .config("\(source): remote.certificate and remote.key go together")
        }
        for (name, value, range) in [("pairing_code_s", pairingCodeSeconds, 10...3600), ("max_connections", maxConnections, 1...10_000),
                                     ("max_connections_per_address", maxConnectionsPerAddress, 1...10_000),
                                     ("max_message_kb", maxMessageKB, 1...1024), ("header_timeout_s", headerTimeoutSeconds, 1...300),
                                     ("slow_reader_s", slowReaderSeconds, 1...300)] {
            if let value, !range.contains(value) {
                throw .config("\(source): remote.\(name) must be \(range.lowerBound)…\(range.upperBound), not \(value)")
            }
        }
    }
}
