/// Lets npctl take its global options anywhere, as playerctl, git and systemctl do:
/// `npctl --session pip --json now` means `npctl now --session pip --json`. (playerctl's own
/// options are taken out before this, anywhere: `PlayerctlArguments`.)
///
/// The argument parser only knows options after the verb, so the command line is rearranged
/// before it parses: options before the verb move to just after the verb (and its sub-verb,
/// `daemon start`). Negative numbers and times after the verb (`position -5`, `position -1:30`)
/// would read as options, so they move behind a `--`. Anything else is left where it was, so
/// the parser's own errors and help are unchanged. An unknown verb is reported with the
/// closest known one.
public enum GlobalOptionHoisting {
    /// Global options that take a value.
    public static let valued: Set<String> = ["--socket", "--timeout", "--session", "--lang"]
    /// Global flags.
    public static let flags: Set<String> = ["--json"]
    /// Verb options that take a value, so a negative value after them stays theirs.
    static let verbValued: Set<String> = ["-f", "--format"]

    public enum Outcome: Equatable {
        /// The arguments to parse.
        case arguments([String])
        /// The verb is not known; the closest known one, if any is close.
        case unknownVerb(String, suggestion: String?)
    }

    /// Rearranges `args` (without the program name). `verbs` maps each verb and alias to its
    /// sub-verbs (empty for most).
    public static func arrange(_ args: [String], verbs: [String: [String]]) -> Outcome {
        var hoisted: [String] = []
        var i = 0
        while i < args.count {
            let a = args[i]
            if flags.contains(a) { hoisted.append(a); i += 1; continue }
            if valued.contains(a), i + 1 < args.count { hoisted += [a, args[i + 1]]; i += 2; continue }
            if let eq = a.firstIndex(of: "="), valued.contains(String(a[..<eq])) { hoisted.append(a); i += 1; continue }
            break
        }
        // No verb, or something before it that is not a global option (--help, --version): the
        // parser's business.
        guard i < args.count, !args[i].hasPrefix("-") else { return .arguments(args) }
        let verb = args[i]
        if verb == "help" { return .arguments(args) }
        guard let subverbs = verbs[verb] else {
            return .unknownVerb(verb, suggestion: VerbSuggestion.closest(to: verb, in: verbs.keys.sorted()))
        }
        var path = [verb]
        i += 1
        if i < args.count, subverbs.contains(args[i]) { path.append(args[i]); i += 1 }
        var rest: [String] = []
        var negatives: [String] = []
        var j = i
        while j < args.count {
            let a = args[j]
            if a == "--" { rest += args[j...]; break }
            let previous = rest.last ?? ""
            if isNegativeNumber(a), !valued.contains(previous), !verbValued.contains(previous) {
                negatives.append(a)
            } else {
                rest.append(a)
            }
            j += 1
        }
        if !negatives.isEmpty {
            if let dash = rest.firstIndex(of: "--") { rest.insert(contentsOf: negatives, at: dash + 1) } else { rest += ["--"] + negatives }
        }
        return .arguments(path + hoisted + rest)
    }

    /// True when `args` name a verb: a word that is not an option nor a global option's value
    /// (`npctl --lang es` has none: it means `npctl now --lang es`).
    public static func hasVerb(_ args: [String]) -> Bool {
        var i = 0
        while i < args.count {
            let a = args[i]
            if a == "--" { return false }
            if valued.contains(a) { i += 2; continue }
            if !a.hasPrefix("-") { return true }
            i += 1
        }
        return false
    }

    /// `-5`, `-1:30`, `-0.5`: a sign and digits, colons, dots — never an npctl option.
    static func isNegativeNumber(_ s: String) -> Bool {
        guard s.count >= 2, s.first == "-" else { return false }
        let body = s.dropFirst()
        return body.first?.isNumber == true && body.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ":" || $0 == ".") }
    }
}
