/// The one-time codes of `npctl remote pair`: each single-use, valid for a while, drawn from
/// 32⁸ ≈ 10¹² possibilities, and at most `maxWrongPerMinute` wrong tries a minute per address
/// (past that an address is refused before its code is even compared). Pure: the clock
/// (milliseconds) and the random bytes are passed in.
public struct PairingCodes: Sendable {
    /// A code waiting to be used, and the name the device it pairs will get.
    struct Pending: Sendable {
        var code: String
        var deviceName: String
        var expiresAt: UInt64
    }

    /// What a try at a code gives.
    public enum Outcome: Sendable, Equatable {
        /// The code was good: pair a device of this name (the code is spent).
        case paired(deviceName: String)
        /// No such code, or it expired or was used.
        case wrong
        /// This address tried too many wrong codes in the last minute.
        case tooManyTries
    }

    /// The alphabet of codes: 32 symbols without look-alikes (no 0/O, 1/I), so a byte maps to one without bias.
    public static let alphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ".utf8)
    public static let length = 8
    public var validMilliseconds: UInt64
    public var maxWrongPerMinute = 5
    /// Codes outstanding at once (a new one past it pushes out the oldest).
    public var maxPending = 16
    /// Addresses whose wrong tries are remembered (past it the oldest are forgotten).
    public var maxAddresses = 4096
    private var pending: [Pending] = []
    private var wrongTries: [String: [UInt64]] = [:]

    public init(validSeconds: Int = 120) {
        validMilliseconds = UInt64(max(validSeconds, 1)) * 1000
    }

    /// A new code for a device called `deviceName`, from `random` (at least `length` bytes).
    public mutating func issue(deviceName: String, now: UInt64, random: [UInt8]) -> String {
        let symbols = random.prefix(Self.length).map { Self.alphabet[Int($0 % UInt8(Self.alphabet.count))] }
        let code = String(decoding: symbols, as: UTF8.self)
        pending.removeAll { $0.expiresAt <= now }
        if pending.count >= maxPending { pending.removeFirst(pending.count - maxPending + 1) }
        pending.append(Pending(code: code, deviceName: deviceName, expiresAt: now &+ validMilliseconds))
        return code
    }

    /// Tries `code` from `address`.
    public mutating func redeem(_ code: String, from address: String, now: UInt64) -> Outcome {
        // Tries within the last minute (`t + 60 s > now`: no underflow near the clock's start).
        let recent: (UInt64) -> Bool = { $0 &+ 60_000 > now }
        var tries = (wrongTries[address] ?? []).filter(recent)
        guard tries.count < maxWrongPerMinute else {
            wrongTries[address] = tries
            return .tooManyTries
        }
        pending.removeAll { $0.expiresAt <= now }
        if let i = pending.firstIndex(where: { Self.equalInConstantTime($0.code, code) }) {
            let name = pending[i].deviceName
            pending.remove(at: i)
            return .paired(deviceName: name)
        }
        tries.append(now)
        if wrongTries[address] == nil && wrongTries.count >= maxAddresses {
            wrongTries = wrongTries.filter { $0.value.last.map(recent) ?? false }
            if wrongTries.count >= maxAddresses, let oldest = wrongTries.min(by: { ($0.value.last ?? 0) < ($1.value.last ?? 0) }) {
                wrongTries[oldest.key] = nil
            }
        }
        wrongTries[address] = tries
        return .wrong
    }

    /// Compares without stopping at the first difference (no timing hint at the prefix).
    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var d: UInt8 = 0
        for i in x.indices { d |= x[i] ^ y[i] }
        return d == 0
    }
}
