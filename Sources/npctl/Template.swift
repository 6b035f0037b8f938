import PlayerHost

/// A playerctl-style `--format` template: text with `{{expression}}` placeholders.
///
/// An expression is a name — `status`, `position`, `duration`, `session`, `playbackState` or
/// any info key (`artist`, `title`, `albumTitle`, …) — or a helper applied to one:
/// `duration(x)` (seconds as m:ss / h:mm:ss), `lc(x)`, `uc(x)`. An absent key prints nothing,
/// as in playerctl, so one template works for sessions with and without, say, an album.
/// The template is parsed once, up front, so a typo fails before anything is printed.
struct Template {
    private indirect enum Expr {
        case name(String)
        case call(String, Expr)
    }

    private enum Piece {
        case text(String)
        case expr(Expr)
    }

    private let pieces: [Piece]

    static let helpers: Set<String> = ["duration", "lc", "uc"]

    init(_ source: String) throws {
        var pieces: [Piece] = []
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { pieces.append(.text(String(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw Failure("--format: '{{' without '}}' in \(source)", code: 2)
            }
            pieces.append(.expr(try Self.parse(rest[open.upperBound..<close.lowerBound], in: source)))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        self.pieces = pieces
    }

    /// `name` or `helper(expr)`, spaces allowed around either.
    private static func parse(_ s: Substring, in source: String) throws -> Expr {
        let t = s.trimmingSpaces
        if let paren = t.firstIndex(of: "("), t.hasSuffix(")") {
            let helper = String(t[..<paren].trimmingSpaces)
            guard helpers.contains(helper) else {
                throw Failure("--format: unknown helper '\(helper)' (known: \(helpers.sorted().joined(separator: ", ")))", code: 2)
            }
            return .call(helper, try parse(t[t.index(after: paren)..<t.index(before: t.endIndex)], in: source))
        }
        guard !t.isEmpty, t.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }) else {
            throw Failure("--format: cannot read '{{\(s)}}' in \(source)", code: 2)
        }
        return .name(String(t))
    }

    /// The template filled in from `snapshot`.
    func render(_ snapshot: Snapshot) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let s): return s
            case .expr(let e): return Self.evaluate(e, snapshot).map(TimeText.text) ?? ""
            }
        }.joined()
    }

    private static func evaluate(_ e: Expr, _ snapshot: Snapshot) -> JSON? {
        switch e {
        case .name(let key):
            // Dotted names reach into `extra` (plugin keys): {{extra.station}}.
            let parts = key.split(separator: ".").map(String.init)
            var v = snapshot.value(parts[0])
            for p in parts.dropFirst() { v = v?[p] }
            return v
        case .call(let helper, let inner):
            guard let v = evaluate(inner, snapshot) else { return nil }
            switch helper {
            case "duration": return v.doubleValue.map { .string(TimeText.format($0)) } ?? v
            case "lc": return .string(TimeText.text(v).lowercased())
            default: return .string(TimeText.text(v).uppercased())
            }
        }
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}
