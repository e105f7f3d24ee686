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
    /// statement calls: `api.<function>(text, jsonb, jsonb)` (`(text, bytea, jsonb)` for an
    /// image body), returning `setof text` when the answer is streamed, a set of files for an
    /// archive, `bytea` for bytes and a single value otherwise. Empty when all is well.
    public static func missingFunctions(in endpoints: [Endpoint], on connection: Connection) throws -> [String] {
        let functions = endpoints.map(\.function)
        let bodies = endpoints.map { $0.body == .image ? "bytea" : "jsonb" }
        let answers = endpoints.map { endpoint in
            switch (endpoint.streamedContentType, endpoint.binaryAnswer) {
            case (.some, _): return "text_rows"
            case (_, .tarArchive): return "file_rows"
            case (_, .bytes): return "bytes"
            default: return "value"
            }
        }
        let missing = try connection.query(
            """
            select e.function
              from unnest($1::text[], $2::text[], $3::text[]) as e(function, body, answer)
              left join pg_proc as p on p.oid = to_regprocedure(format('api.%I(text, %s, jsonb)', e.function, e.body))
             where p.oid is null
                or p.proretset <> (e.answer in ('text_rows', 'file_rows'))
                or (e.answer = 'text_rows' and p.prorettype <> 'text'::regtype)
                or (e.answer = 'bytes' and p.prorettype <> 'bytea'::regtype)
            """,
            [postgresArray(functions), postgresArray(bodies), postgresArray(answers)]
        )
        return missing.rows.compactMap { $0[0] }
    }

    /// A text[] literal of plain identifiers (nothing here needs quoting).
    private static func postgresArray(_ values: [String]) -> String {
        "{" + values.joined(separator: ",") + "}"
    }
}
