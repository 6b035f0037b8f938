/// Version numbers the host reports.
public enum HostVersion {
    /// The daemon's release.
    public static let string = "0.1.0"
    /// The control protocol's version; bumped on incompatible changes.
    public static let protocolVersion = 1
}
