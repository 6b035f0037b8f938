import PlayerHostBase

/// The daemon's scheduler is its libuv loop: timers are libuv timers, now is `uv_hrtime`.
extension EventLoop: Scheduler {
    public var nowNanoseconds: UInt64 { EventLoop.hrtime() }

    public func makeTimer() -> HostTimer? {
        try? Timer(loop: self)
    }
}

/// A libuv timer is a host timer.
extension Timer: HostTimer {}
