import PQ

/// The endpoint table's own mistakes, each named by its rows.
public struct EndpointTableError: Error, CustomStringConvertible {
    public let problems: [String]
    public var description: String { "the endpoint table is invalid: " + problems.joined(separator: "; ") }
}

extension Endpoint {
    /// The path with every parameter as `{}`: two rows with the same method and shape match
    /// the same requests, and the second would never answer.
    var shape: String {
        "/" + pathSegments.map { $0.hasPrefix("{") ? "{}" : String($0) }.joined(separator: "/")
    }

    /// What is wrong with a table: duplicate or shadowed rows (same method and shape),
    /// malformed paths, and function names that are not plain SQL identifiers (they are
    /// written into the statement). Literal paths win over parameterized ones by design
    /// (`/training/sessions/last` before `/training/sessions/{id}`), so that is no problem.
    public static func problems(in endpoints: [Endpoint]) -> [String] {
        var problems: [String] = []
        var seen: [String: Endpoint] = [:]
        for endpoint in endpoints {
            let row = "\(endpoint.method.rawValue) \(endpoint.path)"
            let key = "\(endpoint.method.rawValue) \(endpoint.shape)"
            if let earlier = seen[key] {
                problems.append(
                    earlier.path == endpoint.path
                        ? "\(row) is listed twice"
                        : "\(row) is shadowed by \(earlier.method.rawValue) \(earlier.path)"
                )
            } else {
                seen[key] = endpoint
            }
            let segmentsValid =
                endpoint.path.hasPrefix("/") && !endpoint.pathSegments.isEmpty
                && endpoint.pathSegments.allSatisfy { segment in
                    !segment.contains("{") && !segment.contains("}")
                        || segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count > 2
                            && isIdentifier(segment.dropFirst().dropLast())
                }
            if !segmentsValid { problems.append("\(row) has a malformed path") }
            if Set(endpoint.parameterNames).count != endpoint.parameterNames.count {
                problems.append("\(row) names a path parameter twice")
            }
            if !isIdentifier(Substring(endpoint.function)) {
                problems.append("\(row) names the function \"\(endpoint.function)\", not a plain identifier")
            }
        }
        return problems
    }

    private static func isIdentifier(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, first == 95 || (97...122).contains(first) else { return false }
        return text.utf8.allSatisfy { $0 == 95 || (97...122).contains($0) || (48...57).contains($0) }
    }

    /// The rows whose function is missing from the database, or has another shape than the
    /// statement calls: `api.<function>(text, jsonb, jsonb)`, returning `setof text` when the
    /// answer is streamed and a single value otherwise. Empty when all is well.
    public static func missingFunctions(in endpoints: [Endpoint], on connection: Connection) throws -> [String] {
        let functions = endpoints.map(\.function)
        let streamed = endpoints.map { $0.streamedContentType != nil ? "t" : "f" }
        let missing = try connection.query(
            """
            select e.function
              from unnest($1::text[], $2::boolean[]) as e(function, streamed)
              left join pg_proc as p on p.oid = to_regprocedure(format('api.%I(text, jsonb, jsonb)', e.function))
             where p.oid is null
                or p.proretset <> e.streamed
                or (e.streamed and p.prorettype <> 'text'::regtype)
            """,
            [postgresArray(functions), postgresArray(streamed)]
        )
        return missing.rows.compactMap { $0[0] }
    }

    /// A text[] literal of plain identifiers or booleans (nothing here needs quoting).
    private static func postgresArray(_ values: [String]) -> String {
        "{" + values.joined(separator: ",") + "}"
    }
}
