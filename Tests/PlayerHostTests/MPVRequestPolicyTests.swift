import Testing
@testable import PlayerHost
@testable import Plugins

/// What a request may ask of mpv, without spawning anything.
@Suite struct MPVRequestPolicyTests {
    static let urls: [(url: String, allowed: Bool)] = [
        ("/music/a b.ogg", true),
        ("file:///music/a.ogg", true),
        ("http://example.org/radio.mp3", true),
        ("HTTPS://example.org/x.ogg", true),
        ("av://lavfi:sine=d=1,ametadata=mode=print:file=/tmp/x", false),
        ("lavfi://sine", false),
        ("edl:///music/a.ogg", false),
        ("memory://abc", false),
        ("rtmp://example.org/live", false),
        ("one.ogg", false),
        ("-", false),
        ("--ao=pcm", false),
    ]

    @Test(arguments: urls) func urlsAreFilesHttpOrConfiguredSchemes(_ url: String, _ allowed: Bool) {
        #expect((MPVRequestPolicy().checkURL(url) == nil) == allowed, "\(url)")
    }

    @Test func theConfigurationAddsSchemes() {
        let p = MPVRequestPolicy(extraSchemes: ["RTMP"])
        #expect(p.checkURL("rtmp://example.org/live") == nil)
        #expect(p.checkURL("av://lavfi:sine")?.contains("allowed: absolute file paths, file, http, https, rtmp") == true)
    }

    @Test func outputsComeFromTheAllowlist() {
        let p = MPVRequestPolicy()
        for ao in ["null", "pulse", "pipewire", "alsa"] { #expect(p.checkAudioOutput(ao) == nil) }
        for ao in ["pcm", "lavc", "null,pcm", "pcm:file=/tmp/x", ""] { #expect(p.checkAudioOutput(ao) != nil, "\(ao)") }
        for vo in ["null", "gpu", "x11"] { #expect(p.checkVideoOutput(vo) == nil) }
        for vo in ["image", "lavc", "libmpv", "gpu,image"] { #expect(p.checkVideoOutput(vo) != nil, "\(vo)") }
        #expect(p.checkAudioOutput("pcm")?.hasPrefix("ao 'pcm' is not allowed (allowed: null, pulse") == true)
    }

    @Test func childrenKeepOnlyTheEnvironmentTheirDevicesNeed() {
        let env = MPVRequestPolicy.childEnvironment([
            "PATH": "/usr/bin", "HOME": "/home/u", "XDG_RUNTIME_DIR": "/run/user/1", "LANG": "C.UTF-8",
            "LC_ALL": "C", "PULSE_SERVER": "unix:/p", "PIPEWIRE_REMOTE": "x", "DISPLAY": ":0",
            "WAYLAND_DISPLAY": "wayland-0",
            "NOTIFY_SOCKET": "/run/systemd/notify", "AWS_SECRET_ACCESS_KEY": "k", "GITHUB_TOKEN": "t",
            "LD_PRELOAD": "/evil.so", "PLAYERHOST_SOCKET": "/run/p.sock", "SSH_AUTH_SOCK": "/s",
        ])
        #expect(Set(env.keys) == ["PATH", "HOME", "XDG_RUNTIME_DIR", "LANG", "LC_ALL", "PULSE_SERVER",
                                  "PIPEWIRE_REMOTE", "DISPLAY", "WAYLAND_DISPLAY"])
    }
}
