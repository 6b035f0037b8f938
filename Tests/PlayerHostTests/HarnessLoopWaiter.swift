import Glibc
@testable import PlayerHost

/// Waits for a `DBusTestPeer`'s socket on a daemon harness's loop, so the daemon's stderr keeps
/// being read while the peer waits (the harness reads it only while its loop runs). Close it
/// before the harness: its poll is a handle of that loop.
final class HarnessLoopWaiter {
    let harness: DaemonHarness
    private var poll: FDPoll?
    private var fd: Int32 = -1
    private var ready = false

    init(_ harness: DaemonHarness) { self.harness = harness }

    /// Makes `peer` wait through this.
    func attach(_ peer: DBusTestPeer) {
        peer.waiter = { [weak self] fd, events, seconds in self?.wait(fd, events, seconds) }
    }

    private func wait(_ fd: Int32, _ events: Int32, _ seconds: Double) {
        if poll == nil || fd != self.fd {
            poll?.close()
            poll = try? FDPoll(loop: harness.loop, fileDescriptor: fd)
            self.fd = fd
        }
        guard let poll else { return }
        var wanted: FDPoll.Events = []
        if events & Int32(POLLIN) != 0 { wanted.insert(.readable) }
        if events & Int32(POLLOUT) != 0 { wanted.insert(.writable) }
        ready = false
        try? poll.start(wanted) { [weak self] _ in self?.ready = true }
        harness.runUntil(seconds) { self.ready }
        poll.stop()
    }

    func close() {
        poll?.close()
        poll = nil
    }
}
