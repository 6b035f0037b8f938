import PlayerHostPluginAPI

/// What a request may ask of mpv, and what mpv's children inherit.
///
/// Request values reach mpv's command line (`ao`, `vo`) and its `loadfile` (URLs), and mpv is
/// powerful: `--ao=pcm` writes `audiodump.wav` into its working directory, `--vo=image` writes
/// frames, and an `av://lavfi:…ametadata=…:file=PATH` URL writes any file the user can. So
/// outputs come from an allowlist of devices, URLs are files, `http(s)` and the schemes the
/// configuration adds (`[mpv] url_schemes`), and a child sees only the environment it needs to
/// find its devices — not the daemon's (`NOTIFY_SOCKET`, tokens, keys).
public struct MPVRequestPolicy: Sendable, Equatable {
    /// `ao` values a request may choose: real devices and `null`. Not `pcm` or `lavc`, which
    /// write files.
    public static let audioOutputs: [String] = ["null", "pulse", "pipewire", "alsa", "jack", "sndio", "oss", "openal", "sdl"]
    /// `vo` values a request may choose: displays and `null`. Not `image`, `lavc` or `libmpv`.
    public static let videoOutputs: [String] = ["null", "gpu", "gpu-next", "x11", "xv", "wlshm", "dmabuf-wayland", "sdl", "drm"]
    /// Schemes always allowed besides absolute file paths.
    public static let baseSchemes: [String] = ["file", "http", "https"]
    /// Environment variables a child keeps: where its devices, display and locale are.
    static let environmentNames: Set<String> = [
        "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ",
        "XDG_RUNTIME_DIR", "XDG_CACHE_HOME", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY",
        "PULSE_SERVER", "PULSE_SINK", "PULSE_COOKIE", "PULSE_RUNTIME_PATH",
    ]
    /// Prefixes of environment variables a child keeps (`LC_ALL`, `PIPEWIRE_REMOTE`, `ALSA_CARD`).
    static let environmentPrefixes: [String] = ["LC_", "PIPEWIRE_", "ALSA_"]

    /// The URL schemes allowed (lowercase): the base ones and the configuration's.
    public var urlSchemes: Set<String>

    public init(extraSchemes: [String] = []) {
        urlSchemes = Set(Self.baseSchemes + extraSchemes.map { $0.lowercased() })
    }

    /// Nil if `ao` may be used, else why not. A list (`pulse,null`: mpv tries each in turn)
    /// may be used if each of its entries may.
    public func checkAudioOutput(_ ao: String) -> String? {
        let names = ao.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return names.allSatisfy(Self.audioOutputs.contains) ? nil
            : "ao '\(ao)' is not allowed (allowed: \(Self.audioOutputs.joined(separator: ", ")), or a comma-separated list of them)"
    }

    /// Nil if `vo` may be used, else why not.
    public func checkVideoOutput(_ vo: String) -> String? {
        Self.videoOutputs.contains(vo) ? nil
            : "vo '\(vo)' is not allowed (allowed: \(Self.videoOutputs.joined(separator: ", ")))"
    }

    /// Nil if mpv may open `url`, else why not. A file is an absolute path (mpv runs in a
    /// directory of its own, so a relative one would not mean what the caller meant); anything
    /// with a scheme (`scheme://`, mpv's protocol syntax) needs an allowed scheme.
    public func checkURL(_ url: String) -> String? {
        if url.hasPrefix("/") { return nil }
        if let r = url.firstRange(of: "://") {
            let scheme = url[..<r.lowerBound].lowercased()
            if urlSchemes.contains(scheme) { return nil }
            let allowed = urlSchemes.sorted().joined(separator: ", ")
            return "URL scheme '\(scheme)' is not allowed (allowed: absolute file paths, \(allowed); the configuration's [mpv] url_schemes adds others)"
        }
        return "'\(url)' is neither an absolute file path nor a URL"
    }

    /// The part of `environment` a child keeps.
    public static func childEnvironment(_ environment: [String: String]) -> [String: String] {
        environment.filter { name, _ in
            environmentNames.contains(name) || environmentPrefixes.contains { name.hasPrefix($0) }
        }
    }
}
