import Glibc
import PlayerHostConfig
import PlayerHostLoop

/// What the remote serves TLS with: nothing on loopback without a certificate; the user's
/// certificate and key; or, off loopback without them, a self-signed pair the daemon makes once
/// in its state dir (`remote-cert.pem`, `remote-key.pem`, 0600) — its fingerprint is what
/// `npctl remote pair` shows, to compare with what the phone's browser shows.
public enum RemoteTLS: Sendable {
    case plain
    case files(certificate: String, key: String, fingerprint: String?)
    case failed(String)

    /// Blocking (key generation, files): run it off the loop.
    public static func prepare(config: RemoteConfig, stateDirectory: String) -> RemoteTLS {
        if let certificate = config.certificate, let key = config.key {
            return .files(certificate: certificate, key: key, fingerprint: WebServer.fingerprint(certificate: certificate))
        }
        guard config.usesTLS, let (address, _) = config.endpoint else { return .plain }
        let certificate = stateDirectory + "/remote-cert.pem", key = stateDirectory + "/remote-key.pem"
        if access(certificate, R_OK) != 0 || access(key, R_OK) != 0 {
            _ = Directories.make(stateDirectory)  // a failure shows as the certificate's
            let name = address == "0.0.0.0" ? (RemoteFiles.lanAddress() ?? "127.0.0.1") : address
            if let why = WebServer.makeSelfSigned(certificate: certificate, key: key, address: name) { return .failed(why) }
        }
        return .files(certificate: certificate, key: key, fingerprint: WebServer.fingerprint(certificate: certificate))
    }
}
