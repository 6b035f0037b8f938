import CUV
import Glibc

/// A child process started with `uv_spawn`, with optional pipes for its stdio.
public final class ChildProcess: LoopHandle {
    /// What one of the child's stdio descriptors is connected to.
    public enum Stdio {
        /// /dev/null.
        case ignore
        /// The parent's own descriptor of the same number.
        case inherit
        /// A descriptor of the parent's.
        case fileDescriptor(Int32)
        /// A new pipe, returned in `ChildProcess.pipes` at the same index.
        case pipe
    }

    /// How the child ended: its exit status, or the signal that killed it (0 if none).
    public struct Exit: Sendable, Equatable {
        public var status: Int64
        public var signal: Int32
    }

    private var onExit: ((Exit) -> Void)?
    private var raw: UnsafeMutablePointer<uv_process_t> {
        UnsafeMutablePointer<uv_process_t>(OpaquePointer(handle))
    }
    /// Pipes for the descriptors spawned with `.pipe` (index = descriptor number), else nil.
    public private(set) var pipes: [PipeStream?] = []
    /// The child's pid (valid until it is reaped).
    public private(set) var pid: Int32 = 0
    /// Set once the exit callback ran.
    public private(set) var exit: Exit?

    /// Spawns `executable` (looked up in PATH when it has no slash) with `arguments` (not
    /// including argv[0]). `environment` nil inherits the parent's. `detached` puts the child in its
    /// own session so it outlives us (used by `playerhostd --daemon`).
    public init(
        loop: EventLoop,
        executable: String,
        arguments: [String],
        environment: [String: String]? = nil,
        workingDirectory: String? = nil,
        stdio: [Stdio] = [.ignore, .inherit, .inherit],
        detached: Bool = false,
        onExit: @escaping (Exit) -> Void
    ) throws(LoopError) {
        let p = UnsafeMutablePointer<uv_process_t>.allocate(capacity: 1)
        super.init(loop: loop, pointer: p)
        self.onExit = onExit

        var pipeList: [PipeStream?] = []
        var containers = [uv_stdio_container_t](repeating: uv_stdio_container_t(), count: stdio.count)
        for (i, s) in stdio.enumerated() {
            switch s {
            case .ignore:
                containers[i].flags = UV_IGNORE
                pipeList.append(nil)
            case .inherit:
                containers[i].flags = UV_INHERIT_FD
                containers[i].data.fd = Int32(i)
                pipeList.append(nil)
            case .fileDescriptor(let fd):
                containers[i].flags = UV_INHERIT_FD
                containers[i].data.fd = fd
                pipeList.append(nil)
            case .pipe:
                let pipe: PipeStream
                do { pipe = try PipeStream(loop: loop) } catch {
                    for p in pipeList { p?.close() }
                    failedInit()
                    throw error
                }
                containers[i].flags = uv_stdio_flags(UV_CREATE_PIPE.rawValue | UV_READABLE_PIPE.rawValue | UV_WRITABLE_PIPE.rawValue)
                containers[i].data.stream = pipe.stream
                pipeList.append(pipe)
            }
        }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { env in
            env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }

        var options = uv_process_options_t()
        options.exit_cb = { p, status, signal in
            let me = LoopHandle.object(p, as: ChildProcess.self)
            let exit = Exit(status: status, signal: signal)
            me.exit = exit
            let cb = me.onExit
            me.onExit = nil
            cb?(exit)
        }
        options.flags = detached ? UV_PROCESS_DETACHED.rawValue : 0
        let status: Int32 = argv.withUnsafeBufferPointer { argvBuf in
            containers.withUnsafeMutableBufferPointer { stdioBuf in
                executable.withCString { file in
                    options.file = file
                    options.args = UnsafeMutablePointer(mutating: argvBuf.baseAddress)
                    options.stdio_count = Int32(stdioBuf.count)
                    options.stdio = stdioBuf.baseAddress
                    if let envp {
                        return envp.withUnsafeBufferPointer { envBuf in
                            options.env = UnsafeMutablePointer(mutating: envBuf.baseAddress)
                            return spawn(options: &options, cwd: workingDirectory)
                        }
                    }
                    return spawn(options: &options, cwd: workingDirectory)
                }
            }
        }
        func spawn(options: inout uv_process_options_t, cwd: String?) -> Int32 {
            if let cwd {
                return cwd.withCString { c in
                    options.cwd = c
                    return uv_spawn(loop.raw, p, &options)
                }
            }
            return uv_spawn(loop.raw, p, &options)
        }
        if status < 0 {
            // libuv docs: on spawn failure the handle is still initialised and must be closed.
            for p in pipeList { p?.close() }
            didInit()
            close()
            throw LoopError(code: status, operation: "spawn \(executable)")
        }
        didInit()
        pid = p.pointee.pid
        pipes = pipeList
    }

    /// Sends `signal` to the child. Fails with ESRCH once it is gone.
    public func kill(_ signal: Int32) throws(LoopError) {
        guard exit == nil, !isClosing else {
            throw LoopError(code: Int32(UV_ESRCH.rawValue), operation: "kill \(pid)")
        }
        try LoopError.check(uv_process_kill(raw, signal), "kill \(pid)")
    }

    override func didClose() {
        onExit = nil
        for p in pipes { p?.close() }
    }
}
