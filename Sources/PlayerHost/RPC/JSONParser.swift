import PlayerHostBase

/// A strict RFC 8259 JSON parser for untrusted input.
///
/// Accepts exactly one JSON value, optionally surrounded by JSON whitespace (space, tab, CR, LF),
/// and rejects everything the RFC does not allow: trailing garbage, leading zeros, `+1`, `.5`,
/// `1.`, `NaN`/`Infinity`, raw control characters in strings, unknown escapes, unpaired UTF-16
/// surrogate escapes and malformed UTF-8 (overlong forms, encoded surrogates, truncated sequences,
/// bytes 0xF5–0xFF). A byte-order mark is not whitespace and is rejected too.
///
/// Numbers written as integers (no fraction, no exponent) that fit in `Int64` become `.int`; all
/// other numbers become `.double`, correctly rounded. `-0` becomes `.double(-0.0)` so its sign
/// survives a round trip. Numbers whose magnitude overflows `Double` are rejected rather than
/// turned into infinity, which the writer could not represent. Duplicate object keys: the last
/// one wins. Keys are Swift `String`s, whose equality is Unicode canonical equivalence, so a
/// precomposed and a decomposed spelling of the same key (`"é"`, `"e\u0301"`) are duplicates too.
///
/// The parser recurses once per nesting level, so `maxDepth` also bounds its stack use; the
/// default of 256 keeps that to a small fraction of a thread stack. Raising it to many thousands
/// gives that safety up.
public enum JSONParser {
    /// Parses one JSON document from raw UTF-8 bytes.
    ///
    /// - Parameters:
    ///   - bytes: The complete document. Not retained after the call returns.
    ///   - maxDepth: How many arrays/objects may be nested inside one another; one more is an
    ///     error. `0` allows only scalar documents.
    /// - Throws: `JSONParseError` describing the first problem and its byte offset.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 256) throws(JSONParseError) -> JSON {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw JSONParseError(message: "unexpected end of input", offset: 0)
        }
        // Reading the caller's bytes as UInt8 is the same access the raw-buffer subscript does;
        // a typed pointer just lets the scanner use unaligned word loads and slices directly.
        var reader = JSONReader(
            base: base.assumingMemoryBound(to: UInt8.self), count: bytes.count, maxDepth: maxDepth)
        return try reader.parseDocument()
    }

    /// Parses one JSON document from a byte array. See `parse(_:maxDepth:)` for the rules.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 256) throws(JSONParseError) -> JSON {
        // `withUnsafeBytes` only rethrows untyped errors; a Result keeps the error type intact.
        try bytes.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) -> JSON in try parse(raw, maxDepth: maxDepth) }
        }.get()
    }

    /// Parses one JSON document from a string's UTF-8. See `parse(_:maxDepth:)` for the rules.
    public static func parse(_ string: String, maxDepth: Int = 256) throws(JSONParseError) -> JSON {
        var string = string  // `withUTF8` is mutating; native strings are not copied.
        return try string.withUTF8 { utf8 in
            Result { () throws(JSONParseError) -> JSON in
                try parse(UnsafeRawBufferPointer(utf8), maxDepth: maxDepth)
            }
        }.get()
    }
}
