/// The language a client reads localized values in: `--lang TAG`, else the POSIX locale
/// (`LC_ALL`, then `LC_MESSAGES`, then `LANG`), else none (the `und` value).
public enum LanguagePreference {
    /// A BCP 47 tag from a POSIX locale name: `es_ES.UTF-8` → `es-ES`, `de_DE@euro` → `de-DE`;
    /// `C` and `POSIX` (no language) → nil.
    public static func tag(fromLocale locale: String) -> String? {
        var s = Substring(locale)
        if let dot = s.firstIndex(of: ".") { s = s[..<dot] }
        if let at = s.firstIndex(of: "@") { s = s[..<at] }
        guard !s.isEmpty, s != "C", s != "POSIX" else { return nil }
        return s.replacingUnderscores
    }

    /// `explicit` when given (`--lang`), else from `environment` in POSIX precedence.
    public static func resolve(explicit: String?, environment: (String) -> String?) -> String? {
        if let explicit, !explicit.isEmpty { return explicit }
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let v = environment(name), !v.isEmpty { return tag(fromLocale: v) }
        }
        return nil
    }
}

extension Substring {
    fileprivate var replacingUnderscores: String { String(map { $0 == "_" ? "-" : $0 }) }
}
