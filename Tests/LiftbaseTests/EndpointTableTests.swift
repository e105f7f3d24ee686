import Foundation
import LiftbaseCore
import PQ
import Testing

@Suite("endpoint table")
struct EndpointTableTests {
    @Test("the table has no duplicate, shadowed or malformed row")
    func tableIsValid() throws {
        #expect(Endpoint.problems(in: endpoints) == [])
        _ = try RouteTable(endpoints)
    }

    @Test("a duplicate, a shadowed row, a malformed path and a function that is no identifier are refused")
    func problemsAreFound() {
        let table = [
            Endpoint(.GET, "/plans/{id}", function: "plan_get", summary: "first"),
            Endpoint(.GET, "/plans/{id}", function: "plan_get", summary: "again"),
            Endpoint(.GET, "/plans/{plan}", function: "plan_other", summary: "same shape"),
            Endpoint(.POST, "/plans/{id", function: "plan_use", summary: "broken"),
            Endpoint(.PUT, "/plans", function: "plans; drop table x", summary: "injection"),
            Endpoint(.GET, "/plans/last", function: "plan_last", summary: "a literal beside {id} is fine"),
        ]
        #expect(
            Endpoint.problems(in: table) == [
                "GET /plans/{id} is listed twice",
                "GET /plans/{plan} is shadowed by GET /plans/{id}",
                "POST /plans/{id has a malformed path",
                "PUT /plans names the function \"plans; drop table x\", not a plain identifier",
            ]
        )
        #expect(throws: EndpointTableError.self) { try RouteTable(table) }
    }

    @Test("every row's function exists in the migrated database with the signature its statement calls")
    func functionsExist() throws {
        let connection = try TestDatabase.admin()
        #expect(try Endpoint.missingFunctions(in: endpoints, on: connection) == [])
        let wrong = [
            Endpoint(.GET, "/nothing", function: "no_such_function", summary: "missing"),
            Endpoint(.GET, "/me.csv", function: "me", streamed: "text/csv", summary: "not setof text"),
        ]
        #expect(try Endpoint.missingFunctions(in: wrong, on: connection) == ["no_such_function", "me"])
    }

    @Test("every row leads to the api file of its route group: /plans/{id} → sql/functions/api_plans.sql")
    func functionsLiveInTheirRouteGroupFile() throws {
        let folder = TestDatabase.sqlDirectory + "/functions"
        var fileOfFunction: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix("api_") {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            for match in text.matches(of: /create or replace function api\.([a-z_0-9]+)\(/) {
                fileOfFunction[String(match.1)] = name
            }
        }
        for endpoint in endpoints {
            let group = endpoint.pathSegments[0].replacingOccurrences(of: "-", with: "_")
            #expect(
                fileOfFunction[endpoint.function] == "api_\(group).sql",
                "\(endpoint.method.rawValue) \(endpoint.path): api.\(endpoint.function) is in \(fileOfFunction[endpoint.function] ?? "no api file")"
            )
        }
    }
}
