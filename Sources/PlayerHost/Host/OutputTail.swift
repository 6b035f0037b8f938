/// The last lines a process wrote (a plugin's stderr), bounded in lines and bytes, so `doctor`
/// can show why a plugin failed (its traceback) without anyone reading the daemon's log.
/// Memory stays within `maxBytes` plus one partial line of at most `maxBytes`, whatever the
/// process writes: older lines are dropped, an over-long line keeps its end.
struct OutputTail: Sendable, Equatable {
    /// Lines kept (20).
    static let defaultMaxLines = 20
    /// Bytes kept over those lines (4 KiB).
    static let defaultMaxBytes = 4096

    let maxLines: Int
    let maxBytes: Int
    /// Complete lines, oldest first (without their newline).
    private(set) var complete: [[UInt8]] = []
    private var completeBytes = 0
    /// The line being written (no newline yet).
    private var partial: [UInt8] = []
    /// Bytes seen in all, kept or not.
    private(set) var totalBytes = 0

    init(maxLines: Int = defaultMaxLines, maxBytes: Int = defaultMaxBytes) {
        self.maxLines = max(1, maxLines)
        self.maxBytes = max(1, maxBytes)
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        totalBytes &+= bytes.count
        for b in bytes {
            if b == 0x0A {
                push(partial)
                partial.removeAll(keepingCapacity: true)
            } else {
                partial.append(b)
                // An endless line: keep its last maxBytes.
                if partial.count > 2 * maxBytes { partial.removeFirst(partial.count - maxBytes) }
            }
        }
    }

    mutating func append(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { append(UnsafeRawBufferPointer($0)) }
    }

    private mutating func push(_ line: [UInt8]) {
        let kept = line.count > maxBytes ? Array(line.suffix(maxBytes)) : line
        complete.append(kept)
        completeBytes += kept.count
        while complete.count > maxLines || (completeBytes > maxBytes && complete.count > 1) {
            completeBytes -= complete.removeFirst().count
        }
    }

    /// The kept lines, oldest first, the unfinished last one included (a process that died
    /// mid-line); invalid UTF-8 is replaced, trailing carriage returns dropped.
    var lines: [String] {
        var out = complete.map { String(decoding: $0, as: UTF8.self) }
        if !partial.isEmpty { out.append(String(decoding: partial.suffix(maxBytes), as: UTF8.self)) }
        if out.count > maxLines { out.removeFirst(out.count - maxLines) }
        return out.map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }
    }

    var isEmpty: Bool { complete.isEmpty && partial.isEmpty }
}
