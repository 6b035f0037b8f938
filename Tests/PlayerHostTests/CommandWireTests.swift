import Testing
@testable import PlayerHost
@testable import PlayerHostModel

/// Issue 24, the wire at the edge: the model takes a typed `CommandPayload` and
/// `CommandConfigurationPatch`; the host decodes the wire's objects into them. A typed caller and
/// a wire caller meet the same refusals (code, message, data), in the same order.
@Suite struct CommandWireTests {
    func model() throws -> NowPlayingModel {
        var m = NowPlayingModel()
        try m.makeEligible("s")
        return m
    }

    func refusal(_ body: () throws -> Void) -> JSON? {
        do { try body() } catch let e as ModelError { return e.toJSON() } catch { return nil }
        return nil
    }

    @Test func typedAndWirePayloadsMeetTheSameRefusal() throws {
        var m = try model()
        let wire = refusal { _ = try m.sendCommand(.changePlaybackRate, session: "s", payload: ["rate": 3], now: at(1)) }
        let typed = refusal { _ = try m.sendCommand(.changePlaybackRate, session: "s", payload: CommandPayload(rate: 3), now: at(1)) }
        #expect(wire == typed)
        #expect(wire == ["code": 1000, "message": "changePlaybackRate: rate 3.0 is not one of supportedPlaybackRates",
                         "data": ["command": "changePlaybackRate", "rate": 3.0,
                                  "supportedPlaybackRates": [0.5, 0.75, 1.0, 1.25, 1.5, 2.0]]])
        // Required fields are the model's to ask for, whoever calls.
        let missing = refusal { _ = try m.sendCommand(.changeRepeatMode, session: "s", now: at(1)) }
        #expect(missing?["message"] == "changeRepeatMode: repeatType must be one of off, one, all")
        #expect(refusal { _ = try m.sendCommand(.changeRepeatMode, session: "s", payload: ["repeatType": "twice"], now: at(1)) } == missing)
    }

    @Test func aDisabledCommandIsRefusedBeforeItsPayloadIsDecoded() throws {
        var m = try model()
        _ = try m.enableCommand(session: "s", .changeRepeatMode, enabled: false, now: .zero)
        let r = refusal { _ = try m.sendCommand(.changeRepeatMode, session: "s", payload: ["repeatType": 7], now: at(1)) }
        #expect(r?["code"] == .int(Int64(RPCErrorCode.commandDisabled.rawValue)))
        #expect(r?["data"] == ["session": "s", "command": "changeRepeatMode"])
        let gone = refusal { _ = try m.configureCommand(session: "nope", .skipForward, properties: ["preferredIntervals": "x"], now: .zero) }
        #expect(gone?["code"] == .int(Int64(RPCErrorCode.sessionNotFound.rawValue)))
    }

    @Test func typedAndWireConfigurationMeetTheSameRefusal() throws {
        var m = try model()
        let wire = refusal { _ = try m.configureCommand(session: "s", .play, properties: ["preferredIntervals": [1]], now: .zero) }
        let typed = refusal {
            _ = try m.configureCommand(session: "s", .play, properties: CommandConfigurationPatch(preferredIntervals: [1]), now: .zero)
        }
        #expect(wire == typed)
        #expect(wire == ["code": 1000, "message": "play has no property 'preferredIntervals' (it accepts nothing)",
                         "data": ["command": "play", "property": "preferredIntervals"]])
        let bound = CommandConfigurationPatch(preferredIntervals: [15, 1e300])
        #expect(refusal { _ = try m.configureCommand(session: "s", .skipForward, properties: bound, now: .zero) }?["code"] == -32602)
        let ok = try m.configureCommand(session: "s", .skipForward, properties: CommandConfigurationPatch(preferredIntervals: [30]), now: .zero)
        #expect(ok.value.configuration.preferredIntervals == [30])
    }

    @Test func theHandlersParamsAreTheTypedFieldsOverTheUnreadOnes() throws {
        var m = try model()
        _ = try m.addTarget(session: "s", .seekForward, client: 4, now: .zero)
        _ = try m.enableCommand(session: "s", .seekForward, enabled: true, now: .zero)
        let sent = try m.sendCommand(.seekForward, session: "s", payload: ["type": "begin", "rate": "fast", "note": nil], now: at(1))
        let call = try #require(invocations(sent).first)
        #expect(call.event.payload.seekType == .begin)
        #expect(call.event.payload.extra == ["rate": "fast", "note": nil], "fields seekForward does not read pass through")
        #expect(call.event.toJSON() == ["command": "seekForward", "type": "begin", "rate": "fast", "note": nil])
    }
}
