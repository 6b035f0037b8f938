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
                // The current value at once, so a subscriber never starts from nothing: what the
                // gate last sent, so that a value waiting in the gate is not seen twice.
                if new.contains(.nowPlaying) {
                    let p = np.publisher
                    let value = p.gate.published == nil ? p.currentNowPlaying() : p.publishedNowPlaying
                    call.connection.sendEncoded(PublishedEvent(.nowPlaying(value)).notificationLine)
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
