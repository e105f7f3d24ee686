import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a webhook's host may be called: a subscription names any URL its user likes, so
/// unless the operator allows it (LIFTBASE_WEBHOOKS_ALLOW_PRIVATE), a host that resolves to
/// a loopback, private, link-local, shared (CGNAT) or unspecified address is refused, every
/// address it resolves to checked.
enum WebhookTarget {
    /// Why `host` may not be called, or nil when every address it resolves to is public.
    static func refusal(host: String) -> String? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            return "cannot resolve \(host): " + String(cString: gai_strerror(status))
        }
        defer { freeaddrinfo(first) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr, let reason = refusal(address) {
                return "\(host) resolves to \(reason)"
            }
            entry = current.pointee.ai_next
        }
        return nil
    }

    static func refusal(_ address: UnsafeMutablePointer<sockaddr>) -> String? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
            }
            return refusal(ipv4: bytes)
        case AF_INET6:
            let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
            return refusal(ipv6: bytes)
        default:
            return "an address of an unknown family"
        }
    }

    static func refusal(ipv4 bytes: [UInt8]) -> String? {
        let text = bytes.map(String.init).joined(separator: ".")
        switch (bytes[0], bytes[1]) {
        case (0, _): return "\(text), an unspecified address"
        case (10, _), (172, 16...31), (192, 168): return "\(text), a private address"
        case (127, _): return "\(text), a loopback address"
        case (169, 254): return "\(text), a link-local address"
        case (100, 64...127): return "\(text), a shared (CGNAT) address"
        case (224...255, _): return "\(text), a multicast or reserved address"
        default: return nil
        }
    }

    static func refusal(ipv6 bytes: [UInt8]) -> String? {
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            return refusal(ipv4: Array(bytes[12..<16]))  // ::ffff:a.b.c.d
        }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && (bytes[15] == 0 || bytes[15] == 1) {
            return "::\(bytes[15]), a loopback or unspecified address"
        }
        if bytes[0] & 0xfe == 0xfc { return "a unique-local IPv6 address" }
        if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return "a link-local IPv6 address" }
        if bytes[0] == 0xff { return "a multicast IPv6 address" }
        return nil
    }
}
