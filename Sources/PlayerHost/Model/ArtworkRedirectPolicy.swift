/// Which addresses an artwork fetch may reach (issue 21): a URL given directly may point anywhere
/// (Jellyfin covers live on the LAN, a local server on loopback), but a redirect may never lead
/// further inward than where the fetch started — public to private or loopback, private to
/// loopback — so a server on the internet cannot make the daemon fetch from inside the network.
///
/// Pure: the helper resolves and connects, then asks `allows(first:next:)` with the address
/// bytes of each connection before any request is sent on it.
public enum ArtworkRedirectPolicy {
    /// How far inside an address is, from the fetching host's point of view.
    public enum Reach: Int, Sendable, Comparable, CustomStringConvertible {
        /// The internet (and anything not listed below, e.g. the 198.18.0.0/15 benchmark range).
        case publicAddress = 0
        /// The local network: RFC 1918, carrier-grade NAT, link-local, IPv6 unique-local.
        case privateAddress = 1
        /// This host: 127.0.0.0/8, 0.0.0.0/8, ::1, ::.
        case loopback = 2

        public static func < (a: Reach, b: Reach) -> Bool { a.rawValue < b.rawValue }

        public var description: String {
            switch self {
            case .publicAddress: return "public"
            case .privateAddress: return "private"
            case .loopback: return "loopback"
            }
        }
    }

    /// The reach of an address given as its network-order bytes (4 for IPv4, 16 for IPv6; an
    /// IPv4-mapped IPv6 address counts as its IPv4 one). Nil for any other length.
    public static func reach(_ address: [UInt8]) -> Reach? {
        switch address.count {
        case 4:
            let a = address[0], b = address[1]
            if a == 127 || a == 0 { return .loopback }
            if a == 10 { return .privateAddress }
            if a == 172 && (16...31).contains(b) { return .privateAddress }
            if a == 192 && b == 168 { return .privateAddress }
            if a == 169 && b == 254 { return .privateAddress }
            if a == 100 && (64...127).contains(b) { return .privateAddress }
            return .publicAddress
        case 16:
            if address[0..<10].allSatisfy({ $0 == 0 }) && address[10] == 0xFF && address[11] == 0xFF {
                return reach(Array(address[12..<16]))
            }
            if address[0..<15].allSatisfy({ $0 == 0 }) && (address[15] == 1 || address[15] == 0) { return .loopback }
            if address[0] & 0xFE == 0xFC { return .privateAddress }                    // fc00::/7
            if address[0] == 0xFE && address[1] & 0xC0 == 0x80 { return .privateAddress }  // fe80::/10
            return .publicAddress
        default:
            return nil
        }
    }

    /// Whether a connection to `next` may carry a request of a fetch whose first connection went
    /// to `first`: never further inward. An address that cannot be read is refused.
    public static func allows(first: [UInt8], next: [UInt8]) -> Bool {
        guard let from = reach(first), let to = reach(next) else { return false }
        return to <= from
    }
}
