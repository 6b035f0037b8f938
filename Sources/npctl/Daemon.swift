import ArgumentParser
import Glibc
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel

struct Daemon: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Start, stop or query the daemon.",
        discussion: """
            Examples:
              npctl daemon start
              npctl daemon start -- --config examples/demo.toml
              npctl daemon status
              npctl daemon stop
              npctl daemon reload
            """,
        subcommands: [Start.self, Stop.self, Status.self, Reload.self])

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "start",
            abstract: "Start playerhostd in the background.",
            discussion: """
                Examples:
                  npctl daemon start
                  npctl daemon start -- --config examples/demo.toml
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(parsing: .captureForPassthrough, help: "Extra arguments for playerhostd.")
        var extra: [String] = []

        func run() throws {
            try reporting {
                if let c = try? ControlClient(path: global.socketPath, timeout: 2), (try? c.call("host.ping")) != nil {
                    print("playerhostd is already running on \(global.socketPath)")
                    return
                }
                let exe = Daemon.playerhostdPath()
                // `npctl daemon start -- --config X`: the separator is npctl's, not playerhostd's.
                var args = ["--daemon"] + (extra.first == "--" ? Array(extra.dropFirst()) : extra)
                if let s = global.socket { args += ["--socket", s] }
                let status = Daemon.spawnAndWait(exe, args)
                if status != 0 { throw Failure("playerhostd --daemon failed (status \(status))", code: status) }
            }
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stop",
            abstract: "Ask playerhostd to shut down, and wait until it has.",
            discussion: """
                Examples:
                  npctl daemon stop
                """)
        @OptionGroup var global: GlobalOptions

        func run() throws {
            try reporting {
                let client: ControlClient
                do throws(ClientError) { client = try ControlClient(path: global.socketPath, timeout: global.timeout) } catch {
                    if case .noDaemon = error { print("playerhostd is not running"); return }
                    throw Failure(error.description)
                }
                do throws(ClientError) { try client.call("host.shutdown") } catch { throw Failure(error.description) }
                // The daemon closes every connection as part of its shutdown: wait for that.
                while true {
                    do throws(ClientError) { _ = try client.readMessage() } catch {
                        if case .timeout = error { throw Failure("playerhostd did not stop within \(global.timeout) s") }
                        break
                    }
                }
                print("playerhostd stopped")
            }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Say whether playerhostd runs (exit 3 if not).",
            discussion: """
                Examples:
                  npctl daemon status
                  npctl --json daemon status
                """)
        @OptionGroup var global: GlobalOptions

        func run() throws {
            try reporting {
                let client: ControlClient
                do throws(ClientError) { client = try ControlClient(path: global.socketPath, timeout: global.timeout) } catch {
                    if case .noDaemon = error {
                        if global.json { print(#"{"running":false}"#) } else { print("playerhostd is not running (\(global.socketPath))") }
                        throw ExitCode(3)
                    }
                    throw Failure(error.description)
                }
                let stats: JSON
                let version: JSON
                do throws(ClientError) {
                    stats = try client.call("host.stats")
                    version = try client.call("host.version")
                } catch { throw Failure(error.description) }
                if global.json {
                    var o = stats.objectValue ?? [:]
                    o["running"] = true
                    o["version"] = version["version"]
                    o["socket"] = .string(global.socketPath)
                    print(JSON.object(o).jsonString)
                } else {
                    print("playerhostd \(version["version"]?.stringValue ?? "?") is running (pid \(stats["pid"]?.intValue ?? 0)) on \(global.socketPath)")
                    print("uptime \(stats["uptime"]?.doubleValue ?? 0) s, \(stats["connections"]?.intValue ?? 0) connection(s), \(stats["requestsServed"]?.intValue ?? 0) request(s) served")
                }
            }
        }
    }

    /// playerhostd beside this npctl, else from PATH.
    static func playerhostdPath() -> String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, 4095)
        if n > 0 {
            let me = String(cBuffer: buf[0..<n])
            let sibling = SocketLocation.directory(of: me) + "/playerhostd"
            if access(sibling, X_OK) == 0 { return sibling }
        }
        return "playerhostd"
    }

    /// Runs a program to completion (posix_spawnp) and returns its exit status.
    static func spawnAndWait(_ exe: String, _ args: [String]) -> Int32 {
        var pid: pid_t = 0
        let argv = ([exe] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let rc = posix_spawnp(&pid, exe, nil, nil, argv, environ)
        if rc != 0 {
            Stderr.write("npctl: cannot run \(exe): \(String(cString: strerror(rc)))\n")
            return 127
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if status & 0x7f == 0 { return (status >> 8) & 0xff }
        return 128 + (status & 0x7f)
    }
}
