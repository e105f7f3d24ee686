import HTTPTypes
import Hummingbird
import NIOCore

/// The request context of the API: Hummingbird's, plus the socket's peer, from which the
/// client's address is found (`ClientAddressResolver`) for the rate limits.
struct APIRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

extension HTTPField.Name {
    /// Where a trusted proxy names the client it serves (ClientAddressResolver).
    static let xForwardedFor = Self("X-Forwarded-For")!
    /// The IETF httpapi RateLimit fields (docs/security.md).
    static let rateLimitPolicy = Self("RateLimit-Policy")!
    static let rateLimit = Self("RateLimit")!
}
