/// The known word closest to a mistyped one (`stauts` → `status`), by edit distance with
/// adjacent transpositions counted once (optimal string alignment), as git and cargo do.
public enum VerbSuggestion {
    /// The closest of `candidates` to `word`, when it is close enough to be a typo: within
    /// 1 edit for short words, 2 for words of 5+ letters, or a prefix of at least 3 letters.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let w = word.lowercased()
        let scored = candidates.map { (name: $0, distance: distance(w, $0.lowercased())) }
        // min(by:) keeps the first of equals, so ties go to the earlier candidate.
        if let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= (w.count >= 5 ? 2 : 1) {
            return best.name
        }
        if w.count >= 3, let p = candidates.first(where: { $0.lowercased().hasPrefix(w) }) { return p }
        return nil
    }

    /// Optimal string alignment distance.
    public static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[x.count][y.count]
    }
}
