import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostConfig

/// The configuration's TOML reader against toml-test's TOML 1.0 cases (Fixtures/toml-test: the
/// files `tests/files-toml-1.0.0` lists, MIT licensed): every valid document parses to exactly
/// the expected tagged JSON, every invalid one is refused.
@Suite struct TOMLConformanceTests {
    static let root: String = {
        let here = #filePath
        return String(here[..<(here.lastIndex(of: "/") ?? here.endIndex)]) + "/Fixtures/toml-test"
    }()

    static func read(_ path: String) -> [UInt8]? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buf, 1, buf.count, f)
            if n <= 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return out
    }

    static var cases: [String] {
        guard let list = read(root + "/files-toml-1.0.0") else { return [] }
        return String(decoding: list, as: UTF8.self).split(separator: "\n").map(String.init).filter { $0.hasSuffix(".toml") }
    }

    /// toml-test's tagged JSON for a parsed value.
    static func tagged(_ v: TOMLValue) -> JSON {
        func tag(_ type: String, _ value: String) -> JSON { .object(["type": .string(type), "value": .string(value)]) }
        switch v {
        case .string(let s): return tag("string", s)
        case .integer(let i): return tag("integer", String(i))
        case .float(let d): return tag("float", d.isNaN ? "nan" : d.isInfinite ? (d < 0 ? "-inf" : "inf") : String(d))
        case .boolean(let b): return tag("bool", b ? "true" : "false")
        case .dateTime(let d): return tag(d.kind.rawValue, d.text)
        case .array(let items): return .array(items.map(tagged))
        case .table(let t): return .object(Dictionary(uniqueKeysWithValues: t.entries.map { ($0.key, tagged($0.value)) }))
        }
    }

    /// Equal as toml-test compares: floats and date-times by value, the rest exactly.
    static func same(_ a: JSON, _ b: JSON) -> Bool {
        switch (a, b) {
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(same)
        case (.object(let x), .object(let y)):
            if let tx = x["type"]?.stringValue, let ty = y["type"]?.stringValue, x.count == 2, y.count == 2,
               let vx = x["value"]?.stringValue, let vy = y["value"]?.stringValue {
                guard tx == ty else { return false }
                switch tx {
                case "float":
                    if vx == vy { return true }
                    let dx = Double(vx.replacingAll("_", "")), dy = Double(vy.replacingAll("_", ""))
                    if let dx, let dy, dx.isNaN && dy.isNaN { return true }
                    return dx != nil && dx == dy
                case "datetime", "datetime-local", "date-local", "time-local":
                    return normalizedTime(vx) == normalizedTime(vy)
                default: return vx == vy
                }
            }
            return Set(x.keys) == Set(y.keys) && x.allSatisfy { k, v in y[k].map { same(v, $0) } ?? false }
        default: return a == b
        }
    }

    /// `T`/`Z` upper case, fractional seconds without trailing zeros, `+00:00` as `Z`.
    static func normalizedTime(_ s: String) -> String {
        var t = s.uppercased().replacingAll(" ", "T").replacingAll("+00:00", "Z").replacingAll("-00:00", "Z")
        if let dot = t.firstIndex(of: ".") {
            let frac = t[t.index(after: dot)...].prefix { $0.isNumber }
            let trimmed = String(frac.reversed().drop { $0 == "0" }.reversed())
            t = String(t[..<dot]) + (trimmed.isEmpty ? "" : "." + trimmed) + t[t.index(after: dot)...].dropFirst(frac.count)
        }
        return t
    }

    @Test func everyValidCaseParsesToItsExpectedValue() throws {
        let valid = Self.cases.filter { $0.hasPrefix("valid/") }
        #expect(valid.count > 150, "the fixture list was read")
        var failures: [String] = []
        for name in valid {
            guard let toml = Self.read(Self.root + "/" + name),
                  let json = Self.read(Self.root + "/" + name.dropLast(5) + ".json") else {
                failures.append("\(name): fixture missing")
                continue
            }
            do {
                let table = try TOMLParser.parse(bytes: toml)
                let expected = try JSONParser.parse(json)
                if !Self.same(Self.tagged(.table(table)), expected) { failures.append("\(name): different value") }
            } catch {
                failures.append("\(name): \(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of \(valid.count) valid cases failed:\n\(failures.joined(separator: "\n"))")
    }

    @Test func everyInvalidCaseIsRefused() {
        let invalid = Self.cases.filter { $0.hasPrefix("invalid/") }
        #expect(invalid.count > 300, "the fixture list was read")
        var accepted: [String] = []
        for name in invalid {
            guard let toml = Self.read(Self.root + "/" + name) else {
                accepted.append("\(name): fixture missing")
                continue
            }
            if (try? TOMLParser.parse(bytes: toml)) != nil { accepted.append(name) }
        }
        #expect(accepted.isEmpty, "\(accepted.count) of \(invalid.count) invalid cases were accepted:\n\(accepted.joined(separator: "\n"))")
    }

    @Test func hostileNestingAndErrorsWithTheirPlace() {
        let deep = "a = " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: TOMLParseError.self) { try TOMLParser.parse(deep) }
        let inline = "a = " + String(repeating: "{b = ", count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        #expect(throws: TOMLParseError.self) { try TOMLParser.parse(inline) }
        do {
            _ = try TOMLParser.parse("a = 1\nb = \"open\n")
            Issue.record("an unterminated string was accepted")
        } catch {
            #expect(error.line == 2 && error.reason.contains("newline"), "\(error)")
        }
        #expect(throws: TOMLParseError.self) { try TOMLParser.parse(bytes: [0x61, 0x3D, 0x22, 0xFF, 0x22]) }
        #expect(throws: TOMLParseError.self) { try TOMLParser.parse("n = 9223372036854775808") }
        #expect((try? TOMLParser.parse("n = -9223372036854775808"))?["n"] == .integer(.min))
    }

    @Test func theWriterRoundTripsWhatTheParserReads() throws {
        let text = """
            title = "x \\"quoted\\" \\t tab"
            n = 3
            f = 1e300
            list = [1, 2.5, "s", [true]]
            inline = { a = 1, "b c" = { d = [] } }
            [server]
            host = "h"
            [[server.route]]
            path = "/"
            [[server.route]]
            path = "/a"
            [server.route.limits]
            max = 5
            """
        let table = try TOMLParser.parse(text)
        var out = ""
        TOMLWriter.write(table, path: [], into: &out)
        #expect(try TOMLParser.parse(out) == table, "written:\n\(out)")
    }
}

extension String {
    fileprivate func replacingAll(_ a: String, _ b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }
}
