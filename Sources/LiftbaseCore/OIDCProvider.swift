import Foundation

/// An OpenID Connect provider whose ID tokens sign people in (POST /auth/oidc/{name};
/// docs/security.md): the issuer its tokens must name, the client ids of the operator's apps
/// (a token's audience must be one of them), and where its signing keys are published.
public struct OIDCProvider: Sendable, Equatable {
    public var name: String
    /// The issuer: its discovery document is `<issuer>/.well-known/openid-configuration`.
    public var issuer: String
    /// The `iss` values a token may carry: the issuer, and for Google its form without scheme.
    public var acceptedIssuers: Set<String>
    public var clientIDs: [String]
    /// The JWKS, when the operator names it; otherwise discovery's `jwks_uri`.
    public var jwksURL: URL?

    public init(name: String, issuer: String, acceptedIssuers: Set<String>, clientIDs: [String], jwksURL: URL?) {
        self.name = name
        self.issuer = issuer
        self.acceptedIssuers = acceptedIssuers
        self.clientIDs = clientIDs
        self.jwksURL = jwksURL
    }

    /// Providers whose issuer is known: the operator gives their client ids only.
    static let knownIssuers: [String: (issuer: String, accepted: Set<String>)] = [
        "apple": ("https://appleid.apple.com", ["https://appleid.apple.com"]),
        "google": ("https://accounts.google.com", ["https://accounts.google.com", "accounts.google.com"]),
    ]

    /// LIFTBASE_OIDC_PROVIDERS: a JSON object from provider name (lowercase letters, digits,
    /// `_` and `-`) to `{"client_ids": [...], "issuer": "...", "jwks_uri": "..."}`; `issuer` may
    /// be left out for apple and google.
    public static func parse(_ text: String) throws -> [OIDCProvider] {
        func invalid(_ problem: String) -> ConfigurationError {
            .invalid("LIFTBASE_OIDC_PROVIDERS: \(problem) (docs/security.md)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw invalid("must be a JSON object of providers")
        }
        return try object.keys.sorted().map { name in
            guard name.range(of: "^[a-z0-9_-]{1,40}$", options: .regularExpression) != nil else {
                throw invalid("\(name) is no provider name (lowercase letters, digits, _ and -)")
            }
            guard let entry = object[name] as? [String: Any],
                Set(entry.keys).isSubset(of: ["client_ids", "issuer", "jwks_uri"])
            else { throw invalid("\(name) must be an object of client_ids, issuer and jwks_uri") }
            guard let clientIDs = entry["client_ids"] as? [String], !clientIDs.isEmpty, !clientIDs.contains("") else {
                throw invalid("\(name) needs client_ids, a list of the client ids its tokens are issued to")
            }
            let known = knownIssuers[name]
            guard let issuer = entry["issuer"] as? String ?? known?.issuer, URL(string: issuer)?.scheme != nil else {
                throw invalid("\(name) needs an issuer URL")
            }
            var jwksURL: URL?
            if let text = entry["jwks_uri"] {
                guard let text = text as? String, let url = URL(string: text), url.scheme != nil else {
                    throw invalid("\(name)'s jwks_uri must be a URL")
                }
                jwksURL = url
            }
            let accepted = issuer == known?.issuer ? known!.accepted : [issuer]
            return OIDCProvider(
                name: name,
                issuer: issuer,
                acceptedIssuers: accepted,
                clientIDs: clientIDs,
                jwksURL: jwksURL
            )
        }
    }
}
