import CUV

extension EventLoop {
    /// The type names (`timer`, `pipe`, `signal`, …) of the handles that are active and keep the
    /// loop alive. Lets tests and `host.stats` prove an idle host arms no timer.
    public var activeHandleTypes: [String] {
        guard !isClosed else { return [] }
        var names: [String] = []
        withUnsafeMutablePointer(to: &names) { ptr in
            uv_walk(raw, { handle, arg in
                guard let handle, uv_is_active(handle) != 0, uv_has_ref(handle) != 0 else { return }
                let name = String(cString: uv_handle_type_name(uv_handle_get_type(handle)))
                arg!.assumingMemoryBound(to: [String].self).pointee.append(name)
            }, ptr)
        }
        return names.sorted()
    }
}
