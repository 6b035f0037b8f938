/// String enums whose raw values are wire names; `parse` turns a bad name into
/// `invalidArgument` listing the accepted ones, so the RPC layer needs no per-enum code.
public protocol WireEnum: RawRepresentable, CaseIterable where RawValue == String {}

extension WireEnum {
    /// The case named `name`, or `invalidArgument` naming `field` and the accepted values.
    public static func parse(_ name: String, field: String) throws -> Self {
        if let v = Self(rawValue: name) { return v }
        let accepted = allCases.map(\.rawValue)
        throw ModelError.invalid("\(field) '\(name)' is not one of \(accepted.joined(separator: ", "))",
                                 ModelError.Detail(field: field, value: name, accepted: accepted))
    }
}

extension AudioCategory: WireEnum {}
extension AudioOption: WireEnum {}
extension InterruptionType: WireEnum {}
extension RepeatMode: WireEnum {}
extension ShuffleMode: WireEnum {}
extension PlayerStatus: WireEnum {}
extension PlayerDriver: WireEnum {}
extension MediaType: WireEnum {}
extension PlaybackState: WireEnum {}
extension RemoteCommandKind: WireEnum {}
