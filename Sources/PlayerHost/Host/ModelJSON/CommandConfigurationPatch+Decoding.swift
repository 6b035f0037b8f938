import PlayerHostBase
import PlayerHostModel

// `command.send`'s and `command.configure`'s wire objects decoded into the model's typed
// `CommandPayload` and `CommandConfigurationPatch`, beside their encoders: the model never reads
// JSON (DESIGN "Layers"). The errors are the protocol's (codes, messages and data the protocol
// tests assert); the checks run in the order the wire's were always checked, and the model
// checks the values again (a typed caller gets the same refusals).

extension CommandConfigurationPatch {
    /// Decodes `command.configure`'s properties for `kind`: a property the command does not have
    /// is refused before its value is looked at; each value is checked for its type (and a list's
    /// numbers one by one, as they come).
    public init(json: [String: JSON], for kind: RemoteCommandKind) throws {
        self.init()
        let allowed = kind.configurationKeys
        for (key, value) in json {
            guard allowed.contains(key) else { throw ModelError.noSuchProperty(kind, key) }
            func numbers() throws -> [Double] {
                guard let a = value.arrayValue else { throw ModelError.invalid("\(key) must be an array of numbers") }
                return try a.map {
                    guard let d = $0.doubleValue else { throw ModelError.invalid("\(key) must contain numbers > 0") }
                    return try CommandConfiguration.checkedPositive(d, key)
                }
            }
            func number() throws -> Double {
                guard let d = value.doubleValue, d.isFinite else { throw ModelError.invalid("\(key) must be a number") }
                return d
            }
            switch key {
            case "preferredIntervals": preferredIntervals = try numbers()
            case "supportedPlaybackRates": supportedPlaybackRates = try numbers()
            case "currentRepeatType":
                guard let m = value.stringValue.flatMap(RepeatMode.init(rawValue:)) else {
                    throw ModelError.invalid("currentRepeatType is off, one or all")
                }
                currentRepeatType = m
            case "currentShuffleType":
                guard let m = value.stringValue.flatMap(ShuffleMode.init(rawValue:)) else {
                    throw ModelError.invalid("currentShuffleType is off, items or collections")
                }
                currentShuffleType = m
            case "maximumVolume": maximumVolume = try CommandConfiguration.checkedMaximumVolume(try number())
            case "minimumRating": minimumRating = try number()
            case "maximumRating": maximumRating = try number()
            case "isActive":
                guard let b = value.boolValue else { throw ModelError.invalid("isActive must be a boolean") }
                isActive = b
            case "localizedTitle":
                guard let s = value.stringValue else { throw ModelError.invalid("localizedTitle must be a string") }
                localizedTitle = s
            default: break
            }
        }
    }
}
