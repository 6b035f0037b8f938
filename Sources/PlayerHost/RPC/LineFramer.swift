import Glibc

/// Splits a byte stream into newline-terminated lines, holding at most `maxLine` bytes of an
/// unfinished line. Complete lines inside one chunk are handed out without copying.
///
/// A line over the limit is thrown once (`LineTooLong`) and then skipped to its newline: the
/// caller may feed the rest of the chunk again (from `consumed`) and framing goes on with the
/// next line, so a client that sent one overlong request gets one error and keeps its connection.
public struct LineFramer {
    /// The limit was hit: the line would be longer than `maxLine` bytes.
    public struct LineTooLong: Error, Equatable {
        public let limit: Int
        /// Bytes of the chunk taken before the throw (lines handed out, the overlong part): feed
        /// the chunk again from here.
        public var consumed = 0

        public init(limit: Int, consumed: Int = 0) {
            self.limit = limit
            self.consumed = consumed
        }
    }

    public let maxLine: Int
    private var partial: [UInt8] = []
    /// Inside an overlong line already reported: its bytes are dropped up to its newline.
    private var skipping = false

    /// `maxLine` below 1 is taken as 1 (the daemon's `--max-line-bytes` is at least 1 024; the
    /// clamp only keeps a library user's mistake from trapping).
    public init(maxLine: Int) {
        self.maxLine = max(1, maxLine)
    }

    /// Feeds a chunk; `line` runs for every complete line (without its `\n` or a `\r` before it).
    public mutating func feed(
        _ chunk: UnsafeRawBufferPointer,
        line: (UnsafeRawBufferPointer) -> Void
    ) throws(LineTooLong) {
        _ = try feed(chunk, maxLines: .max, line: line)
    }

    /// Feeds a chunk, handing out at most `maxLines` complete lines; returns how many bytes of
    /// the chunk were taken. The caller keeps the rest (it starts at a line boundary) and feeds
    /// it again later: a server serves each client a bounded share per loop turn this way.
    /// `stopAfter` is asked after each line handed out (a time budget: the caller reads a clock
    /// there, once per line); when it says so, the framer stops right after that line.
    public mutating func feed(
        _ chunk: UnsafeRawBufferPointer,
        maxLines: Int,
        stopAfter: () -> Bool = { false },
        line: (UnsafeRawBufferPointer) -> Void
    ) throws(LineTooLong) -> Int {
        guard let base = chunk.baseAddress, chunk.count > 0 else { return 0 }
        var handed = 0
        var start = 0
        let end = chunk.count
        if skipping {
            guard let nl = memchr(base, 0x0A, end) else { return end }
            skipping = false
            start = UnsafeRawPointer(nl) - base + 1
        }
        while start < end {
            guard let nl = memchr(base + start, 0x0A, end - start) else {
                // No newline: keep the tail for the next chunk.
                let tail = end - start
                if partial.count + tail > maxLine {
                    partial.removeAll()
                    skipping = true
                    throw LineTooLong(limit: maxLine, consumed: end)
                }
                partial.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: tail))
                return end
            }
            let nlIndex = UnsafeRawPointer(nl) - base
            let length = nlIndex - start
            if partial.isEmpty {
                if length > maxLine { throw LineTooLong(limit: maxLine, consumed: nlIndex + 1) }
                line(Self.trimCR(UnsafeRawBufferPointer(start: base + start, count: length)))
            } else {
                if partial.count + length > maxLine {
                    partial.removeAll()
                    throw LineTooLong(limit: maxLine, consumed: nlIndex + 1)
                }
                partial.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: length))
                let whole = partial
                partial.removeAll(keepingCapacity: partial.capacity <= 64 * 1024)
                whole.withUnsafeBytes { b in line(Self.trimCR(b)) }
            }
            start = nlIndex + 1
            handed += 1
            if handed >= maxLines || stopAfter() { return start }
        }
        return end
    }

    @inline(__always)
    private static func trimCR(_ b: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        if b.count > 0 && b[b.count - 1] == 0x0D {
            return UnsafeRawBufferPointer(rebasing: b[0..<(b.count - 1)])
        }
        return b
    }
}
