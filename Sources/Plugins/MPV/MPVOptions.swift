import Glibc
import PlayerHostPluginAPI

/// How the plugin runs mpv: which binary, which audio/video outputs, extra arguments, and where
/// the private IPC sockets live.
public struct MPVOptions: Sendable, Equatable {
    /// The mpv executable (an absolute path, found in PATH by `locate`).
    public var executable: String
    /// `--ao`: by default `defaultAudioOutput`, the system's output as mpv would pick it, and
    /// `null` when there is none; `null` alone plays nowhere (the demo's and the tests' choice).
    public var audioOutput: String
    /// `--audio-device` (nil: the output's default device).
    public var audioDevice: String?
    /// `--vo`; `null` by default (a daemon opens no windows unless told to).
    public var videoOutput: String
    /// More mpv arguments, appended last.
    public var extraArguments: [String]
    /// `setpriv`, when present: mpv then gets SIGKILL if the daemon dies without cleaning up
    /// (SIGKILL, a crash), instead of playing on with nobody controlling it.
    public var parentDeathWrapper: String?
    /// What requests may ask for (outputs, URL schemes).
    public var policy: MPVRequestPolicy
    /// mpv's whole environment (see `MPVRequestPolicy.childEnvironment`); nil inherits the
    /// daemon's, for tests only.
    public var environment: [String: String]?
    /// How long mpv may take to answer a command before it is taken for hung, killed and
    /// restarted. mpv answers IPC commands at once (loading and seeking happen later), so a
    /// second is ample; it bounds how long a hung mpv can hold anything.
    public var answerTimeoutMS: UInt64 = 1000
    /// When mpv is restarted after it died, and when it is given up on.
    public var restartPolicy = RestartPolicy.standard
    /// Sessions (each one mpv process) the plugin runs at most, those being created included
    /// (`[mpv] max_sessions`). `mpv.open` past it is error 1050 naming the key: whoever calls it,
    /// callers cannot start more than this many mpv between them.
    public var maxSessions = MPVOptions.defaultMaxSessions
    /// `max_sessions` when the configuration does not say.
    public static let defaultMaxSessions = 16
    /// `--ao` when neither the environment nor the configuration says: mpv's own probing order
    /// (`mpv --ao=help` lists it; mpv 0.35 tries pipewire, pulse, alsa, jack, sdl and stops),
    /// then `null`. Without that last entry an mpv that finds no audio server fails to play at
    /// all (`--audio-fallback-to-null` does not cover the probe failing), and the queue stalls.
    public static let defaultAudioOutput = "pipewire,pulse,alsa,jack,sdl,null"
    /// `--vo` when neither the environment nor the configuration says.
    public static let defaultVideoOutput = "null"

    public init(executable: String, audioOutput: String = MPVOptions.defaultAudioOutput, videoOutput: String = "null",
                extraArguments: [String] = [], parentDeathWrapper: String? = nil,
                policy: MPVRequestPolicy = MPVRequestPolicy(), environment: [String: String]? = nil) {
        self.executable = executable
        self.audioOutput = audioOutput
        self.videoOutput = videoOutput
        self.extraArguments = extraArguments
        self.parentDeathWrapper = parentDeathWrapper
        self.policy = policy
        self.environment = environment
    }

    /// `PLAYERHOST_MPV_AO` and `PLAYERHOST_MPV_VO` as the daemon was started with (non-empty
    /// only): they override the configuration's `[mpv] ao`/`vo`, at start and at every reload.
    public var environmentAudioOutput: String?
    public var environmentVideoOutput: String?

    /// From the environment: `PLAYERHOST_MPV` (the binary; default `mpv` in PATH; empty or
    /// `off` disables), `PLAYERHOST_MPV_AO`, `PLAYERHOST_MPV_VO` (the operator's choice, not
    /// limited like a request's), and the configuration's `[mpv]` table (see `apply`). Nil when
    /// no mpv is found.
    public static func fromEnvironment(_ env: [String: String] = SocketLocation.currentEnvironment(),
                                       config: MPVConfig? = nil) -> MPVOptions? {
        let wanted = env["PLAYERHOST_MPV"] ?? "mpv"
        guard wanted != "", wanted != "off", let path = locate(wanted, path: env["PATH"]) else { return nil }
        var o = MPVOptions(executable: path,
                           parentDeathWrapper: locate("setpriv", path: env["PATH"]),
                           policy: MPVRequestPolicy(extraSchemes: config?.urlSchemes ?? []),
                           environment: MPVRequestPolicy.childEnvironment(env))
        o.environmentAudioOutput = env["PLAYERHOST_MPV_AO"].flatMap { $0.isEmpty ? nil : $0 }
        o.environmentVideoOutput = env["PLAYERHOST_MPV_VO"].flatMap { $0.isEmpty ? nil : $0 }
        o.apply(config)
        return o
    }

    /// Takes the configuration's `[mpv]` settings that apply to players started from now on
    /// (a reload calls it too): `max_sessions`; `ao`, `audio_device` and `vo`, under the
    /// environment's `PLAYERHOST_MPV_AO`/`_VO`, else the defaults.
    public mutating func apply(_ config: MPVConfig?) {
        maxSessions = config?.maxSessions.map { max(1, $0) } ?? Self.defaultMaxSessions
        audioOutput = environmentAudioOutput ?? config?.audioOutput ?? Self.defaultAudioOutput
        videoOutput = environmentVideoOutput ?? config?.videoOutput ?? Self.defaultVideoOutput
        audioDevice = config?.audioDevice
    }

    /// `name` itself if it has a slash and is executable, else the first executable `name` in
    /// `path` (default: `/usr/local/bin:/usr/bin:/bin`).
    public static func locate(_ name: String, path: String?) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        for dir in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where !dir.isEmpty {
            let candidate = "\(dir)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The program and arguments that start one idle mpv serving IPC on `socket`.
    func command(socket: String, audioOutput ao: String? = nil, videoOutput vo: String? = nil) -> (String, [String]) {
        let audio = ao ?? audioOutput
        var mpv = [
            "--idle=yes", "--no-config", "--no-terminal", "--input-ipc-server=\(socket)",
            "--ao=\(audio)", "--vo=\(vo ?? videoOutput)",
            // Never block on a missing device or ask a question nobody can answer.
            "--audio-fallback-to-null=yes", "--force-window=no",
        ]
        // (A request choosing its output chooses the device too: the configured one is the
        // configured output's.)
        if ao == nil, let device = audioDevice, !device.isEmpty { mpv.append("--audio-device=\(device)") }
        // The null output pretends to be a device with 0.2 s of buffer, which mpv subtracts from
        // time-pos: every seek while paused would land 0.2 s short. Nobody hears it; keep it small
        // (an option of the null output only: with a list, it applies if null is what mpv picks).
        if audio.split(separator: ",").contains("null") { mpv.append("--ao-null-buffer=0.05") }
        mpv += extraArguments
        if let wrapper = parentDeathWrapper {
            return (wrapper, ["--pdeathsig", "KILL", "--", executable] + mpv)
        }
        return (executable, mpv)
    }

    /// A fresh private directory (0700) for the IPC sockets: under `$XDG_RUNTIME_DIR` when set
    /// and short enough for a socket path, else under `/tmp`.
    static func makeSocketDirectory(_ env: [String: String] = SocketLocation.currentEnvironment()) -> String? {
        var bases: [String] = []
        if let runtime = env["XDG_RUNTIME_DIR"], !runtime.isEmpty, runtime.utf8.count < 60 { bases.append(runtime) }
        bases.append("/tmp")
        for base in bases {
            var template = Array("\(base)/playerhost-mpv-XXXXXX".utf8CString)
            if let p = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) {
                return String(cString: p)
            }
        }
        return nil
    }
}
