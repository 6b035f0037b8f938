import Testing
@testable import PlayerHost

/// Issue 12: `scripts/install.sh` installs a verified systemd user unit, completions and man
/// pages, and `--uninstall` removes exactly that. (`--bin-dir` reuses the test build instead of
/// a release build.)
@Suite(.serialized) struct InstallScriptTests {
    @Test func installThenUninstallLeavesThePrefixAsItWas() throws {
        let prefix = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(prefix)'") }
        // Something of the user's own in a directory the install also uses: it must stay.
        try runShell("mkdir -p '\(prefix)/bin' && echo mine > '\(prefix)/bin/other'")
        let listing = "cd '\(prefix)' && find . -printf '%p %m\\n' | sort"
        let before = try runShell(listing).output
        let script = DaemonHarness.packageRoot + "/scripts/install.sh"

        let install = try runShell("'\(script)' --prefix '\(prefix)' --bin-dir '\(DaemonHarness.binDirectory)' 2>&1")
        // The script runs `systemd-analyze verify` on the unit and fails if it does not pass.
        #expect(install.status == 0, "\(install.output)")
        let unit = try runShell("cat '\(prefix)/share/systemd/user/playerhostd.service'").output
        #expect(unit.contains("Type=notify") && unit.contains("Restart=on-failure"))
        #expect(unit.contains("ExecReload=/bin/kill -HUP $MAINPID"))
        #expect(unit.contains("ExecStart=\(prefix)/bin/playerhostd"))
        for file in ["bin/playerhostd", "bin/npctl", "bin/playerhost-artwork", "share/bash-completion/completions/npctl",
                     "share/zsh/site-functions/_npctl", "share/fish/vendor_completions.d/npctl.fish",
                     "share/man/man1/npctl.1", "share/man/man1/playerhostd.1"] {
            #expect(try runShell("test -s '\(prefix)/\(file)'").status == 0, "\(file)")
        }
        #expect(try runShell("'\(prefix)/bin/npctl' --version").status == 0)

        let uninstall = try runShell("'\(script)' --prefix '\(prefix)' --uninstall 2>&1")
        #expect(uninstall.status == 0, "\(uninstall.output)")
        #expect(try runShell(listing).output == before)
    }
}
