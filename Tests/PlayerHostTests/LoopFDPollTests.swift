import Glibc
import Testing
@testable import PlayerHost

@Suite struct LoopFDPollTests {
    @Test func readableFiresAfterThePeerWrites() throws {
        let loop = try makeLoop()
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let poll = try FDPoll(loop: loop, fileDescriptor: fds[0])
        #expect(poll.fileDescriptor == fds[0])
        let events = Box<[FDPoll.Events]>([])
        let data = Box<[UInt8]>([])
        try poll.start(.readable) { result in
            switch result {
            case .success(let ready):
                events.value.append(ready)
                var buffer = [UInt8](repeating: 0, count: 16)
                let n = read(fds[0], &buffer, buffer.count)
                if n > 0 { data.value += buffer.prefix(n) }
            case .failure(let error):
                Issue.record("poll failed: \(error)")
            }
        }
        #expect(poll.isActive)
        for _ in 0..<3 { loop.run(.noWait) }
        #expect(events.value.isEmpty, "nothing is readable before the peer writes")

        #expect(write(fds[1], "ping", 4) == 4)
        try runLoop(loop) { !events.value.isEmpty }
        #expect(events.value.first?.contains(.readable) == true)
        #expect(data.value == Array("ping".utf8))

        poll.stop()
        #expect(!poll.isActive)
        #expect(write(fds[1], "more", 4) == 4)
        for _ in 0..<3 { loop.run(.noWait) }
        #expect(events.value.count == 1, "a stopped poll reports nothing")
        closeLoop(loop)
    }

    @Test func writableFiresAtOnceAndStartChangesTheEvents() throws {
        let loop = try makeLoop()
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let poll = try FDPoll(loop: loop, fileDescriptor: fds[0])
        let writable = Box(0)
        try poll.start(.writable) { [unowned poll] result in
            if case .success(let ready) = result, ready.contains(.writable) {
                writable.value += 1
                poll.stop()
            }
        }
        try runLoop(loop) { writable.value == 1 }

        let hangup = Box<FDPoll.Events?>(nil)
        try poll.start([.readable, .disconnect]) { [unowned poll] result in
            if case .success(let ready) = result {
                hangup.value = ready
                poll.stop()
            }
        }
        shutdown(fds[1], Int32(SHUT_WR))
        try runLoop(loop) { hangup.value != nil }
        #expect(hangup.value?.contains(.disconnect) == true || hangup.value?.contains(.readable) == true)
        closeLoop(loop)
    }

    @Test func unpollableDescriptorIsRefusedAndLeavesNoHandle() throws {
        let loop = try makeLoop()
        let fd = open("/dev/null", O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(throws: LoopError.self) { _ = try FDPoll(loop: loop, fileDescriptor: fd) }
        #expect(loop.handleCount == 0)
        closeLoop(loop)
    }

    @Test func closingThePollLeavesTheDescriptorOpen() throws {
        let loop = try makeLoop()
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let poll = try FDPoll(loop: loop, fileDescriptor: fds[0])
        try poll.start(.readable) { _ in }
        closeLoop(loop)
        #expect(fcntl(fds[0], F_GETFD) != -1, "the caller still owns the descriptor")
    }
}
