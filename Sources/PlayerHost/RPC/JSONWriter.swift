import PlayerHostBase

/// Compact, deterministic JSON serialization.
///
/// Output has no insignificant whitespace and object keys sorted byte-wise by their UTF-8, so the
/// same value always serializes to the same bytes (handy for tests, logs and caching). Strings
/// escape only what RFC 8259 requires: `"`, `\` and control characters (as `\n`, `\r`, `\t`,
/// `\b`, `\f`, otherwise `\u00XX`); other text, including non-ASCII, is written as UTF-8.
/// Doubles use Swift's shortest round-trip form (`3.0`, `0.1`, `1e+16`); NaN and infinities have
/// no JSON spelling and are written as `null`.
extension JSON {
    /// Appends the compact JSON text of this value to `out`.
    public func write(into out: inout [UInt8]) {
        switch self {
        case .null: Self.appendASCII("null", to: &out)
        case .bool(let value): Self.appendASCII(value ? "true" : "false", to: &out)
        case .int(let value): Self.writeInt(value, into: &out)
        case .double(let value): Self.writeDouble(value, into: &out)
        case .string(let value): Self.writeString(value, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            Self.writeMembers(members, into: &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The compact JSON text of this value as UTF-8 bytes.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        write(into: &out)
        return out
    }

    /// The compact JSON text of this value.
    public var jsonString: String {
        String(decoding: serialized(), as: UTF8.self)
    }

    /// Appends `s` as a quoted, escaped JSON string to `out`.
    ///
    /// For code that writes JSON envelopes by hand around pre-serialized parts.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        if s.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &out) }) == nil {
            var s = s  // Not contiguous UTF-8 (e.g. bridged); `withUTF8` makes it so.
            s.withUTF8 { appendEscaped($0, to: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    // MARK: Pieces

    /// Writes `key:value` pairs in byte-wise key order. Sorts the members in a temporary
    /// (usually stack) buffer, so no array is allocated per object.
    private static func writeMembers(_ members: [String: JSON], into out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: (key: String, value: JSON).self, capacity: members.count) { buffer in
            var sorted = buffer
            _ = sorted.initialize(from: members)
            sorted.sort { utf8Precedes($0.key, $1.key) }
            for position in sorted.indices {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                writeString(sorted[position].key, into: &out)
                out.append(UInt8(ascii: ":"))
                sorted[position].value.write(into: &out)
            }
            _ = sorted.deinitialize()
        }
    }

    /// Byte-wise UTF-8 order. `String`'s `<` compares canonical equivalents as equal and orders
    /// by normalized form, which would make the output depend on normalization.
    @inline(__always)
    private static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        let result = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in
                for i in 0..<min(a.count, b.count) where a[i] != b[i] {
                    return a[i] < b[i]
                }
                return a.count < b.count
            }
        }
        return (result ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    @inline(__always)
    private static func appendASCII(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Decimal digits without going through `String`, which would cost an allocation for
    /// numbers longer than a small string.
    private static func writeInt(_ value: Int64, into out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 {
            out.append(UInt8(ascii: "0") + UInt8(magnitude))
            return
        }
        // 20 digits hold UInt64.max; fill from the right, then append the used tail.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var index = digits.count
            while magnitude > 0 {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[index...]))
        }
    }

    private static func writeDouble(_ value: Double, into out: inout [UInt8]) {
        guard value.isFinite else {
            // JSON has no NaN or infinity; `null` keeps the output parseable.
            appendASCII("null", to: &out)
            return
        }
        // Swift's description is the shortest text that round-trips, and is always valid JSON
        // number syntax for finite values (`-0.0`, `5e-324`, `1e+16`).
        var text = value.description
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    /// Appends UTF-8 `bytes` with the RFC 8259 mandatory escapes, copying unescaped runs whole.
    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var runStart = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            if runStart < index {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            }
            out.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            default:
                let hexDigits: StaticString = "0123456789abcdef"
                out.append(UInt8(ascii: "u"))
                out.append(UInt8(ascii: "0"))
                out.append(UInt8(ascii: "0"))
                out.append(hexDigits.utf8Start[Int(byte >> 4)])
                out.append(hexDigits.utf8Start[Int(byte & 0x0F)])
            }
            index += 1
            runStart = index
        }
        if runStart < index {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
        }
    }
}

extension JSON: CustomStringConvertible {
    /// The compact JSON text, so logging or interpolating a value shows valid JSON.
    public var description: String { jsonString }
}
