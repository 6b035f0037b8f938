extension String {
    /// The text of a C `char` buffer up to its first NUL, or all of it when it has none: what
    /// `readlink`, `fgets` and the C libraries' error buffers fill. Bytes that are not UTF-8 are
    /// repaired (U+FFFD), never trapped on. (`String(cString:)` on an array is deprecated, and
    /// trusts the buffer to hold a NUL.)
    public init(cBuffer: some Collection<CChar>) {
        self = String(decoding: cBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
