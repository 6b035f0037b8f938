import PlayerHostPluginAPI

/// What the importer takes from a desktop player, bounded: a peer on the session bus controls
/// every value here, so each is checked the way MPRIS reads out-of-range input — as absent —
/// and every string and list is capped before it is kept or passed on (issue 21).
///
/// - Times (`Position`, `Seeked`, `mpris:length`) are µs within 0 ... `Microseconds.maxSeconds`,
///   else unknown (a length of INT64_MAX is "no duration", a position of INT64_MIN "not known").
/// - `Rate` is finite and within (0, `maxRate`], else absent (1 while playing).
/// - Strings are at most `maxStringBytes` bytes of UTF-8, cut on a scalar boundary and ended
///   with "…"; URLs longer than that are dropped (a cut URL names something else); string lists
///   keep their first `maxListEntries`; `Metadata` keeps at most `maxMetadataEntries` entries.
/// - Of the Player interface's properties only the ones MPRIS defines are kept, so a player that
///   signals made-up names cannot grow what the importer holds.
extension MPRISImportMapping {
    /// The cap on one string from an imported player, in UTF-8 bytes (4 KiB).
    static let maxStringBytes = 4096
    /// The cap on the entries of a string list (`xesam:artist`, …).
    static let maxListEntries = 64
    /// The cap on the entries of `Metadata`.
    static let maxMetadataEntries = 64
    /// The largest `Rate` taken from a player, or sent to one.
    static let maxRate = 1000.0

    /// The Player interface's properties (MPRIS 2.2); anything else a player signals is ignored.
    static let playerProperties: Set<String> = [
        "PlaybackStatus", "LoopStatus", "Rate", "Shuffle", "Metadata", "Volume", "Position", "MinimumRate",
        "MaximumRate", "CanGoNext", "CanGoPrevious", "CanPlay", "CanPause", "CanSeek", "CanControl",
    ]

    /// Metadata keys the importer reads: kept first when a player sends more than the cap.
    static let usedMetadataKeys = ["mpris:trackid", "xesam:title", "xesam:artist", "xesam:album", "mpris:length",
                                   "mpris:artUrl", "xesam:url"]

    /// `s` within `maxBytes` bytes of UTF-8: unchanged when it fits, else cut on a Unicode scalar
    /// boundary and ended with "…" (the whole within `maxBytes`).
    static func text(_ s: String, maxBytes: Int = maxStringBytes) -> String {
        guard s.utf8.count > maxBytes else { return s }
        let ellipsis = "…"
        let budget = maxBytes - ellipsis.utf8.count
        guard budget > 0 else { return "" }
        var out = String.UnicodeScalarView()
        var used = 0
        for c in s.unicodeScalars {
            let w = UTF8.width(c)
            guard used + w <= budget else { break }
            used += w
            out.append(c)
        }
        return String(out) + ellipsis
    }

    /// A non-empty string value within the cap (nil: absent, empty or of another type).
    static func boundedText(_ v: DBusValue?) -> String? {
        guard let s = v?.stringValue, !s.isEmpty else { return nil }
        return text(s)
    }

    /// The app name an imported player's connection says in `host.hello`: its `Identity` within
    /// what the host takes (200 bytes, 128 characters, not blank), else `fallback` — a player
    /// whose Identity is 150 letters or spaces only is imported all the same.
    static func appName(_ identity: DBusValue?, fallback: String) -> String {
        guard let s = identity?.stringValue, s.contains(where: { $0 != " " }) else { return fallback }
        let cut = text(s, maxBytes: 200)
        return cut.count <= 128 ? cut : String(cut.prefix(127)) + "…"
    }

    /// The `DesktopEntry` an imported player gives, whole within the host's 255 bytes or not at
    /// all (a cut name would name another desktop file).
    static func desktopEntry(_ v: DBusValue?) -> String? {
        guard let s = v?.stringValue, !s.isEmpty, s.utf8.count <= 255 else { return nil }
        return s
    }

    /// A URL value, whole or not at all (nil: absent, empty, or longer than the cap).
    static func boundedURL(_ v: DBusValue?) -> String? {
        guard let s = v?.stringValue, !s.isEmpty, s.utf8.count <= maxStringBytes else { return nil }
        return s
    }

    /// A position or length in µs the host accepts (0 ... `Microseconds.maxMicroseconds`), else nil.
    static func microseconds(_ v: DBusValue?) -> Int64? {
        guard let us = v?.int64Value, Microseconds.boundedSeconds(us) != nil else { return nil }
        return us
    }

    /// A playback rate the host accepts: finite, above 0, at most `maxRate` (else nil).
    static func rate(_ v: DBusValue?) -> Double? {
        guard let r = v?.doubleValue, r.isFinite, r > 0, r <= maxRate else { return nil }
        return r
    }

    /// Player properties as kept: MPRIS's names only, `Metadata` bounded.
    static func bounded(properties p: [String: DBusValue]) -> [String: DBusValue] {
        var out: [String: DBusValue] = [:]
        for (key, value) in p where playerProperties.contains(key) {
            if key == "Metadata" {
                guard case .dictionary(let m) = value else { continue }
                out[key] = .dictionary(bounded(metadata: m))
            } else {
                out[key] = value
            }
        }
        return out
    }

    /// `Metadata` as kept: at most `maxMetadataEntries` entries (the ones the importer reads
    /// first), strings capped, lists cut, nested dictionaries dropped.
    static func bounded(metadata m: [String: DBusValue]) -> [String: DBusValue] {
        var out: [String: DBusValue] = [:]
        func keep(_ key: String, _ value: DBusValue) {
            switch value {
            case .string(let s):
                // URLs stay whole or go; other strings are cut.
                if key == "mpris:artUrl" || key == "xesam:url" {
                    if s.utf8.count <= maxStringBytes { out[key] = value }
                } else {
                    out[key] = .string(text(s))
                }
            case .objectPath(let s):
                if s.utf8.count <= maxStringBytes { out[key] = value }
            case .strings(let l):
                out[key] = .strings(l.prefix(maxListEntries).map { text($0) })
            case .dictionary:
                break
            case .boolean, .double, .int64:
                out[key] = value
            }
        }
        for key in usedMetadataKeys { if let v = m[key] { keep(key, v) } }
        guard m.count > out.count else { return out }
        // The rest in key order, so what is kept does not depend on hashing.
        for key in m.keys.sorted() where out.count < maxMetadataEntries && out[key] == nil && !usedMetadataKeys.contains(key) {
            guard key.utf8.count <= 256, let v = m[key] else { continue }
            keep(key, v)
        }
        return out
    }
}
