import Foundation
import LiftbaseCore
import Logging
import Testing

@Suite("configuration")
struct ConfigurationTests {
    @Test(
        "a malformed or out-of-range setting stops the start with one line naming it",
        arguments: [
            ("LIFTBASE_PORT", "abc", "LIFTBASE_PORT=abc: must be a whole number from 1 to 65535"),
            ("LIFTBASE_PORT", "70000", "LIFTBASE_PORT=70000: must be a whole number from 1 to 65535"),
            ("LIFTBASE_POOL_SIZE", "0", "LIFTBASE_POOL_SIZE=0: must be a whole number from 1 to 1000"),
            ("LIFTBASE_POOL_TIMEOUT_MS", "-5", "LIFTBASE_POOL_TIMEOUT_MS=-5: must be a whole number from 1 to 600000"),
            (
                "LIFTBASE_HEADER_TIMEOUT_MS", "0",
                "LIFTBASE_HEADER_TIMEOUT_MS=0: must be a whole number from 1 to 3600000"
            ),
            (
                "LIFTBASE_MAX_CONNECTIONS", "lots",
                "LIFTBASE_MAX_CONNECTIONS=lots: must be a whole number from 1 to 1000000"
            ),
            (
                "LIFTBASE_STATEMENT_TIMEOUT_MS", "1e3",
                "LIFTBASE_STATEMENT_TIMEOUT_MS=1e3: must be a whole number from 1 to 3600000"
            ),
            ("LIFTBASE_PORT", "", "LIFTBASE_PORT is set but empty: give it a value, or unset it for the default"),
            ("LIFTBASE_HOST", "", "LIFTBASE_HOST is set but empty: give it a value, or unset it for the default"),
            (
                "LIFTBASE_TRUSTED_PROXIES", "10.0.0.0/8, proxy.local",
                "LIFTBASE_TRUSTED_PROXIES: proxy.local is no address or network (such as 10.0.0.0/8 or ::1)"
            ),
            (
                "LIFTBASE_TRUSTED_PROXIES", "10.0.0.0/33",
                "LIFTBASE_TRUSTED_PROXIES: 10.0.0.0/33 is no address or network (such as 10.0.0.0/8 or ::1)"
            ),
            (
                "LOG_LEVEL", "verbose",
                "LOG_LEVEL=verbose: must be one of trace, debug, info, notice, warning, error, critical"
            ),
        ]
    )
    func malformedSettings(name: String, value: String, message: String) {
        let error = #expect(throws: ConfigurationError.self) { try Configuration(environment: [name: value]) }
        #expect(error?.description == message)
    }

    @Test("settings that are set well are read; unset ones take their defaults")
    func wellFormedSettings() throws {
        let configuration = try Configuration(environment: [
            "LIFTBASE_PORT": "9090", "LIFTBASE_POOL_SIZE": "4", "LOG_LEVEL": "DEBUG",
        ])
        #expect(configuration.port == 9090 && configuration.poolSize == 4 && configuration.logLevel == .debug)
        let defaults = try Configuration(environment: [:])
        #expect(defaults.port == 8080 && defaults.logLevel == .info)
        // One connection per core, plus one (docs/scaling.md "Pool size").
        #expect(defaults.poolSize == ProcessInfo.processInfo.activeProcessorCount + 1)
        #expect(defaults.headerTimeout == .seconds(10) && defaults.idleTimeout == .seconds(60))
        #expect(defaults.maximumConnections == 1000 && defaults.drainTimeout == .seconds(30))
        #expect(defaults.statementTimeout == .seconds(300))
        let limited = try Configuration(environment: ["LIFTBASE_STATEMENT_TIMEOUT_MS": "2500"])
        #expect(limited.serverSessionSetup == "set timezone = 'UTC'; set statement_timeout = 2500")
    }

    @Test("trusted proxies: networks of either family, an address alone, IPv4 as a dual-stack socket reports it")
    func trustedProxies() throws {
        let configuration = try Configuration(environment: [
            "LIFTBASE_TRUSTED_PROXIES": "10.0.0.0/8, fd00::/8,192.0.2.7"
        ])
        #expect(configuration.trustedProxies.map(\.description) == ["10.0.0.0/8", "fd00::/8", "192.0.2.7/32"])
        #expect(try Configuration(environment: [:]).trustedProxies.isEmpty)
        let tens = try #require(IPNetwork("10.1.2.3/8"))
        #expect(tens.description == "10.0.0.0/8")
        #expect(tens.contains("10.255.0.1") && tens.contains("::ffff:10.0.0.1"))
        #expect(!tens.contains("11.0.0.1") && !tens.contains("fd00::1") && !tens.contains("ten"))
        let local = try #require(IPNetwork("fd00::/8"))
        #expect(local.contains("fd12:3456::1") && !local.contains("fe80::1"))
    }

    @Test(
        "the client is the peer, or behind trusted proxies the nearest untrusted address of X-Forwarded-For",
        arguments: [
            // No trusted proxy in the way: the header is anyone's.
            ("198.51.100.1", ["203.0.113.5"], "198.51.100.1"),
            // Behind the proxy: the address it appended.
            ("10.0.0.2", ["203.0.113.5"], "203.0.113.5"),
            // A client that writes its own header cannot choose: the proxy appended the truth.
            ("10.0.0.2", ["1.2.3.4, 203.0.113.5"], "203.0.113.5"),
            // Two trusted proxies, one header each: the nearest address not theirs.
            ("10.0.0.2", ["203.0.113.5", "10.0.0.9"], "203.0.113.5"),
            // Only proxies: the farthest of them.
            ("10.0.0.2", ["10.0.0.8, 10.0.0.9"], "10.0.0.8"),
            // A hop that is no address: the proxy that passed it on.
            ("10.0.0.2", ["203.0.113.5, unknown"], "10.0.0.2"),
            // No header: the proxy itself.
            ("10.0.0.2", [], "10.0.0.2"),
            // A dual-stack socket's IPv4 peer, as IPv4.
            ("::ffff:198.51.100.1", [], "198.51.100.1"),
        ]
    )
    func clientAddress(peer: String, forwardedFor: [String], client: String) {
        let resolver = ClientAddressResolver(trustedProxies: [IPNetwork("10.0.0.0/8")!])
        #expect(resolver.clientAddress(peer: peer, forwardedFor: forwardedFor) == client)
    }
}
