// swift-tools-version:6.0
import PackageDescription
#if canImport(Glibc)
import Glibc

/// Whether this machine's glibc reads packed relative relocations (DT_RELR, glibc 2.36): an
/// older loader would not apply them, so playerhostd packs them only where they are read.
let loaderReadsRELR: Bool = {
    var buffer = [CChar](repeating: 0, count: 64)  // "glibc 2.36"
    guard confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count) > 0 else { return false }
    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let version = text.split(separator: " ").last ?? ""
    let parts = version.split(separator: ".").compactMap { Int($0) }
    return parts.count >= 2 && (parts[0] > 2 || (parts[0] == 2 && parts[1] >= 36))
}()
#else
let loaderReadsRELR = false
#endif

let package = Package(
    name: "PlayerHost",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "PlayerHost", targets: ["PlayerHost"]),
        .library(name: "Plugins", targets: ["Plugins"]),
        // What a plugin needs (the client/RPC side, SessionPlugin), without the daemon.
        .library(name: "PlayerHostPluginAPI", targets: ["PlayerHostPluginAPI"]),
        .executable(name: "playerhostd", targets: ["playerhostd"]),
        .executable(name: "npctl", targets: ["npctl"]),
        .executable(name: "ph-bench", targets: ["ph-bench"]),
        .executable(name: "playerhost-artwork", targets: ["playerhost-artwork"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        // The only target that sees libuv's headers. Everything else goes through Loop/.
        .systemLibrary(
            name: "CUV",
            pkgConfig: "libuv",
            providers: [.apt(["libuv1-dev"])]
        ),
        // sd-bus (libsystemd) for the MPRIS2 export: the vtable macros Swift cannot import.
        // Like CUV, only Loop/ imports it.
        .target(
            name: "CSDBus",
            linkerSettings: [.linkedLibrary("systemd")]
        ),
        // libwebsockets on the daemon's libuv loop (a foreign loop) for the web remote, and
        // OpenSSL's SHA-256 for its tokens. Like CUV, only Loop/ imports it. Neither is linked:
        // ph_ws.c loads them on first use (dlopen), so a daemon without the remote never maps
        // them (docs/PERFORMANCE.md, "Footprint").
        .target(name: "CWebSockets"),
        // libqrencode: npctl remote pair draws the pairing URL as a QR code in the terminal.
        .systemLibrary(
            name: "CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        // libcurl for the artwork helper's fetches: linked only into the helper, never the daemon,
        // so no HTTP body is ever in the daemon's memory or written from its loop.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // libvips and libavformat: linked only into the artwork helper, never the daemon.
        .systemLibrary(
            name: "CArtwork",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev", "libavformat-dev"])]
        ),
        // The layers (docs: README "Layout"). Each folder of Sources/PlayerHost is its own target, so
        // the compiler holds the rules: the model imports only the standard library (and Base's
        // value vocabulary), only Loop sees C libraries, and npctl's Client never reaches Host.
        // Vocabulary every layer shares: the JSON value tree, the error-code table, the version.
        .target(name: "PlayerHostBase", path: "Sources/PlayerHost/Base"),
        .target(
            name: "PlayerHostModel",
            dependencies: [
                "PlayerHostBase",
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "HashTreeCollections", package: "swift-collections"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            path: "Sources/PlayerHost/Model"
        ),
        .target(name: "PlayerHostRPC", dependencies: ["PlayerHostBase"], path: "Sources/PlayerHost/RPC"),
        .target(
            name: "PlayerHostLoop",
            dependencies: ["PlayerHostBase", "CUV", "CSDBus", "CWebSockets"],
            path: "Sources/PlayerHost/Loop"
        ),
        .target(
            name: "PlayerHostClient",
            dependencies: ["PlayerHostBase", "PlayerHostRPC", "PlayerHostModel"],
            path: "Sources/PlayerHost/Client"
        ),
        .target(
            name: "PlayerHostServer",
            dependencies: [
                "PlayerHostBase", "PlayerHostRPC", "PlayerHostLoop", "PlayerHostClient",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/PlayerHost/Server"
        ),
        .target(
            name: "PlayerHostMPRIS",
            dependencies: ["PlayerHostBase", "PlayerHostModel", "PlayerHostLoop"],
            path: "Sources/PlayerHost/MPRIS"
        ),
        .target(
            name: "PlayerHostConfig",
            // No Server, no Loop: a refused config is a `ConfigError`; `HostError` is the Host's.
            dependencies: [
                "PlayerHostBase", "PlayerHostModel", "PlayerHostRPC",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/PlayerHost/Config"
        ),
        .target(
            name: "PlayerHostPlugin",
            dependencies: [
                "PlayerHostBase", "PlayerHostModel", "PlayerHostRPC", "PlayerHostLoop", "PlayerHostClient",
                "PlayerHostConfig",
            ],
            path: "Sources/PlayerHost/Plugin"
        ),
        // The web remote (issue 25): its HTTP/WebSocket protocol, pairing, tokens and devices, and the
        // service that links the page to the host as an in-process client. The page is static
        // files in Remote/Page, installed beside the daemon (scripts/install.sh).
        .target(
            name: "PlayerHostRemote",
            dependencies: [
                "PlayerHostBase", "PlayerHostModel", "PlayerHostRPC", "PlayerHostLoop", "PlayerHostConfig",
                "PlayerHostPlugin", "PlayerHostClient",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/PlayerHost/Remote",
            exclude: ["Page"]
        ),
        .target(
            name: "PlayerHostHost",
            dependencies: [
                "PlayerHostBase", "PlayerHostModel", "PlayerHostRPC", "PlayerHostLoop", "PlayerHostClient",
                "PlayerHostServer", "PlayerHostMPRIS", "PlayerHostConfig", "PlayerHostPlugin", "PlayerHostRemote",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            path: "Sources/PlayerHost/Host"
        ),
        // The plugins' API: the layers a plugin may use, re-exported (no Host, no Server).
        .target(
            name: "PlayerHostPluginAPI",
            dependencies: [
                "PlayerHostBase", "PlayerHostModel", "PlayerHostRPC", "PlayerHostLoop", "PlayerHostClient",
                "PlayerHostMPRIS", "PlayerHostConfig", "PlayerHostPlugin",
            ],
            path: "Sources/PlayerHost/PluginAPI"
        ),
        // The umbrella the daemon, benchmarks and tests import: every layer re-exported.
        .target(
            name: "PlayerHost",
            dependencies: [
                "PlayerHostBase", "PlayerHostModel", "PlayerHostRPC", "PlayerHostLoop", "PlayerHostClient",
                "PlayerHostServer", "PlayerHostMPRIS", "PlayerHostConfig", "PlayerHostPlugin", "PlayerHostHost",
                "PlayerHostRemote",
            ],
            path: "Sources/PlayerHost",
            // The layers' folders are their own targets (above): not this one's files.
            exclude: ["Base", "Model", "RPC", "Loop", "Client", "Server", "MPRIS", "Config", "Plugin", "Host", "Remote", "PluginAPI"],
            sources: ["PlayerHost.swift"]
        ),
        .target(
            name: "Plugins",
            dependencies: ["PlayerHostPluginAPI"]
        ),
        .executableTarget(
            name: "playerhostd",
            dependencies: [
                "PlayerHost", "Plugins",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["startup-order.txt"],
            // No Foundation, not even FoundationEssentials: the config's TOML reader and the
            // command line (`DaemonCommandLine`) are the package's own, so the standard library
            // links statically and nothing else comes with it: fewer libraries to map and less
            // code to relocate and page in at start (docs/PERFORMANCE.md, "Footprint").
            linkerSettings: [.unsafeFlags([
                "-static-stdlib",
                // lld (the toolchain's own): gold has neither packed relocations nor a symbol
                // ordering file.
                "-use-ld=lld",
            ] + (loaderReadsRELR ? [
                // Relative relocations packed (DT_RELR, glibc >= 2.36): the loader reads ~7 KB
                // instead of 790 KB of .rela.dyn at every start.
                "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
            ] : []) + [
                // The static stdlib's link arguments export every symbol of the executable (9 700,
                // 0.9 MB of .dynsym/.dynstr the loader touches); nothing looks them up.
                "-Xlinker", "--no-export-dynamic",
                // The functions start-up runs, first and together (scripts/startup-order.py makes
                // the list): start-up pages in ~1 MB of contiguous code instead of touching most
                // of the 8.7 MB. A name that no longer exists is skipped (no warning).
                "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/playerhostd/startup-order.txt",
                "-Xlinker", "--no-warn-symbol-ordering",
            ])]
        ),
        .executableTarget(
            name: "npctl",
            // The client side only: no Loop (libuv, sd-bus, libcurl), no Host.
            dependencies: [
                "PlayerHostBase", "PlayerHostModel", "PlayerHostRPC", "PlayerHostClient", "CQRencode",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // A whole `npctl status` is mostly process start-up, and most of that was the dynamic
            // loader relocating libswiftCore, Foundation, ICU and libcurl's dependencies: with the
            // client-only dependencies above and the standard library linked statically it is a
            // fraction of it (docs/PERFORMANCE.md, "npctl start-up"). Allowed here because npctl
            // is this package's own executable, never a dependency.
            linkerSettings: [.unsafeFlags([
                "-static-stdlib",
                // swift-argument-parser imports FoundationEssentials (not Foundation, not ICU); its
                // static archives reference each other, so they are resolved as one group.
                "-Xlinker", "--start-group",
                "-lFoundationEssentials", "-l_FoundationCShims", "-l_FoundationCollections",
                "-lswiftSynchronization", "-lswiftDispatch", "-ldispatch", "-lBlocksRuntime",
                "-Xlinker", "--end-group",
            ])]
        ),
        .executableTarget(
            name: "playerhost-artwork",
            dependencies: ["CArtwork", "CCurl", "PlayerHost"]
        ),
        .executableTarget(
            name: "ph-bench",
            dependencies: ["PlayerHost"]
        ),
        .testTarget(
            name: "PlayerHostTests",
            dependencies: ["PlayerHost", "Plugins"],
            // toml-test's TOML 1.0 cases, read by TOMLConformanceTests from the source tree.
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
