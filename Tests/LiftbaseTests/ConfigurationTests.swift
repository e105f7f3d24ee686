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
}
