/// The MPRIS metadata values that both the daemon's export (`MPRISProperties`) and npctl
/// (`PlayerctlView`, `InfoSnapshot`) compute, written once so they cannot drift: for one track,
/// `playerctl -p playerhost metadata`, `npctl metadata` and npctl's event-driven lines print the
/// same `mpris:trackid` and `xesam:url`.
public enum MPRISValues {
    /// `mpris:trackid`: `/org/playerhost/track/s<hash of session>_<hash of item key>`. It
    /// changes with the item and on a hand-off to another session, and stays for the same item
    /// played again (repeat one), as MPRIS wants.
    public static func trackID(session: String, itemKey: String) -> String {
        "/org/playerhost/track/s\(hex(session))_\(hex(itemKey))"
    }

    /// What tells one item from the next: its queue index (`-` without one), title, artist,
    /// album and asset URL (their `und` text; empty when absent) and duration (Swift's
    /// `String(Double)`; empty when absent), joined by U+001F.
    public static func itemKey(queueIndex: Int64?, texts: [String?], duration: Double?) -> String {
        var parts = [queueIndex.map { String($0) } ?? "-"]
        for t in texts { parts.append(t ?? "") }
        parts.append(duration.map { String($0) } ?? "")
        return parts.joined(separator: "\u{1F}")
    }

    /// `xesam:url`, a URI as MPRIS requires: an absolute path becomes a `file://` URI with every
    /// byte outside RFC 3986's unreserved set (and `/`) percent-encoded (`/m/a b#1.flac` →
    /// `file:///m/a%20b%231.flac`); anything else (`https://…`, `file://…`) is already one and
    /// is kept as is.
    public static func uri(_ location: String) -> String {
        guard location.hasPrefix("/") else { return location }
        return "file://" + percentEncodedPath(location)
    }

    /// Percent-encodes a path's bytes for a URI (uppercase hex), keeping `A–Z a–z 0–9 - . _ ~ /`.
    public static func percentEncodedPath(_ path: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        for b in path.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.append(b)
            default:
                out += [UInt8(ascii: "%"), digits[Int(b >> 4)], digits[Int(b & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// An object-path-safe hash (FNV-1a, 64 bits, 16 hex digits): stable across runs.
    public static func hex(_ s: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        let digits = String(h, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
