import Foundation
import HTTPTypes
import HummingbirdTesting
import JWTKit
import LiftbaseCore
import Testing

@testable import LiftbaseHTTP

/// A provider of the test's own: signing keys it makes (ES256, and RS256 as Apple and Google
/// sign), the JWKS of their public halves, and ID tokens it signs.
struct TestProvider {
    static let issuer = "https://id.example.test"
    static let clientID = "app.liftbase.test"

    struct Key {
        let kid: String
        let jwk: [String: String]
        let add: @Sendable (JWTKeyCollection) async throws -> Void
    }

    static func es256(kid: String) -> Key {
        let key = ES256PrivateKey()
        let (x, y) = key.publicKey.parameters!
        return Key(
            kid: kid,
            jwk: ["kty": "EC", "crv": "P-256", "x": x, "y": y, "kid": kid, "alg": "ES256", "use": "sig"],
            add: { await $0.add(ecdsa: key, kid: JWKIdentifier(string: kid)) }
        )
    }

    /// An RSA key made by openssl, which Scripts/test installs.
    static func rs256(kid: String) throws -> Key {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let pem = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let key = try Insecure.RSA.PrivateKey(pem: pem)
        let (modulus, exponent) = try key.publicKey.getKeyPrimitives()
        return Key(
            kid: kid,
            jwk: [
                "kty": "RSA", "n": base64URL(modulus), "e": base64URL(exponent), "kid": kid, "alg": "RS256",
                "use": "sig",
            ],
            add: { await $0.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid)) }
        )
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func jwks(_ keys: [Key]) -> Data {
        try! JSONSerialization.data(withJSONObject: ["keys": keys.map(\.jwk)])
    }

    /// An ID token signed by `key`, its claims as a provider writes them unless changed.
    static func token(
        _ key: Key,
        subject: String = "subject-1",
        audience: String = clientID,
        issuer: String = issuer,
        expires: Date = Date().addingTimeInterval(600),
        nonce: String = "nonce-1",
        email: String? = nil
    ) async throws -> String {
        let signer = JWTKeyCollection()
        try await key.add(signer)
        let claims = IDTokenClaims(
            iss: .init(value: issuer),
            sub: .init(value: subject),
            aud: .init(value: [audience]),
            exp: .init(value: expires),
            nonce: nonce,
            email: email,
            email_verified: email == nil ? nil : .init(value: true)
        )
        return try await signer.sign(claims, kid: JWKIdentifier(string: key.kid))
    }

    static var provider: OIDCProvider {
        OIDCProvider(
            name: "test",
            issuer: issuer,
            acceptedIssuers: [issuer],
            clientIDs: [clientID],
            jwksURL: nil
        )
    }
}

/// The keys a verifier reads, which a test may change (a provider rotating its keys), and
/// how many times it read them.
final class PublishedKeys: @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [TestProvider.Key]
    private var reads = 0

    init(_ keys: [TestProvider.Key]) { self.keys = keys }

    func publish(_ keys: [TestProvider.Key]) { lock.withLock { self.keys = keys } }
    var fetches: Int { lock.withLock { reads } }

    /// The provider's discovery document and JWKS, by URL.
    func fetch(_ url: URL) throws -> Data {
        if url.absoluteString == TestProvider.issuer + "/.well-known/openid-configuration" {
            return try JSONSerialization.data(withJSONObject: ["jwks_uri": TestProvider.issuer + "/keys"])
        }
        guard url.absoluteString == TestProvider.issuer + "/keys" else { throw URLError(.fileDoesNotExist) }
        return lock.withLock {
            reads += 1
            return TestProvider.jwks(keys)
        }
    }
}

@Suite("ID tokens of OpenID Connect providers", .timeLimit(.minutes(2)))
struct IDTokenVerifierTests {
    func verifier(_ published: PublishedKeys, refetch: Duration = .zero) -> IDTokenVerifier {
        IDTokenVerifier(
            providers: [TestProvider.provider],
            fetch: { try published.fetch($0) },
            refetchInterval: refetch
        )
    }

    func refusal(_ verifier: IDTokenVerifier, _ token: String, provider: String = "test") async -> String? {
        do {
            _ = try await verifier.claimsJSON(provider: provider, idToken: token)
            return nil
        } catch let error as APIError {
            return error.code
        } catch {
            return "\(error)"
        }
    }

    @Test("a token signed by a published key (ES256 or RS256), for this app, from the issuer, unexpired: its claims")
    func accepted() async throws {
        let ec = TestProvider.es256(kid: "ec-1")
        let rsa = try TestProvider.rs256(kid: "rsa-1")
        let verifier = verifier(PublishedKeys([ec, rsa]))
        for key in [ec, rsa] {
            let token = try await TestProvider.token(key, email: "ada@example.com")
            let json = try await verifier.claimsJSON(provider: "test", idToken: token)
            let claims = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            #expect(claims["provider"] as? String == "test" && claims["sub"] as? String == "subject-1")
            #expect(claims["nonce"] as? String == "nonce-1" && claims["email_verified"] as? Bool == true)
            #expect(claims["token_sha256"] as? String == SHA256.hex(token), "what SQL keeps to refuse a replay")
        }
    }

    @Test("expired, for another audience, from another issuer, signed by another key: refused 401 invalid_id_token")
    func refused() async throws {
        let published = TestProvider.es256(kid: "k-1")
        let verifier = verifier(PublishedKeys([published]))
        #expect(
            await refusal(verifier, try await TestProvider.token(published, expires: Date().addingTimeInterval(-60)))
                == "invalid_id_token"
        )
        #expect(
            await refusal(verifier, try await TestProvider.token(published, audience: "someone.else"))
                == "invalid_id_token"
        )
        #expect(
            await refusal(verifier, try await TestProvider.token(published, issuer: "https://evil.example"))
                == "invalid_id_token"
        )
        let impostor = TestProvider.es256(kid: "k-1")
        #expect(
            await refusal(verifier, try await TestProvider.token(impostor)) == "invalid_id_token",
            "same kid, other key"
        )
        #expect(await refusal(verifier, "not.a.token") == "invalid_id_token")
        #expect(
            await refusal(verifier, try await TestProvider.token(published), provider: "nobody") == "provider_not_found"
        )
    }

    @Test("keys rotate: a token of a key published since is taken once the set is read again, at most once a minute")
    func rotation() async throws {
        let old = TestProvider.es256(kid: "old")
        let new = TestProvider.es256(kid: "new")
        let published = PublishedKeys([old])
        let patient = verifier(published, refetch: .seconds(60))
        _ = try await patient.claimsJSON(provider: "test", idToken: try await TestProvider.token(old))
        published.publish([old, new])
        #expect(
            await refusal(patient, try await TestProvider.token(new)) == "invalid_id_token",
            "read a moment ago: not read again for a token that names another key"
        )
        #expect(published.fetches == 1)

        published.publish([old])
        let eager = verifier(published)
        _ = try await eager.claimsJSON(provider: "test", idToken: try await TestProvider.token(old))
        published.publish([old, new])
        _ = try await eager.claimsJSON(provider: "test", idToken: try await TestProvider.token(new))
        #expect(published.fetches == 3, "read again for the key it lacked")
    }
}

@Suite("sign-in with a provider over HTTP", .timeLimit(.minutes(2)))
struct OIDCHTTPTests {
    /// The provider's discovery document and keys served over HTTP on this machine, as a
    /// provider publishes them.
    final class KeyServer {
        let process = Process()
        let folder: URL
        let issuer: String

        init(keys: [TestProvider.Key]) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("liftbase-jwks-" + UUID().uuidString)
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent(".well-known"),
                withIntermediateDirectories: true
            )
            let port = try freePort()
            issuer = "http://127.0.0.1:\(port)"
            try JSONSerialization.data(withJSONObject: ["issuer": issuer, "jwks_uri": issuer + "/keys.json"])
                .write(to: folder.appendingPathComponent(".well-known/openid-configuration"))
            try TestProvider.jwks(keys).write(to: folder.appendingPathComponent("keys.json"))
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "python3", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", folder.path,
            ]
            // Its own output is no test's: it must not hold the test runner's pipes open.
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        deinit {
            // SIGKILL: the runner's children may inherit SIGTERM ignored.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test("an ID token signs up, then in; the same token again, or another nonce's, is refused")
    func signInOverHTTP() async throws {
        let key = TestProvider.es256(kid: "live")
        let server = try KeyServer(keys: [key])
        defer { withExtendedLifetime(server) {} }
        try await waitUntilAsync(within: .seconds(20)) {
            (try? await IDTokenVerifier.download(URL(string: server.issuer + "/keys.json")!)) != nil
        }
        let issuer = server.issuer
        let provider = OIDCProvider(
            name: "local",
            issuer: issuer,
            acceptedIssuers: [issuer],
            clientIDs: [TestProvider.clientID],
            jwksURL: nil
        )
        let configured: (inout Configuration) -> Void = { $0.oidcProviders = [provider] }
        try await withTestClient(adjust: configured) { client in
            let email = TestDatabase.uniqueEmail("oidc")
            let token = try await TestProvider.token(
                key,
                subject: UUID().uuidString,
                issuer: issuer,
                nonce: "raw-nonce",
                email: email
            )
            let signedUp = try await client.send(.post, "/auth/oidc/local", ["id_token": token, "nonce": "raw-nonce"])
            #expect(signedUp.status == .created && signedUp["user", "email"] as? String == email)
            #expect(signedUp["user", "email_verified"] as? Bool == true)
            let replayed = try await client.send(.post, "/auth/oidc/local", ["id_token": token, "nonce": "raw-nonce"])
            #expect(replayed.status == .unauthorized && replayed.errorCode == "id_token_replayed")
            let forged = try await client.send(
                .post,
                "/auth/oidc/local",
                ["id_token": token + "x", "nonce": "raw-nonce"]
            )
            #expect(forged.status == .unauthorized && forged.errorCode == "invalid_id_token")
            let unknown = try await client.send(.post, "/auth/oidc/nobody", ["id_token": token, "nonce": "raw-nonce"])
            #expect(unknown.status == .notFound && unknown.errorCode == "provider_not_found")
            let claims = try await client.send(
                .post,
                "/auth/oidc/local?oidc_claims=%7B%7D",
                ["id_token": token, "nonce": "raw-nonce"]
            )
            #expect(claims.status == .badRequest, "only the server hands SQL verified claims")
        }
    }
}
