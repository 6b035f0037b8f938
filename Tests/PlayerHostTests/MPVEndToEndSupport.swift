import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostRPC

/// Small helpers of `MPVEndToEndTests`' isolation tests: a refusal, a raw request, whether a
/// reply is waiting, a `/proc` file.
extension MPVEndToEndTests.Isolation {
    /// Whether the client's socket has bytes to read now (no waiting).
    func readable(_ c: ControlClient) -> Bool {
        var pfd = pollfd(fd: c.fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) > 0
    }

    /// The error `method` answers with, nil if it succeeds.
    func refusal(_ c: ControlClient, _ method: String, _ params: [String: JSON]) throws -> RPCError? {
        do throws(ClientError) {
            _ = try c.call(method, params)
            return nil
        } catch {
            guard case .rpc(let e) = error else { throw error }
            return e
        }
    }

    func request(_ method: String, _ params: JSON, id: Int64) -> [UInt8] {
        var line: [UInt8] = []
        RPCEncoder.request(method: method, params: params, id: id, into: &line)
        return line
    }

    func readFile(_ path: String) -> [UInt8]? {
        guard let fp = fopen(path, "r") else { return nil }
        defer { fclose(fp) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&chunk, 1, chunk.count, fp)
            if n <= 0 { break }
            out += chunk[0..<n]
        }
        return out
    }
}
