import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostLoop

@Suite struct LoopChildProcessTests {
    @Test func exitStatusIsReported() throws {
        let loop = try makeLoop()
        let exit = Box<ChildProcess.Exit?>(nil)
        let child = try ChildProcess(
            loop: loop, executable: "/bin/sh", arguments: ["-c", "exit 3"]
        ) { exit.value = $0 }
        #expect(child.pid > 0)
        #expect(child.isActive)
        try runLoop(loop) { exit.value != nil }
        #expect(exit.value == ChildProcess.Exit(status: 3, signal: 0))
        #expect(child.exit == exit.value)
        #expect(!child.isActive, "a reaped child is no longer active")
        closeLoop(loop)
    }

    @Test func killReportsTheSignal() throws {
        let loop = try makeLoop()
        let exit = Box<ChildProcess.Exit?>(nil)
        let child = try ChildProcess(loop: loop, executable: "sleep", arguments: ["30"]) { exit.value = $0 }
        try child.kill(SIGTERM)
        try runLoop(loop) { exit.value != nil }
        #expect(exit.value?.signal == SIGTERM)
        #expect(exit.value?.status == 0)
        let error = #expect(throws: LoopError.self) { try child.kill(SIGTERM) }
        #expect(error?.name == "ESRCH", "a reaped child cannot be signalled")
        closeLoop(loop)
    }

    @Test func stdoutPipeDeliversOutput() throws {
        let loop = try makeLoop()
        let exit = Box<ChildProcess.Exit?>(nil)
        let child = try ChildProcess(
            loop: loop, executable: "echo", arguments: ["hello"],
            stdio: [.ignore, .pipe, .inherit]
        ) { exit.value = $0 }
        #expect(child.pipes.count == 3)
        #expect(child.pipes[0] == nil && child.pipes[2] == nil)
        let out = try #require(child.pipes[1])
        let output = Box<[UInt8]>([])
        let ended = Box<LoopError??>(nil)
        try out.startReading(onRead: { append($0, to: &output.value) }, onEnd: { ended.value = .some($0) })
        try runLoop(loop) { exit.value != nil && ended.value != nil }
        #expect(String(decoding: output.value, as: UTF8.self) == "hello\n")
        #expect(ended.value == .some(nil))
        #expect(exit.value == ChildProcess.Exit(status: 0, signal: 0))
        closeLoop(loop)
    }

    @Test func stdinPipeRoundTripsThroughCat() throws {
        let loop = try makeLoop()
        let exit = Box<ChildProcess.Exit?>(nil)
        let child = try ChildProcess(
            loop: loop, executable: "/bin/cat", arguments: [],
            stdio: [.pipe, .pipe, .inherit]
        ) { exit.value = $0 }
        let stdin = try #require(child.pipes[0])
        let stdout = try #require(child.pipes[1])
        let output = Box<[UInt8]>([])
        let ended = Box<LoopError??>(nil)
        try stdout.startReading(onRead: { append($0, to: &output.value) }, onEnd: { ended.value = .some($0) })
        // Larger than every pipe buffer on the way, so both directions exercise back-pressure.
        let payload = pattern(2 << 20, seed: 9)
        stdin.write(payload)
        let closedStdin = Box(false)
        stdin.shutdown { [unowned stdin] error in
            #expect(error == nil)
            stdin.close { closedStdin.value = true }
        }
        try runLoop(loop, timeout: 30_000) { exit.value != nil && ended.value != nil && closedStdin.value }
        #expect(output.value.count == payload.count)
        #expect(output.value == payload)
        #expect(exit.value == ChildProcess.Exit(status: 0, signal: 0))
        closeLoop(loop)
    }

    @Test func nonexistentExecutableThrowsAndLeavesNoHandle() throws {
        let loop = try makeLoop()
        let called = Box(false)
        let error = #expect(throws: LoopError.self) {
            _ = try ChildProcess(
                loop: loop, executable: "/nonexistent/ph-no-such-program", arguments: ["x"],
                stdio: [.pipe, .pipe, .pipe]
            ) { _ in called.value = true }
        }
        #expect(error?.name == "ENOENT")
        #expect(error?.operation.contains("/nonexistent/ph-no-such-program") == true)
        loop.run(.noWait)  // the failed handle's close callback
        #expect(loop.handleCount == 0, "neither the process handle nor its pipes are left")
        #expect(!called.value)

        // Same via PATH lookup.
        #expect(throws: LoopError.self) {
            _ = try ChildProcess(loop: loop, executable: "ph-no-such-program-\(getpid())", arguments: []) { _ in }
        }
        loop.run(.noWait)
        #expect(loop.handleCount == 0)
        closeLoop(loop)
    }

    @Test func environmentIsPassed() throws {
        let loop = try makeLoop()
        let exit = Box<ChildProcess.Exit?>(nil)
        let child = try ChildProcess(
            loop: loop, executable: "/bin/sh",
            arguments: ["-c", "printf '%s|%s' \"$PH_TEST_VAR\" \"${PH_NOT_PASSED-unset}\""],
            environment: ["PH_TEST_VAR": "a value = with spaces"],
            stdio: [.ignore, .pipe, .inherit]
        ) { exit.value = $0 }
        let output = Box<[UInt8]>([])
        let ended = Box(false)
        try child.pipes[1]!.startReading(onRead: { append($0, to: &output.value) }, onEnd: { _ in ended.value = true })
        setenv("PH_NOT_PASSED", "leaked", 1)
        defer { unsetenv("PH_NOT_PASSED") }
        try runLoop(loop) { exit.value != nil && ended.value }
        #expect(String(decoding: output.value, as: UTF8.self) == "a value = with spaces|unset")
        #expect(exit.value?.status == 0)
        closeLoop(loop)
    }

    @Test func inheritedEnvironmentAndWorkingDirectory() throws {
        let loop = try makeLoop()
        setenv("PH_INHERITED_VAR", "from parent", 1)
        defer { unsetenv("PH_INHERITED_VAR") }
        let exit = Box<ChildProcess.Exit?>(nil)
        let child = try ChildProcess(
            loop: loop, executable: "/bin/sh",
            arguments: ["-c", "printf '%s|%s' \"$PH_INHERITED_VAR\" \"$(pwd)\""],
            workingDirectory: "/",
            stdio: [.ignore, .pipe, .inherit]
        ) { exit.value = $0 }
        let output = Box<[UInt8]>([])
        let ended = Box(false)
        try child.pipes[1]!.startReading(onRead: { append($0, to: &output.value) }, onEnd: { _ in ended.value = true })
        try runLoop(loop) { exit.value != nil && ended.value }
        #expect(String(decoding: output.value, as: UTF8.self) == "from parent|/")
        closeLoop(loop)
    }

    @Test func stdioToAFileDescriptor() throws {
        let loop = try makeLoop()
        var fds: [Int32] = [-1, -1]
        // Close-on-exec (a socketpair: Glibc has no pipe2 for Swift): it reaches the child only as its stdout.
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        let exit = Box<ChildProcess.Exit?>(nil)
        _ = try ChildProcess(
            loop: loop, executable: "/bin/sh", arguments: ["-c", "echo to-fd"],
            stdio: [.ignore, .fileDescriptor(fds[1]), .inherit]
        ) { exit.value = $0 }
        close(fds[1])
        try runLoop(loop) { exit.value != nil }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(fds[0], &buffer, buffer.count)
        close(fds[0])
        #expect(n == 6)
        #expect(String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self) == "to-fd\n")
        closeLoop(loop)
    }

    @Test func closingTheLoopWithARunningChildLeavesNoHandle() throws {
        let loop = try makeLoop()
        let exit = Box<ChildProcess.Exit?>(nil)
        weak var weakChild: ChildProcess?
        let pid: Int32
        do {
            let child = try ChildProcess(
                loop: loop, executable: "/bin/cat", arguments: [],
                stdio: [.pipe, .pipe, .ignore]
            ) { exit.value = $0 }
            try child.pipes[1]!.startReading(onRead: { _ in }, onEnd: { _ in })
            weakChild = child
            pid = child.pid
        }
        #expect(loop.handleCount == 3)
        closeLoop(loop)
        #expect(weakChild == nil)
        #expect(exit.value == nil, "a closed process handle never reports")
        // cat saw its stdin close and exits on its own; reap it so no zombie outlives the test.
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
    }
}
