import Logging
import PQ
import Testing

@testable import LiftbaseHTTP

@Suite("error mapping")
struct ErrorMappingTests {
    @Test("LBnnn maps to status nnn with code and fields from DETAIL")
    func customCodes() {
        let error = APIError(
            PostgresError(
                sqlstate: "LB422",
                message: "Some fields are invalid.",
                detail: #"{"code": "validation_failed", "fields": {"height_cm": "must be between 100 and 250"}}"#
            )
        )
        #expect(error.status == 422)
        #expect(error.code == "validation_failed")
        #expect(
            error.body(requestID: "r1")
                == #"{"error":{"code":"validation_failed","message":"Some fields are invalid.","fields":{"height_cm":"must be between 100 and 250"}}}"#
        )
    }

    @Test(
        "standard SQLSTATEs map like PostgREST",
        arguments: [
            ("23505", 409), ("23503", 409), ("23514", 422), ("22P02", 422), ("23502", 422), ("28P01", 401),
            ("42501", 403),
            ("40001", 503), ("40P01", 503), ("57014", 503), ("08006", 503), ("57P01", 503), ("42883", 500),
            ("XX000", 500),
            ("22008", 422), ("22012", 422), ("22P05", 400), ("54001", 400), ("54000", 400), ("F0000", 500),
        ]
    )
    func standardCodes(sqlstate: String, status: Int) {
        #expect(
            APIError(PostgresError(sqlstate: .init(rawValue: sqlstate), message: "internal detail")).status.code
                == status
        )
    }

    @Test("a statement stopped by the statement timeout is request_timeout; a lost connection database_unavailable")
    func timeoutAndLostConnectionCodes() {
        #expect(APIError(PostgresError(sqlstate: .queryCanceled, message: "canceled")).code == "request_timeout")
        #expect(APIError(PostgresError(sqlstate: .adminShutdown, message: "terminated")).code == "database_unavailable")
    }

    @Test(
        "bad input SQL could not take is never a 500: class 22 is invalid_value, class 54 too_complex, NUL invalid_text"
    )
    func badInputCodes() {
        #expect(APIError(PostgresError(sqlstate: .divisionByZero, message: "division by zero")).code == "invalid_value")
        #expect(
            APIError(PostgresError(sqlstate: .statementTooComplex, message: "stack depth limit exceeded")).code
                == "too_complex"
        )
        #expect(
            APIError(PostgresError(sqlstate: .untranslatableCharacter, message: "unsupported Unicode escape sequence"))
                .code == "invalid_text"
        )
    }

    @Test("a constraint violation that slipped past validation is 422 without the constraint's name")
    func constraintWords() {
        let body = APIError(
            PostgresError(
                sqlstate: "23514",
                message: "new row for relation \"session_sets\" violates check constraint \"reps_check\""
            )
        )
        .body(requestID: "abc")
        #expect(body.contains("validation_failed"))
        #expect(!body.contains("reps_check") && !body.contains("session_sets"))
    }

    @Test("a 500 carries the request id and none of the database's words")
    func internalErrors() {
        let body = APIError(PostgresError(sqlstate: "42P01", message: "relation \"app.secret\" does not exist")).body(
            requestID: "abc"
        )
        #expect(body.contains("\"request_id\":\"abc\""))
        #expect(!body.contains("secret"))
    }

    @Test("JSON strings are escaped")
    func escaping() {
        #expect(JSONText.string("a\"b\\c\n\u{1}é") == #""a\"b\\c\n\u0001é""#)
    }
}

@Suite("transaction retries")
struct TransactionRetryTests {
    final class Counter: @unchecked Sendable { var calls = 0 }

    @Test("serialization failures and deadlocks are retried, 3 tries in all")
    func retries() async throws {
        let flaky = Counter()
        let value = try await APIResponder.retryingTransactionFailures {
            flaky.calls += 1
            if flaky.calls < 3 {
                throw PostgresError(sqlstate: flaky.calls == 1 ? "40001" : "40P01", message: "retry me")
            }
            return "done"
        }
        #expect(value == "done" && flaky.calls == 3)

        let hopeless = Counter()
        let error = await #expect(throws: PostgresError.self) {
            try await APIResponder.retryingTransactionFailures {
                hopeless.calls += 1
                throw PostgresError(sqlstate: "40001", message: "always")
            }
        }
        #expect(hopeless.calls == 3)
        #expect(APIError(try #require(error)).status == 503)

        let other = Counter()
        await #expect(throws: PostgresError.self) {
            try await APIResponder.retryingTransactionFailures {
                other.calls += 1
                throw PostgresError(sqlstate: "23505", message: "not retryable")
            }
        }
        #expect(other.calls == 1)
    }

    @Test("a read whose connection is lost runs again on a fresh one, 3 tries in all; a write never runs twice")
    func lostConnectionRetries() async throws {
        let logger = Logger(label: "test")
        let lost = PostgresError(sqlstate: "08006", message: "server closed the connection unexpectedly")

        // Lost twice (two ways), answered on the third try; each retry on a fresh connection.
        var fresh: [Bool] = []
        let value = try await APIResponder.retryingLostConnection(true, logger: logger) { freshConnection in
            fresh.append(freshConnection)
            if fresh.count < 3 {
                throw fresh.count == 1 ? lost : PostgresError(sqlstate: "57P01", message: "terminated")
            }
            return "read"
        }
        #expect(value == "read" && fresh == [false, true, true])

        // How many times an attempt that always fails with `error` is made before it is thrown.
        func tries(retrying enabled: Bool, failingWith error: PostgresError) async -> Int {
            let calls = Counter()
            await #expect(throws: PostgresError.self) {
                try await APIResponder.retryingLostConnection(enabled, logger: logger) { _ in
                    calls.calls += 1
                    throw error
                }
            }
            return calls.calls
        }
        #expect(await tries(retrying: true, failingWith: lost) == 3)
        #expect(await tries(retrying: false, failingWith: lost) == 1, "a write")
        #expect(await tries(retrying: true, failingWith: PostgresError(sqlstate: "23505", message: "not lost")) == 1)
    }
}

@Suite("bearer token")
struct BearerTokenTests {
    @Test(
        "the scheme in any case, one space, the token without the blanks around it; anything else is no token",
        arguments: [
            ("Bearer abc", "abc"), ("bearer abc", "abc"), ("BEARER abc", "abc"), ("BeArEr a.b-c_d", "a.b-c_d"),
            ("Bearer   abc  ", "abc"), ("Bearer \tabc\t", "abc"), ("Bearer \u{00A0}abc", "abc"),
            ("Bearer a b", "a b"),
        ]
    )
    func tokens(header: String, token: String) {
        #expect(APIResponder.bearerToken(fromAuthorization: header) == token)
    }

    @Test(
        "no token: another scheme, no space, nothing after it",
        arguments: [
            "Basic abc", "Bearerabc", "Bearer", "Bearer ", "Bearer   ", "Bearers abc", "Bear abc", "Bea\u{0152}er abc",
            "",
        ]
    )
    func noTokens(header: String) {
        #expect(APIResponder.bearerToken(fromAuthorization: header) == nil)
    }
}
