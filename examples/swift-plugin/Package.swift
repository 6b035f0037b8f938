// swift-tools-version:6.0
// An out-of-process PlayerHost plugin as its own package: it depends on the PlayerHost library
// (here by path; a third party would use the repository URL) and builds one executable.
import PackageDescription

let package = Package(
    name: "swift-clock-plugin",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "PlayerHost", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "swift-clock-plugin",
            dependencies: [.product(name: "PlayerHostPluginAPI", package: "PlayerHost")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
