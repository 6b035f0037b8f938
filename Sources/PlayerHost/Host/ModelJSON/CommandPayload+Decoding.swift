import PlayerHostBase
import PlayerHostModel

// `command.send`'s and `command.configure`'s wire objects decoded into the model's typed
// `CommandPayload` and `CommandConfigurationPatch`, beside their encoders: the model never reads
// JSON (DESIGN "Layers"). The errors are the protocol's (codes, messages and data the protocol
// tests assert); the checks run in the order the wire's were always checked, and the model
// checks the values again (a typed caller gets the same refusals).

extension CommandPayload {
    /// Decodes the fields `command` reads, each of its type; every other field (and any `null`)
    /// goes to `extra` untouched. Whether a required field is there, and values that depend on
    /// the command's configuration, are the model's to check (`CommandEvent`).
    public init(json: [String: JSON], for command: RemoteCommandKind) throws {
        self.init()
        let read = Self.fields(of: command)
        func number(_ value: JSON, _ key: String) throws -> Double {
            guard let d = value.doubleValue, d.isFinite else { throw ModelError.requiredNumber(command, key) }
            return d
        }
        for (key, value) in json {
            guard read.contains(key), !value.isNull else {
                extra[key] = value
                continue
            }
            switch key {
            case "interval":
                guard let d = value.doubleValue else { throw ModelError.badPayload(command, "interval must be a number > 0") }
                interval = try CommandEvent.checkedInterval(d, command)
            case "type":
                guard let phase = value.stringValue.flatMap(SeekPhase.init(rawValue:)) else {
                    throw ModelError.requiredChoice(command, "type", SeekPhase.allCases.map(\.rawValue))
                }
                seekType = phase
            case "position": position = try number(value, key)
            case "rate": rate = try number(value, key)
            case "rating": rating = try number(value, key)
            case "volume":
                guard let d = value.doubleValue else { throw ModelError.badPayload(command, "volume must be a number") }
                volume = d
            case "muted":
                guard let b = value.boolValue else { throw ModelError.badPayload(command, "muted must be a boolean") }
                muted = b
            case "repeatType":
                guard let m = value.stringValue.flatMap(RepeatMode.init(rawValue:)) else {
                    throw ModelError.requiredChoice(command, key, RepeatMode.allCases.map(\.rawValue))
                }
                repeatType = m
            case "shuffleType":
                guard let m = value.stringValue.flatMap(ShuffleMode.init(rawValue:)) else {
                    throw ModelError.requiredChoice(command, key, ShuffleMode.allCases.map(\.rawValue))
                }
                shuffleType = m
            case "isNegative":
                guard let b = value.boolValue else { throw ModelError.badPayload(command, "isNegative must be a boolean") }
                isNegative = b
            case "languageOption":
                if let tag = value.stringValue {
                    languageOption = .tag(tag)
                } else if let o = value.objectValue {
                    languageOption = .object(o)
                } else {
                    throw ModelError.badPayload(command, "languageOption (an object or a language tag) is required")
                }
            default:
                extra[key] = value
            }
        }
    }

    /// The wire object: `extra` with the typed fields over it.
    public func toJSON() -> [String: JSON] {
        var o = extra
        if let interval { o["interval"] = .double(interval) }
        if let position { o["position"] = .double(position) }
        if let rate { o["rate"] = .double(rate) }
        if let seekType { o["type"] = .string(seekType.rawValue) }
        if let repeatType { o["repeatType"] = .string(repeatType.rawValue) }
        if let shuffleType { o["shuffleType"] = .string(shuffleType.rawValue) }
        if let volume { o["volume"] = .double(volume) }
        if let muted { o["muted"] = .bool(muted) }
        if let rating { o["rating"] = .double(rating) }
        if let isNegative { o["isNegative"] = .bool(isNegative) }
        switch languageOption {
        case .tag(let tag)?: o["languageOption"] = .string(tag)
        case .object(let object)?: o["languageOption"] = .object(object)
        case nil: break
        }
        return o
    }
}
