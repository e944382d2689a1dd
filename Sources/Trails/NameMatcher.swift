import Foundation

/// Turns search text into an FTS5 query that ignores case and accents, takes every word as a
/// prefix, and tolerates typos: each word also matches the index's terms within a small edit
/// distance (Damerau-Levenshtein: 1 for words of 4-6 letters, 2 from 7; none below 4), so
/// "Bear Lake Trial" finds "Bear Lake Trail".
enum NameMatcher {
    /// Lowercased words without diacritics.
    static func words(_ text: String) -> [String] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
        return folded.split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    static func allowedEdits(_ word: String) -> Int {
        switch word.count {
        case ..<4: 0
        case 4...6: 1
        default: 2
        }
    }

    /// The FTS5 MATCH expression for `words` given the index's vocabulary; nil for no words.
    static func ftsQuery(_ words: [String], vocabulary: [String]) -> String? {
        guard !words.isEmpty else { return nil }
        return words.map { word in
            var alternatives = ["\(quote(word))*"]
            let k = allowedEdits(word)
            if k > 0 {
                let w = Array(word.unicodeScalars)
                for term in vocabulary where term != word && !term.hasPrefix(word) {
                    let t = Array(term.unicodeScalars)
                    if abs(t.count - w.count) <= k, distance(w, t, limit: k) <= k { alternatives.append(quote(term)) }
                }
            }
            return "(" + alternatives.joined(separator: " OR ") + ")"
        }.joined(separator: " AND ")
    }

    static func quote(_ term: String) -> String { "\"" + term.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// Optimal-string-alignment distance (Damerau-Levenshtein with adjacent transpositions),
    /// stopping early once every cell of a row exceeds `limit`.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMin = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { v = min(v, previous2[j - 2] + 1) }
                current[j] = v
                rowMin = min(rowMin, v)
            }
            if rowMin > limit { return limit + 1 }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
