// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "liftbase",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "liftbase", targets: ["liftbase"]),
        // A typed Swift client of the HTTP API, generated from its OpenAPI document.
        .library(name: "LiftbaseClient", targets: ["LiftbaseClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swiftcsv/SwiftCSV.git", from: "0.10.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
        // Verifies the signatures of OpenID Connect ID tokens against their providers' keys.
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
    ],
    targets: [
        // libpq, the PostgreSQL C client, as a system library.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // zlib, to read the gzip files of the built-in catalogs.
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // Swift over libpq: connections, results, errors, COPY, the thread-owned pool.
        .target(
            name: "PQ",
            dependencies: [
                "CLibPQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Configuration, the migrator, the endpoint table, file reading for imports.
        .target(
            name: "LiftbaseCore",
            dependencies: [
                "CZlib",
                "PQ",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The Hummingbird application built from the endpoint table.
        .target(
            name: "LiftbaseHTTP",
            dependencies: [
                "LiftbaseCore",
                "PQ",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "SwiftCSV", package: "SwiftCSV"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        // The outbox's delivery worker: mail through msmtp, webhooks over HTTP.
        .target(
            name: "LiftbaseDelivery",
            dependencies: [
                "LiftbaseCore",
                "PQ",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The client: Generated/ is written by Scripts/generate-client (swift-openapi-generator,
        // not its build plugin) from `liftbase openapi`; the rest is written by hand.
        .target(
            name: "LiftbaseClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .executableTarget(
            name: "liftbase",
            dependencies: [
                "LiftbaseCore",
                "LiftbaseDelivery",
                "LiftbaseHTTP",
                "PQ",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "LiftbaseTests",
            dependencies: [
                "LiftbaseClient",
                "LiftbaseCore",
                "LiftbaseDelivery",
                "LiftbaseHTTP",
                "PQ",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
    ]
)
