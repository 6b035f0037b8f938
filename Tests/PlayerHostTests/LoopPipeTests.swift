import Glibc
import Testing
@testable import PlayerHost

@Suite struct LoopPipeTests {
    @Test func echoBothWaysCredentialsAndEndOfStream() throws {
        let loop = try makeLoop()
        let path = tempSocketPath()
        defer { unlink(path) }
        let server = try PipeServer(loop: loop)
        try server.bind(path: path)
        #expect(access(path, F_OK) == 0, "bind created the socket file")

        let accepted = Box<PipeStream?>(nil)
        let serverEnd = Box<LoopError??>(nil)
        let connections = Box(0)
        try server.listen { [unowned server] error in
            #expect(error == nil)
            connections.value += 1
            do {
                let conn = try server.accept()
                accepted.value = conn
                try conn.startReading(
                    onRead: { [unowned conn] bytes in conn.write(bytes) },  // echo
                    onEnd: { [unowned conn] error in
                        serverEnd.value = .some(error)
                        conn.close()
                    })
                conn.write(Array("welcome\n".utf8))
            } catch {
                Issue.record("server side failed: \(error)")
            }
        }
        #expect(server.isActive, "a listening server is active")

        let client = try PipeStream(loop: loop)
        let connected = Box<LoopError??>(nil)
        try client.connect(path: path) { connected.value = .some($0) }
        let received = Box<[UInt8]>([])
        let clientEnd = Box<LoopError??>(nil)
        try runLoop(loop) { connected.value != nil }
        #expect(connected.value == .some(nil))
        try client.startReading(
            onRead: { append($0, to: &received.value) },
            onEnd: { clientEnd.value = .some($0) })

        try runLoop(loop) { received.value.count == 8 }
        #expect(String(decoding: received.value, as: UTF8.self) == "welcome\n")

        let message = pattern(100_000, seed: 7)
        client.write(message)
        try runLoop(loop) { received.value.count == 8 + message.count }
        #expect(Array(received.value.dropFirst(8)) == message, "echoed intact and in order")

        // Credentials, from both sides.
        let conn = try #require(accepted.value)
        let serverView = try #require(conn.peerCredentials())
        #expect(serverView.uid == getuid())
        #expect(serverView.pid == getpid())
        let clientView = try #require(client.peerCredentials())
        #expect(clientView.uid == getuid())
        #expect(clientView.pid == getpid())
        #expect(conn.fileDescriptor >= 0)
        #expect(client.fileDescriptor >= 0)

        // Half-close: the server sees end-of-stream (nil), closes, and then the client does too.
        let shutDown = Box<LoopError??>(nil)
        client.shutdown { shutDown.value = .some($0) }
        try runLoop(loop) { serverEnd.value != nil && clientEnd.value != nil && shutDown.value != nil }
        #expect(shutDown.value == .some(nil))
        #expect(serverEnd.value == .some(nil), "end-of-stream is onEnd(nil)")
        #expect(clientEnd.value == .some(nil))
        #expect(connections.value == 1)
        #expect(conn.isClosing)
        #expect(conn.fileDescriptor == -1)
        #expect(conn.peerCredentials() == nil)

        client.close()
        server.close()
        closeLoop(loop)
        // The file is the owner's to remove (ControlServer checks the inode first): libuv, which
        // unlinks a path it bound, never bound this one.
        #expect(access(path, F_OK) == 0, "closing the server leaves the socket file")
        unlink(path)
    }

    @Test func severalClientsAreAcceptedIndependently() throws {
        let loop = try makeLoop()
        let path = tempSocketPath()
        defer { unlink(path) }
        let server = try PipeServer(loop: loop)
        try server.bind(path: path)
        let streams = Box<[PipeStream]>([])
        try server.listen { [unowned server] _ in
            guard let conn = try? server.accept() else { Issue.record("accept failed"); return }
            streams.value.append(conn)
            // Each connection answers with its own index.
            conn.write([UInt8(streams.value.count)])
        }
        let answers = Box<[Int: UInt8]>([:])
        for i in 0..<3 {
            let client = try PipeStream(loop: loop)
            try client.connect(path: path) { error in
                #expect(error == nil)
                do {
                    try client.startReading(onRead: { answers.value[i] = $0[0] }, onEnd: { _ in })
                } catch {
                    Issue.record("startReading: \(error)")
                }
            }
        }
        try runLoop(loop) { answers.value.count == 3 }
        #expect(Set(answers.value.values) == [1, 2, 3])
        closeLoop(loop)
    }

    @Test func overlongPathIsRefusedByBindAndConnect() throws {
        let loop = try makeLoop()
        let tooLong = "/tmp/" + String(repeating: "x", count: 108 - 5)
        #expect(tooLong.utf8.count == 108)

        let server = try PipeServer(loop: loop)
        let bindError = #expect(throws: LoopError.self) { try server.bind(path: tooLong) }
        #expect(bindError?.name == "ENAMETOOLONG")
        #expect(bindError?.description.contains("107") == true, "the error names the limit")
        #expect(access(tooLong, F_OK) != 0)
        // libuv 1.44 would have truncated it to 107 bytes: make sure nothing was bound there either.
        #expect(access(String(tooLong.dropLast()), F_OK) != 0)

        let client = try PipeStream(loop: loop)
        let called = Box(false)
        let connectError = #expect(throws: LoopError.self) {
            try client.connect(path: tooLong) { _ in called.value = true }
        }
        #expect(connectError?.name == "ENAMETOOLONG")
        #expect(throws: LoopError.self) { try client.connect(path: "") { _ in called.value = true } }
        loop.run(.noWait)
        #expect(!called.value, "a refused connect never calls back")
        closeLoop(loop)
    }

    @Test func pathOfExactly107BytesWorks() throws {
        let loop = try makeLoop()
        let prefix = String(tempSocketPath().dropLast(5)) + "-"
        let path = prefix + String(repeating: "y", count: 107 - prefix.utf8.count)
        #expect(path.utf8.count == 107)
        defer { unlink(path) }
        let (_, accepted, client) = try connectedPair(loop, path: path)
        #expect(access(path, F_OK) == 0, "bound at the full, untruncated path")
        #expect(accepted.peerCredentials()?.pid == getpid())
        _ = client
        closeLoop(loop)
    }

    @Test func bindingAnExistingPathFailsWithAddressInUse() throws {
        let loop = try makeLoop()
        let path = tempSocketPath()
        defer { unlink(path) }
        let first = try PipeServer(loop: loop)
        try first.bind(path: path)
        try first.listen { _ in }

        let second = try PipeServer(loop: loop)
        let error = #expect(throws: LoopError.self) { try second.bind(path: path) }
        #expect(error?.name == "EADDRINUSE")
        #expect(error?.operation.contains(path) == true)
        second.close()

        // A stale regular file at the path is refused the same way, never replaced.
        let stale = tempSocketPath()
        defer { unlink(stale) }
        let fd = open(stale, O_CREAT | O_WRONLY, 0o600)
        #expect(fd >= 0)
        close(fd)
        let third = try PipeServer(loop: loop)
        let staleError = #expect(throws: LoopError.self) { try third.bind(path: stale) }
        #expect(staleError?.name == "EADDRINUSE")
        closeLoop(loop)
        #expect(access(stale, F_OK) == 0, "a failed bind does not unlink someone else's file")
    }

    @Test func connectToMissingSocketReportsAnError() throws {
        let loop = try makeLoop()
        let client = try PipeStream(loop: loop)
        let result = Box<LoopError??>(nil)
        try client.connect(path: tempSocketPath()) { result.value = .some($0) }
        try runLoop(loop) { result.value != nil }
        #expect(result.value??.name == "ENOENT")
        closeLoop(loop)
    }

    @Test func closingAConnectingStreamCancelsTheConnect() throws {
        let loop = try makeLoop()
        let client = try PipeStream(loop: loop)
        let result = Box<LoopError??>(nil)
        try client.connect(path: tempSocketPath()) { result.value = .some($0) }
        client.close()
        try runUntilIdle(loop)
        #expect(result.value != nil, "the completion runs exactly once, with an error")
        #expect(result.value??.name == "ECANCELED" || result.value??.name == "ENOENT")
        closeLoop(loop)
    }

    @Test func bigWriteQueuesThenDrainsInOrder() throws {
        let loop = try makeLoop()
        let path = tempSocketPath()
        defer { unlink(path) }
        let (_, accepted, client) = try connectedPair(loop, path: path)
        let failures = Box<[LoopError]>([])
        client.onWriteFailure { failures.value.append($0) }

        let big = pattern(8 << 20, seed: 1)
        let small = pattern(1000, seed: 2)
        client.write(big)
        #expect(client.pendingWriteBytes > 0, "the peer is not reading: most of 8 MiB is queued")
        #expect(client.pendingWriteBytes < big.count + 1)
        // A later small write must queue behind the big one, not jump it through the socket.
        client.write(small)
        let queued = client.pendingWriteBytes
        #expect(queued > small.count)
        for _ in 0..<5 { loop.run(.noWait) }
        #expect(client.pendingWriteBytes > 0, "nothing drains while the peer does not read")

        let received = Box<[UInt8]>([])
        received.value.reserveCapacity(big.count + small.count)
        try accepted.startReading(onRead: { append($0, to: &received.value) }, onEnd: { _ in })
        try runLoop(loop, timeout: 30_000) {
            received.value.count >= big.count + small.count && client.pendingWriteBytes == 0
        }
        #expect(client.pendingWriteBytes == 0)
        #expect(received.value.count == big.count + small.count)
        #expect(received.value == big + small, "bytes intact and in order")
        #expect(failures.value.isEmpty)

        // Once drained, a small write goes straight through again.
        client.write(small)
        #expect(client.pendingWriteBytes == 0)
        try runLoop(loop) { received.value.count == big.count + 2 * small.count }
        closeLoop(loop)
    }

    @Test func shutdownCompletesOnlyAfterTheFlush() throws {
        let loop = try makeLoop()
        let path = tempSocketPath()
        defer { unlink(path) }
        let (_, accepted, client) = try connectedPair(loop, path: path)
        let big = pattern(8 << 20, seed: 3)
        client.write(big)
        #expect(client.pendingWriteBytes > 0)
        let shutDown = Box<LoopError??>(nil)
        let pendingAtShutdown = Box(-1)
        client.shutdown { [unowned client] error in
            shutDown.value = .some(error)
            pendingAtShutdown.value = client.pendingWriteBytes
        }
        for _ in 0..<5 { loop.run(.noWait) }
        #expect(shutDown.value == nil, "cannot complete while data is still queued")

        let received = Box<[UInt8]>([])
        let ended = Box<LoopError??>(nil)
        try accepted.startReading(
            onRead: { append($0, to: &received.value) },
            onEnd: { ended.value = .some($0) })
        try runLoop(loop, timeout: 30_000) { shutDown.value != nil && ended.value != nil }
        #expect(shutDown.value == .some(nil))
        #expect(pendingAtShutdown.value == 0, "every queued byte was flushed first")
        #expect(ended.value == .some(nil), "the peer sees end-of-stream after all data")
        #expect(received.value == big)

        // A second shutdown is refused without clobbering anything; the first already completed.
        let again = Box<LoopError??>(nil)
        client.shutdown { again.value = .some($0) }
        try runLoop(loop) { again.value != nil }
        #expect(again.value??.name == "ENOTCONN")
        closeLoop(loop)
    }

    @Test func secondShutdownWhilePendingKeepsTheFirstCompletion() throws {
        let loop = try makeLoop()
        let path = tempSocketPath()
        defer { unlink(path) }
        let (_, accepted, client) = try connectedPair(loop, path: path)
        client.write(pattern(4 << 20))
        let first = Box<LoopError??>(nil)
        let second = Box<LoopError??>(nil)
        client.shutdown { first.value = .some($0) }
        client.shutdown { second.value = .some($0) }
        try accepted.startReading(onRead: { _ in }, onEnd: { _ in })
        try runLoop(loop, timeout: 30_000) { first.value != nil && second.value != nil }
        #expect(first.value == .some(nil), "the first shutdown still completes")
        #expect(second.value??.name == "ENOTCONN")
        closeLoop(loop)
    }

    @Test func writeToAClosedPeerReportsAFailure() throws {
        let loop = try makeLoop()
        let path = tempSocketPath()
        defer { unlink(path) }
        let (_, accepted, client) = try connectedPair(loop, path: path)
        let failures = Box<[LoopError]>([])
        client.onWriteFailure { failures.value.append($0) }
        let ended = Box<LoopError??>(nil)
        try client.startReading(onRead: { _ in }, onEnd: { ended.value = .some($0) })
        accepted.close()
        try runLoop(loop) { ended.value != nil }
        #expect(ended.value == .some(nil))

        client.write(Array("anyone there?".utf8))
        #expect(failures.value.isEmpty, "never reported from inside the write that failed")
        #expect(client.writeFailure != nil, "but recorded at once")
        client.write(Array("still there?".utf8))  // dropped: the failure is reported once
        try runLoop(loop) { !failures.value.isEmpty }
        loop.run(.noWait)
        #expect(failures.value.count == 1)
        #expect(["EPIPE", "ECONNRESET"].contains(failures.value.first?.name ?? ""))
        #expect(client.pendingWriteBytes == 0)
        closeLoop(loop)
    }

    @Test func queuedWriteToAPeerThatClosesReportsAFailure() throws {
        let loop = try makeLoop()
        let path = tempSocketPath()
        defer { unlink(path) }
        let (_, accepted, client) = try connectedPair(loop, path: path)
        let failures = Box<[LoopError]>([])
        client.onWriteFailure { [unowned client] error in
            failures.value.append(error)
            client.close()
        }
        client.write(pattern(8 << 20))
        #expect(client.pendingWriteBytes > 0)
        accepted.close()
        try runLoop(loop) { !failures.value.isEmpty }
        #expect(failures.value.count == 1)
        #expect(failures.value.first?.isEOF == false)
        #expect(["EPIPE", "ECONNRESET"].contains(failures.value.first?.name ?? ""))
        closeLoop(loop)
        #expect(failures.value.count == 1, "cancelling the rest on close reports nothing more")
    }

    @Test func readingCanBePausedAndResumed() throws {
        let loop = try makeLoop()
        let path = tempSocketPath()
        defer { unlink(path) }
        let (_, accepted, client) = try connectedPair(loop, path: path)
        let received = Box<[UInt8]>([])
        try accepted.startReading(onRead: { append($0, to: &received.value) }, onEnd: { _ in })
        client.write([1, 2, 3])
        try runLoop(loop) { received.value.count == 3 }
        accepted.stopReading()
        #expect(!accepted.isActive)
        client.write([4, 5, 6])
        for _ in 0..<5 { loop.run(.noWait) }
        #expect(received.value == [1, 2, 3], "nothing is delivered while stopped")
        try accepted.startReading(onRead: { append($0, to: &received.value) }, onEnd: { _ in })
        try runLoop(loop) { received.value.count == 6 }
        #expect(received.value == [1, 2, 3, 4, 5, 6])
        closeLoop(loop)
    }

    @Test func openWrapsAnExistingDescriptor() throws {
        let loop = try makeLoop()
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        let a = try PipeStream(loop: loop)
        let b = try PipeStream(loop: loop)
        try a.open(fileDescriptor: fds[0])
        try b.open(fileDescriptor: fds[1])
        #expect(a.fileDescriptor == fds[0])
        let received = Box<[UInt8]>([])
        try b.startReading(onRead: { append($0, to: &received.value) }, onEnd: { _ in })
        a.write(Array("over a socketpair".utf8))
        try runLoop(loop) { received.value.count == 17 }
        #expect(String(decoding: received.value, as: UTF8.self) == "over a socketpair")
        #expect(a.peerCredentials()?.uid == getuid())
        closeLoop(loop)  // the streams own the descriptors now and close them
        #expect(fcntl(fds[0], F_GETFD) == -1)
        #expect(fcntl(fds[1], F_GETFD) == -1)
    }

    @Test func unwrittenBytesFollowABigWriteGoingOutPieceByPiece() throws {
        let loop = try makeLoop()
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        let a = try PipeStream(loop: loop)
        try a.open(fileDescriptor: fds[0])
        a.write(pattern(4 << 20, seed: 3))  // far more than the socket holds: one queued write
        let queued = a.pendingWriteBytes
        #expect(queued > 0 && a.unwrittenBytes == queued)
        // The peer takes some: libuv writes more of the same request, which has not completed.
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var taken = 0
        try runLoop(loop) {
            let n = chunk.withUnsafeMutableBytes { recv(fds[1], $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { taken += n }
            return a.unwrittenBytes < queued
        }
        #expect(taken > 0)
        #expect(a.pendingWriteBytes == queued, "no write has completed yet")
        #expect(a.unwrittenBytes < queued, "but the stream is making progress, and says so")
        Glibc.close(fds[1])
        closeLoop(loop)
    }

    @Test func writeOnAnUnconnectedStreamReportsAFailure() throws {
        let loop = try makeLoop()
        let stream = try PipeStream(loop: loop)
        let failures = Box<[LoopError]>([])
        stream.onWriteFailure { failures.value.append($0) }
        stream.write([1])
        try runLoop(loop) { !failures.value.isEmpty }
        #expect(failures.value.count == 1)
        #expect(stream.fileDescriptor == -1)
        #expect(stream.peerCredentials() == nil)
        closeLoop(loop)
    }

    @Test func operationsOnAClosedStreamAreHarmless() throws {
        let loop = try makeLoop()
        let stream = try PipeStream(loop: loop)
        stream.close()
        loop.run(.noWait)  // the close callback ran: the C handle is gone
        stream.write([1, 2, 3])
        stream.stopReading()
        #expect(stream.pendingWriteBytes == 0)
        #expect(stream.fileDescriptor == -1)
        let done = Box<LoopError??>(nil)
        stream.shutdown { done.value = .some($0) }
        #expect(done.value != nil, "shutdown of a closed stream completes at once")
        #expect(throws: LoopError.self) { try stream.startReading(onRead: { _ in }, onEnd: { _ in }) }
        #expect(throws: LoopError.self) { try stream.connect(path: tempSocketPath()) { _ in } }
        #expect(throws: LoopError.self) { try stream.open(fileDescriptor: 0) }

        let server = try PipeServer(loop: loop)
        server.close()
        loop.run(.noWait)
        #expect(throws: LoopError.self) { try server.bind(path: tempSocketPath()) }
        #expect(throws: LoopError.self) { try server.listen { _ in } }
        #expect(throws: LoopError.self) { _ = try server.accept() }
        closeLoop(loop)
    }
}
