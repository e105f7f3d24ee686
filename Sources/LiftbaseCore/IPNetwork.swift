#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 network (`10.0.0.0/8`, `2001:db8::/32`, or one address): what
/// LIFTBASE_TRUSTED_PROXIES lists, so that a request from one of them may name its client in
/// X-Forwarded-For.
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    /// 4 or 16 bytes, the bits past the prefix cleared.
    let bytes: [UInt8]
    let prefixLength: Int

    /// Parses `address` or `address/prefix`; nil when it is neither.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.addressBytes(parts[0]) else { return nil }
        let bits = address.count * 8
        var prefixLength = bits
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...bits).contains(given), !parts[1].hasPrefix("+") else { return nil }
            prefixLength = given
        }
        self.prefixLength = prefixLength
        self.bytes = Self.masked(address, to: prefixLength)
    }

    /// Whether `address` (text, as a socket or X-Forwarded-For gives it) lies in the network.
    public func contains(_ address: some StringProtocol) -> Bool {
        guard let candidate = Self.addressBytes(address), candidate.count == bytes.count else { return false }
        return Self.masked(candidate, to: prefixLength) == bytes
    }

    public var description: String {
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            + "/\(prefixLength)"
    }

    /// The address's bytes: 4 for IPv4 and for an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`,
    /// as a dual-stack socket reports an IPv4 peer), 16 for IPv6; nil for anything else.
    public static func addressBytes(_ text: some StringProtocol) -> [UInt8]? {
        let text = String(text)
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xff, 0xff]
        return Array(bytes.prefix(12)) == mappedPrefix ? Array(bytes.suffix(4)) : bytes
    }

    private static func masked(_ bytes: [UInt8], to prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(max(prefixLength - index * 8, 0), 8)
            return kept == 8 ? byte : byte & ~(UInt8(0xff) >> kept)
        }
    }
}

/// Which address a request comes from: the socket's peer, unless that peer is a trusted
/// proxy; then the nearest address of X-Forwarded-For that is not one (each proxy appends
/// the address it was reached from, so the entries to the right of the nearest untrusted
/// one were written by trusted proxies and those to its left by anyone). An entry that is no
/// address stops the walk at the proxy that passed it on.
public struct ClientAddressResolver: Sendable {
    public let trustedProxies: [IPNetwork]

    public init(trustedProxies: [IPNetwork]) { self.trustedProxies = trustedProxies }

    public func clientAddress(peer: String?, forwardedFor: [String]) -> String? {
        guard var client = peer.map(Self.plain) else { return nil }
        guard isTrusted(client) else { return client }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingWhitespace() }
        for hop in hops.reversed() {
            guard IPNetwork.addressBytes(hop) != nil else { break }
            client = Self.plain(hop)
            if !isTrusted(client) { break }
        }
        return client
    }

    private func isTrusted(_ address: String) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// What a limit counts of an address, as auth.client_address_key does in SQL: an IPv4
    /// address itself, an IPv6 address by its /64 network (one host is given a whole /64).
    public static func limitKey(_ address: String) -> String {
        guard let bytes = IPNetwork.addressBytes(address), bytes.count == 16 else { return plain(address) }
        return bytes.prefix(8).map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
    }

    /// An IPv4-mapped IPv6 address as its IPv4 address; any other as it came.
    static func plain(_ address: String) -> String {
        guard let bytes = IPNetwork.addressBytes(address), bytes.count == 4, address.contains(":") else {
            return address
        }
        return bytes.map(String.init).joined(separator: ".")
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
