// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "PlayerHost",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "PlayerHost", targets: ["PlayerHost"]),
        .library(name: "Plugins", targets: ["Plugins"]),
        .executable(name: "playerhostd", targets: ["playerhostd"]),
        .executable(name: "npctl", targets: ["npctl"]),
        .executable(name: "ph-bench", targets: ["ph-bench"]),
        .executable(name: "playerhost-artwork", targets: ["playerhost-artwork"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
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
        // libcurl for Loop/CurlMulti (HTTP fetches of artwork on the loop).
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
        .target(
            name: "PlayerHost",
            dependencies: [
                "CUV",
                "CSDBus",
                "CCurl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "HashTreeCollections", package: "swift-collections"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "Plugins",
            dependencies: ["PlayerHost"]
        ),
        .executableTarget(
            name: "playerhostd",
            dependencies: [
                "PlayerHost", "Plugins",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "npctl",
            dependencies: [
                "PlayerHost",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // A whole `npctl status` is mostly process start-up, and most of that was the
            // dynamic loader relocating libswiftCore, Foundation and ICU (~12 ms of CPU):
            // linked statically it is a fraction of it (docs/PERFORMANCE.md, "npctl start-up").
            // Allowed here because npctl is this package's own executable, never a dependency.
            linkerSettings: [.unsafeFlags([
                "-static-stdlib",
                // TOMLKit (the daemon's config, in PlayerHost) imports Foundation; its static
                // archives reference each other, so they are resolved as one group.
                "-Xlinker", "--start-group",
                "-lFoundation", "-lFoundationInternationalization", "-lFoundationEssentials", "-lCoreFoundation",
                "-l_FoundationICU", "-l_FoundationCShims", "-l_FoundationCollections", "-lswiftSynchronization", "-lswiftDispatch", "-ldispatch", "-lBlocksRuntime",
                "-Xlinker", "--end-group",
                "-lstdc++",
            ])]
        ),
        .executableTarget(
            name: "playerhost-artwork",
            dependencies: ["CArtwork", "PlayerHost"]
        ),
        .executableTarget(
            name: "ph-bench",
            dependencies: ["PlayerHost"]
        ),
        .testTarget(
            name: "PlayerHostTests",
            dependencies: ["PlayerHost", "Plugins"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
