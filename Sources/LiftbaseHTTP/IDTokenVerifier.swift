import Foundation
import JWTKit
import LiftbaseCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The claims of an OpenID Connect ID token that signing in reads.
struct IDTokenClaims: JWTIdentityToken {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var nonce: String?
    var email: String?
    /// A boolean, or the string "true" or "false", as Sign in with Apple writes it.
    var email_verified: BoolClaim?

    var audience: AudienceClaim { aud }

    func verify(using _: some JWTAlgorithm) throws { try exp.verifyNotExpired() }
}

/// Checks ID tokens against their providers (docs/security.md): the signature by the key the
/// token names in the provider's published key set (fetched, kept an hour, fetched again when
/// a token names a key it lacks, keys rotate), an expiry not past, an audience among the
/// operator's client ids, and the provider's issuer. What it verified goes to SQL, which owns
/// the account rules (sql/functions/auth_oidc.sql): cryptography and fetching keys are the
/// HTTP layer's.
actor IDTokenVerifier {
    /// Reads a URL's body; the tests give one of their own.
    typealias Fetch = @Sendable (URL) async throws -> Data

    private let providers: [String: OIDCProvider]
    private let fetch: Fetch
    private let keyLifetime: Duration
    private let refetchInterval: Duration
    private var keySets: [String: (keys: JWTKeyCollection, fetchedAt: ContinuousClock.Instant)] = [:]

    init(
        providers: [OIDCProvider],
        fetch: @escaping Fetch = IDTokenVerifier.download,
        keyLifetime: Duration = .seconds(3600),
        refetchInterval: Duration = .seconds(60)
    ) {
        self.providers = Dictionary(uniqueKeysWithValues: providers.map { ($0.name, $0) })
        self.fetch = fetch
        self.keyLifetime = keyLifetime
        self.refetchInterval = refetchInterval
    }

    /// The verified claims of `idToken` from provider `name`, as the JSON SQL reads
    /// (`oidc_claims`), or the API error that refuses it.
    func claimsJSON(provider name: String, idToken: String) async throws -> String {
        guard let provider = providers[name] else {
            throw APIError(status: .notFound, code: "provider_not_found", message: "No provider \(name) is configured.")
        }
        var keys = try await keySet(of: provider, fresh: false)
        let claims: IDTokenClaims
        do {
            claims = try await verify(idToken, with: keys, for: provider)
        } catch {
            // A key the set lacks may be a new one: the set is fetched again, at most once
            // a refetch interval, so that bad tokens cannot make the server fetch at will.
            guard keySets[name].map({ .now - $0.fetchedAt >= refetchInterval }) ?? true else { throw error }
            keys = try await keySet(of: provider, fresh: true)
            claims = try await verify(idToken, with: keys, for: provider)
        }
        guard provider.acceptedIssuers.contains(claims.iss.value) else {
            throw Self.invalid("it was issued by \(claims.iss.value), not \(provider.issuer)")
        }
        var object: [String: Any] = [
            "provider": name, "sub": claims.sub.value, "exp": Int(claims.exp.value.timeIntervalSince1970),
            "token_sha256": SHA256.hex(idToken),
        ]
        object["nonce"] = claims.nonce
        object["email"] = claims.email
        object["email_verified"] = claims.email_verified?.value
        return String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
            as: UTF8.self
        )
    }

    private func verify(
        _ token: String,
        with keys: JWTKeyCollection,
        for provider: OIDCProvider
    ) async throws
        -> IDTokenClaims
    {
        do {
            return try await keys.verify(token, as: IDTokenClaims.self, expectedAudiences: provider.clientIDs)
        } catch let error as JWTError {
            throw Self.invalid(error.reason ?? error.errorType.description)
        } catch {
            throw Self.invalid("\(error)")
        }
    }

    /// The provider's keys, fetched when none are kept, when they are older than the key
    /// lifetime, or when `fresh`.
    private func keySet(of provider: OIDCProvider, fresh: Bool) async throws -> JWTKeyCollection {
        if !fresh, let kept = keySets[provider.name], .now - kept.fetchedAt < keyLifetime { return kept.keys }
        do {
            var jwksURL = provider.jwksURL
            if jwksURL == nil {
                let discovery = try await fetch(URL(string: provider.issuer + "/.well-known/openid-configuration")!)
                let document = try JSONSerialization.jsonObject(with: discovery) as? [String: Any]
                jwksURL = (document?["jwks_uri"] as? String).flatMap(URL.init(string:))
            }
            guard let jwksURL else { throw Self.unavailable(provider, "its discovery document names no jwks_uri") }
            let keys = try await JWTKeyCollection().add(
                jwksJSON: String(decoding: try await fetch(jwksURL), as: UTF8.self)
            )
            keySets[provider.name] = (keys, .now)
            return keys
        } catch let error as APIError {
            throw error
        } catch {
            throw Self.unavailable(provider, "\(error)")
        }
    }

    static func invalid(_ reason: String) -> APIError {
        APIError(status: .unauthorized, code: "invalid_id_token", message: "The ID token is not valid here: \(reason).")
    }

    static func unavailable(_ provider: OIDCProvider, _ reason: String) -> APIError {
        APIError(
            status: .serviceUnavailable,
            code: "provider_unavailable",
            message: "The keys of \(provider.name) could not be read (\(reason)): try again later."
        )
    }

    /// GET over HTTP(S), ten seconds at most; anything but 200 is an error.
    @Sendable static func download(_ url: URL) async throws -> Data {
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.setValue("Liftbase", forHTTPHeaderField: "User-Agent")
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw URLError(.badServerResponse)
        }
        return data
    }
}
