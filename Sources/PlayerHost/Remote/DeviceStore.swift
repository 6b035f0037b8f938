import PlayerHostBase

/// The paired devices: a name, the SHA-256 of its token (the token itself is only ever in the
/// device's cookie), when it was paired and last used. Pure: hashing and the clock come from
/// outside; the service reads and writes the file (`remote-devices.json` in the state dir).
public struct DeviceStore: Sendable, Equatable {
    /// One paired device.
    public struct Device: Sendable, Equatable {
        public var name: String
        /// Lowercase hex SHA-256 of the token.
        public var tokenHash: String
        /// Wall-clock seconds (Unix time).
        public var pairedAt: Int64
        public var lastUsedAt: Int64?

        public init(name: String, tokenHash: String, pairedAt: Int64, lastUsedAt: Int64? = nil) {
            self.name = name
            self.tokenHash = tokenHash
            self.pairedAt = pairedAt
            self.lastUsedAt = lastUsedAt
        }

        var json: JSON {
            var o: [String: JSON] = ["name": .string(name), "tokenSHA256": .string(tokenHash), "pairedAt": .int(pairedAt)]
            if let lastUsedAt { o["lastUsedAt"] = .int(lastUsedAt) }
            return .object(o)
        }
    }

    /// Devices at most (pairing one more past it is refused).
    public static let maxDevices = 64
    /// Bytes of a device name.
    public static let maxNameBytes = 64
    public private(set) var devices: [Device] = []

    public init(devices: [Device] = []) { self.devices = devices }

    /// The device whose token hashes to `hash`.
    public func device(tokenHash hash: String) -> Device? {
        devices.first { PairingCodes.equalInConstantTime($0.tokenHash, hash) }
    }

    /// A name not yet taken, from `wanted` (`phone`, `phone-2`, …), cleaned of control characters.
    public func freeName(_ wanted: String) -> String {
        var base = String(wanted.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        while base.utf8.count > Self.maxNameBytes { base.removeLast() }
        if base.isEmpty { base = "device" }
        guard devices.contains(where: { $0.name == base }) else { return base }
        var n = 2
        while devices.contains(where: { $0.name == "\(base)-\(n)" }) { n += 1 }
        return "\(base)-\(n)"
    }

    /// Adds a device; false when the store is full.
    public mutating func add(_ d: Device) -> Bool {
        guard devices.count < Self.maxDevices else { return false }
        devices.append(d)
        return true
    }

    /// Removes the device called `name`; its token hash, or nil when there was none.
    public mutating func revoke(name: String) -> String? {
        guard let i = devices.firstIndex(where: { $0.name == name }) else { return nil }
        return devices.remove(at: i).tokenHash
    }

    /// Marks a use; true when it changed the stored value by a minute or more (worth a write).
    public mutating func used(tokenHash hash: String, at now: Int64) -> Bool {
        guard let i = devices.firstIndex(where: { $0.tokenHash == hash }) else { return false }
        let before = devices[i].lastUsedAt ?? 0
        devices[i].lastUsedAt = now
        // `before` came from the file: saturating, so no value there can trap the daemon.
        let (since, overflow) = now.subtractingReportingOverflow(before)
        return overflow || since >= 60
    }

    /// The file's content.
    public var json: JSON { ["version": 1, "devices": .array(devices.map(\.json))] }

    /// Reads the file's content; entries that do not parse are skipped, at most `maxDevices`.
    public init(json: JSON) {
        for d in (json["devices"]?.arrayValue ?? []).prefix(Self.maxDevices) {
            guard let name = d["name"]?.stringValue, let hash = d["tokenSHA256"]?.stringValue, hash.utf8.count == 64,
                  let paired = d["pairedAt"]?.intValue else { continue }
            devices.append(Device(name: name, tokenHash: hash, pairedAt: Int64(paired),
                                  lastUsedAt: d["lastUsedAt"]?.intValue.map(Int64.init)))
        }
    }
}
