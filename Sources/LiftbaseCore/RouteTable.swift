import Foundation

/// Matches a method and path against the endpoint table.
public struct RouteTable: Sendable {
    public enum Match: Sendable, Equatable {
        case found(Endpoint, parameters: [String: String])
        /// The path exists, not with this method.
        case methodNotAllowed(allowed: [Endpoint.Method])
        case notFound
    }

    /// Literal paths by their text; parameterized ones are scanned (few, short).
    private let literal: [String: [Endpoint]]
    private let parameterized: [Endpoint]

    /// A table of the given rows, refused when `Endpoint.problems(in:)` finds any: a row
    /// that would silently lose must stop the start, not a request.
    public init(_ endpoints: [Endpoint]) throws {
        let problems = Endpoint.problems(in: endpoints)
        guard problems.isEmpty else { throw EndpointTableError(problems: problems) }
        literal = Dictionary(grouping: endpoints.filter { $0.parameterNames.isEmpty }, by: \.path)
        parameterized = endpoints.filter { !$0.parameterNames.isEmpty }
    }

    /// `path` is relative to the API base path, without the query string.
    public func match(method: String, path: String) -> Match {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        var candidates: [(Endpoint, [String: String])] = literal[trimmed]?.map { ($0, [:]) } ?? []
        if candidates.isEmpty {
            let segments = trimmed.split(separator: "/")
            candidates = parameterized.compactMap { endpoint in
                RouteTable.bind(endpoint.pathSegments, to: segments).map { (endpoint, $0) }
            }
        }
        guard !candidates.isEmpty else { return .notFound }
        if let (endpoint, parameters) = candidates.first(where: { $0.0.method.rawValue == method }) {
            return .found(endpoint, parameters: parameters)
        }
        return .methodNotAllowed(allowed: candidates.map(\.0.method))
    }

    private static func bind(_ pattern: [Substring], to segments: [Substring]) -> [String: String]? {
        guard pattern.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(pattern, segments) {
            if expected.hasPrefix("{") {
                parameters[String(expected.dropFirst().dropLast())] =
                    String(actual).removingPercentEncoding ?? String(actual)
            } else if expected != actual {
                return nil
            }
        }
        return parameters
    }
}
