import Glibc
import PlayerHostClient

// The server side of the socket's location: only the daemon creates and checks the directory,
// so this half lives with the server and npctl never links it.
extension SocketLocation {
    /// Creates the socket's directory if missing (mode 0700). An existing directory must be ours;
    /// the default directories are tightened to 0700, a directory the user named is left alone.
    public static func prepareDirectory(for socketPath: String, isDefault: Bool) throws(ServerError) {
        let dir = directory(of: socketPath)
        var st = stat()
        if stat(dir, &st) != 0 {
            // Create parents as needed (only the last component gets 0700 semantics that matter).
            var built = dir.hasPrefix("/") ? "" : "."
            for part in dir.split(separator: "/") {
                built += "/" + part
                if mkdir(built, 0o700) != 0 && errno != EEXIST {
                    throw .directory(dir, reason: String(cString: strerror(errno)))
                }
            }
            return
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { throw .directory(dir, reason: "not a directory") }
        if isDefault {
            guard st.st_uid == getuid() else {
                throw .directory(dir, reason: "owned by uid \(st.st_uid), not by us (uid \(getuid()))")
            }
            if st.st_mode & 0o077 != 0 { _ = chmod(dir, 0o700) }
        }
    }
}
