import Foundation
import Testing
import PlayerHost

/// Micro-benchmark for the JSON parser and writer, off unless `PH_BENCH` is set:
///
///     PH_BENCH=1 swift test -c release --filter JSONBench
///
/// Foundation is used here only as a yardstick; the library itself never imports it.
@Suite(.serialized) struct JSONBenchTests {
    static let ping = Array(#"{"jsonrpc":"2.0","method":"host.ping","id":1}"#.utf8)

    /// A ~2 KiB JSON-RPC response: nested objects and arrays, escapes, non-ASCII, ints and doubles.
    static let nested: [UInt8] = {
        var tracks: [String] = []
        for i in 0..<10 {
            tracks.append(
                #"{"id":\#(1000 + i),"title":"Track \#(i) \u2014 \"Live\"","artist":"Sigur Rós","#
                    + #""duration":\#(180.25 + Double(i)),"gain":-6.5e-1,"tags":["ambient","post-rock","\#(i)"],"#
                    + #""meta":{"codec":"flac","rate":44100,"explicit":false,"art":null}}"#)
        }
        let text = #"{"jsonrpc":"2.0","id":42,"result":{"queue":{"position":3,"shuffle":true,"#
            + #""tracks":[\#(tracks.joined(separator: ","))]},"volume":0.75,"path":"\/srv\/music\ttab"}}"#
        return Array(text.utf8)
    }()

    @Test(.enabled(if: ProcessInfo.processInfo.environment["PH_BENCH"] != nil))
    func jsonBench() throws {
        print("JSON bench: nested document is \(Self.nested.count) bytes")
        for (name, bytes, iterations) in [("ping", Self.ping, 1_000_000), ("2KiB", Self.nested, 50_000)] {
            let value = try JSONParser.parse(bytes)
            let data = Data(bytes)
            let foundationObject = try JSONSerialization.jsonObject(with: data)

            report("\(name) parse", iterations) { sink in
                sink &+= (try? JSONParser.parse(bytes)) == nil ? 0 : 1
            }
            var buffer: [UInt8] = []
            buffer.reserveCapacity(4096)
            report("\(name) write (reused buffer)", iterations) { sink in
                buffer.removeAll(keepingCapacity: true)
                value.write(into: &buffer)
                sink &+= buffer.count
            }
            report("\(name) serialized()", iterations) { sink in
                sink &+= value.serialized().count
            }
            report("\(name) parse+write", iterations) { sink in
                if let parsed = try? JSONParser.parse(bytes) {
                    buffer.removeAll(keepingCapacity: true)
                    parsed.write(into: &buffer)
                    sink &+= buffer.count
                }
            }
            report("\(name) Foundation parse", iterations / 10) { sink in
                sink &+= (try? JSONSerialization.jsonObject(with: data)) == nil ? 0 : 1
            }
            report("\(name) Foundation write", iterations / 10) { sink in
                sink &+= (try? JSONSerialization.data(withJSONObject: foundationObject, options: [.sortedKeys]))?.count ?? 0
            }
        }
    }

    /// Times `iterations` calls of `body` in 50 batches and prints the fastest and the median
    /// batch's cost per call. The machine is shared, so the fastest batch is the one least
    /// disturbed by other work; the median shows how far typical runs are from it.
    private func report(_ name: String, _ iterations: Int, _ body: (inout Int) -> Void) {
        var sink = 0
        let batches = 50
        let batchSize = max(1, iterations / batches)
        for _ in 0..<batchSize { body(&sink) }  // warm-up
        let clock = ContinuousClock()
        var perCall: [Double] = []
        for _ in 0..<batches {
            let start = clock.now
            for _ in 0..<batchSize { body(&sink) }
            let elapsed = clock.now - start
            let nanos = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
            perCall.append(nanos / Double(batchSize))
        }
        perCall.sort()
        let padded = name.padding(toLength: 28, withPad: " ", startingAt: 0)
        print("JSON bench: \(padded) best \(String(format: "%9.1f", perCall[0])) ns/op, median \(String(format: "%9.1f", perCall[batches / 2])) ns/op  (sink \(sink % 10))")
    }
}
