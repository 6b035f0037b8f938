import Glibc
import PlayerHost

/// `--daemon`: start a detached copy of ourselves in the foreground mode, with its output going to
/// a log file beside the socket, and wait on a pipe until it says the socket accepts (or dies).
/// Re-executing avoids fork() in a process whose runtime may already have threads.
enum DaemonLauncher {
    static func launch(socketPath: String, arguments: [String]) -> Int32 {
        let args = arguments.filter { $0 != "--daemon" } + ["--ready-fd", "3"]
        let dir = SocketLocation.directory(of: socketPath)
        do {
            try SocketLocation.prepareDirectory(for: socketPath, isDefault: false)
        } catch {
            FileHandleStderr.write("playerhostd: \(error)\n")
            return 71
        }
        let logPath = dir + "/playerhostd.log"
        // Not through a link planted beside a socket in a shared directory (it would append there).
        let logFD = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard logFD >= 0 else {
            FileHandleStderr.write("playerhostd: cannot open \(logPath): \(String(cString: strerror(errno)))\n")
            return 71
        }
        defer { close(logFD) }
        var st = stat()
        guard fstat(logFD, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            FileHandleStderr.write("playerhostd: \(logPath) is not a regular file; remove it\n")
            return 71
        }
        var ready = false
        var exitStatus: ChildProcess.Exit?
        do {
            let loop = try EventLoop()
            let child = try ChildProcess(
                loop: loop, executable: selfExecutable(), arguments: args,
                stdio: [.ignore, .fileDescriptor(logFD), .fileDescriptor(logFD), .pipe],
                detached: true,
                onExit: { exit in exitStatus = exit })
            let pipe = child.pipes[3]!
            try pipe.startReading(onRead: { bytes in
                if bytes.contains(UInt8(ascii: "R")) {
                    ready = true
                    pipe.close()
                    child.close()  // detached: it lives on; we only stop watching it
                }
            }, onEnd: { _ in
                // The child closed the pipe without saying ready: it is exiting; wait for its status.
                pipe.close()
            })
            loop.run()
            try loop.close()
        } catch {
            FileHandleStderr.write("playerhostd: cannot start the daemon: \(error)\n")
            return 71
        }
        if ready {
            print("playerhostd started; socket \(socketPath), log \(logPath)")
            return 0
        }
        let status = exitStatus.map { $0.signal != 0 ? "killed by signal \($0.signal)" : "exit status \($0.status)" } ?? "unknown status"
        FileHandleStderr.write("playerhostd: the daemon did not start (\(status)); see \(logPath):\n")
        FileHandleStderr.write(tail(of: logPath, lines: 5))
        return exitStatus.map { Int32(truncatingIfNeeded: $0.status) }.flatMap { $0 == 0 ? 1 : $0 } ?? 1
    }

    static func selfExecutable() -> String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, 4095)
        return n > 0 ? String(cBuffer: buf[0..<n]) : CommandLine.arguments[0]
    }

    static func tail(of path: String, lines: Int) -> String {
        guard let f = fopen(path, "r") else { return "" }
        defer { fclose(f) }
        var all: [String] = []
        var line: UnsafeMutablePointer<CChar>?
        var cap = 0
        while getline(&line, &cap, f) > 0 { all.append(String(cString: line!)) }
        free(line)
        return all.suffix(lines).joined()
    }
}
