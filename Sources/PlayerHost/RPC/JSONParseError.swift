/// Why a JSON document was rejected, and where.
///
/// The parser stops at the first problem it finds; `offset` is the zero-based byte index into the
/// input of the byte that made the document invalid (or the input's length when it ended early),
/// so a caller can log it or point a client at the fault without re-scanning.
public struct JSONParseError: Error, Equatable, Hashable, CustomStringConvertible {
    /// A short, human-readable reason, e.g. `"leading zeros are not allowed"`.
    public var message: String
    /// Zero-based byte offset into the input where the problem was detected.
    public var offset: Int

    /// Creates an error with a reason and the byte offset it refers to.
    public init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    /// `"<message> at byte <offset>"`.
    public var description: String { "\(message) at byte \(offset)" }
}
