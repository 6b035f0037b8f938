import Glibc
import Testing
@testable import PlayerHost

/// Plugin files (issue 16, item 5): files others could write are refused (sshd's StrictModes).
/// (A live listener's socket never taken over, against the real daemon: `DaemonEndToEndTests`.)
@Suite struct PluginFileSafetyTests {
    @Test func pluginFilesOthersCanWriteAreRefused() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        let exe = dir + "/plugin"
        _ = try runShell("printf '#!/bin/sh\\nexit 0\\n' > '\(exe)'; chmod 755 '\(exe)'")
        #expect(PluginSupervisor.unsafeReason(path: exe) == nil)
        chmod(exe, 0o777)
        #expect(PluginSupervisor.unsafeReason(path: exe)?.contains("writable by others") == true)
        chmod(exe, 0o755)
        chmod(dir, 0o777)  // a world-writable directory without the sticky bit: anyone may swap the file
        #expect(PluginSupervisor.unsafeReason(path: exe)?.contains("\(dir) is writable by others") == true)
        chmod(dir, 0o1777)  // sticky, like /tmp: files stay their owners'
        #expect(PluginSupervisor.unsafeReason(path: exe) == nil)
        chmod(dir, 0o700)
    }
}
