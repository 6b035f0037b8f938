import CUV

/// An error reported by libuv: its negative errno-style code, symbolic name and message.
public struct LoopError: Error, Equatable, CustomStringConvertible, Sendable {
    /// libuv's code (negative), e.g. `UV_EADDRINUSE`.
    public let code: Int32
    /// What was being attempted, e.g. `"bind /run/x.sock"`.
    public let operation: String

    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// libuv's symbolic name, e.g. `EADDRINUSE`.
    public var name: String { String(cString: uv_err_name(code)) }
    /// libuv's human message, e.g. `address already in use`.
    public var message: String { String(cString: uv_strerror(code)) }
    public var description: String { "\(operation): \(message) (\(name))" }

    /// True for the end-of-stream pseudo error.
    public var isEOF: Bool { code == Int32(UV_EOF.rawValue) }

    /// Throws when a libuv call returned a negative status.
    @inline(__always)
    static func check(_ status: Int32, _ operation: @autoclosure () -> String) throws(LoopError) {
        if status < 0 { throw LoopError(code: status, operation: operation()) }
    }
}
