import PlayerHostRPC

extension HostMethods {
    /// `events.subscribe` / `events.unsubscribe`: a connection joins the JSON-RPC subscribers sink.
    static func eventMethods(_ np: NowPlayingService) -> [RPCMethod] {
        let names = RPCSubscribers.topicNames
        let subscribers = np.publisher.subscribers
        return [
            .sync("events.subscribe", summary: "Receive `event` notifications for topics (\(names.joined(separator: ", "))); current values are sent at once.",
                  params: [.required("topics", .array, "topic names")], result: .boolean) { call throws(RPCError) in
                let wanted = try call.params.stringArray("topics") ?? []
                let new = try subscribers.subscribe(call.connection, wanted)
                // The current value at once, so a subscriber never starts from nothing (nor from
                // a value the gate is about to replace).
                if new.contains(.nowPlaying) {
                    subscribers.start(call.connection, from: np.publisher.currentNowPlaying())
                }
                if new.contains(.sessions) {
                    call.connection.notify(method: "event", params: [
                        "topic": "sessions", "type": "sessions", "sessions": try np.read { m, _ in m.sessionListJSON() },
                    ])
                }
                return true
            },
            .sync("events.unsubscribe", summary: "Stop receiving the given topics (all when none given).",
                  params: [.optional("topics", .array, "topic names")], result: .boolean) { call throws(RPCError) in
                subscribers.unsubscribe(call.connection, try call.params.stringArray("topics"))
                return true
            },
        ]
    }
}
