import ArgumentParser
import PlayerHostBase
import PlayerHostModel
import PlayerHostRPC

/// Left-aligned columns, two spaces apart, trailing spaces trimmed.
enum Table {
    static func render(_ rows: [[String]]) -> [String] {
        let widths = (0..<(rows.map(\.count).max() ?? 0)).map { c in rows.map { c < $0.count ? $0[c].count : 0 }.max() ?? 0 }
        return rows.map { row in
            var line = ""
            for (c, cell) in row.enumerated() {
                line += cell + String(repeating: " ", count: widths[c] - cell.count + 2)
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
