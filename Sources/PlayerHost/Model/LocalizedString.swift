import PlayerHostBase

/// A string that may exist in several languages: `{"und": "Magnificent", "es": "Magnífico"}`.
///
/// A plain string is stored under `und` (undetermined), which the WWDC22 notes recommend so that
/// every user sees it. Readers resolve with a language preference: exact tag, then the primary
/// subtag (`es-MX` → `es`), then `und`, then any value (smallest tag first, for determinism).
public struct LocalizedString: Sendable, Hashable, ExpressibleByStringLiteral {
    /// Language tag → text.
    public private(set) var values: [String: String]

    /// A value for every language (`und`).
    public init(_ text: String) { values = ["und": text] }

    public init(stringLiteral value: String) { self.init(value) }

    /// Per-language values; `nil` when empty.
    public init?(values: [String: String]) {
        guard !values.isEmpty else { return nil }
        self.values = values
    }

    /// Accepts a JSON string or an object of language tag → string; anything else is `nil`.
    ///
    /// The one wire decoder left in Model/, on purpose: npctl (Client/) reads the published info
    /// with it, and Client/ may not import the host, where every other decoder lives
    /// (scripts/check-layers.sh allows exactly this one).
    public init?(json: JSON) {
        switch json {
        case .string(let s):
            self.init(s)
        case .object(let o):
            var v: [String: String] = [:]
            for (tag, value) in o {
                guard !tag.isEmpty, let s = value.stringValue else { return nil }
                v[tag] = s
            }
            self.init(values: v)
        default:
            return nil
        }
    }

    /// The text for `language` (nil means no preference: `und`, then any).
    public func resolved(for language: String? = nil) -> String {
        if let language, !language.isEmpty {
            if let exact = values[language] { return exact }
            let lower = language.lowercased()
            if let ci = values.first(where: { $0.key.lowercased() == lower }) { return ci.value }
            let primary = lower.split(separator: "-").first.map(String.init) ?? lower
            if let p = values.first(where: { $0.key.lowercased() == primary }) { return p.value }
        }
        if let und = values["und"] { return und }
        return values.min(by: { $0.key < $1.key })?.value ?? ""
    }

    /// True when only an `und` value exists, i.e. it was given as a plain string.
    public var isPlain: Bool { values.count == 1 && values["und"] != nil }
}
