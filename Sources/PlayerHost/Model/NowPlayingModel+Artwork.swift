/// Resolved artwork in the model: the resolver's result becomes a model operation, so it is
/// published like any other info change (through the one publication path).
extension NowPlayingModel {
    /// Records what a session's artwork resolution came to. Published only while it still
    /// answers the session's current track (`artwork.image` then appears in its info).
    public mutating func settleArtwork(session id: SessionID, _ outcome: ArtworkOutcome, now: MonotonicInstant) throws -> ModelResult<Void> {
        try perform(now) { m, _ in
            _ = try m.session(id)
            m.sessions[id]!.artworkOutcome = outcome
        }
    }

    /// `info` with the resolved image set on its artwork (or, for a media file's implicit
    /// artwork, an artwork carrying it) — only when the outcome answers this very info.
    func withResolvedArtwork(_ info: NowPlayingInfo, _ s: Session) -> NowPlayingInfo {
        guard case .resolved(let request, let image)? = s.artworkOutcome,
              ArtworkRequest(info: info) == request else { return info }
        var out = info
        if case .artwork(var a)? = info[.artwork] {
            a.image = image
            out[.artwork] = .artwork(a)
        } else {
            out[.artwork] = .artwork(Artwork(id: request.id, sources: ["embedded"], image: image))
        }
        return out
    }

    /// The fault of a resolution that failed for the current track.
    func artworkFaults(_ s: Session, _ info: NowPlayingInfo) -> [Diagnostic] {
        guard case .failed(let request, let reason)? = s.artworkOutcome, ArtworkRequest(info: info) == request else { return [] }
        return [Diagnostic(severity: .warning, code: "artworkFailed",
                           message: "artwork '\(request.id)' could not be resolved: \(reason)",
                           fix: "give artwork a source that serves an image (http(s), file or embedded)")]
    }
}
