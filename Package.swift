// swift-tools-version:6.1
import PackageDescription

/// Settings every Purse target shares: Swift 6 language mode, explicit `any`, and imports that
/// are internal unless they say otherwise.
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The server's targets also run a nonisolated async function on its caller's executor: on the
/// event loop serving the request, instead of being queued on that loop again for every call
/// (Benchmarks/README.md). The client library keeps Swift 6's default, so an app calling it from
/// the main actor gets its work done off the main thread.
let serverSettings = strictSettings + [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

let package = Package(
    name: "purse",
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .executable(name: "purse", targets: ["purse"]),
        .library(name: "PurseModels", targets: ["PurseModels"]),
        .library(name: "PurseClient", targets: ["PurseClient"]),
        .executable(name: "purse-example-backend", targets: ["purse-example-backend"]),
        .executable(name: "purse-sheet", targets: ["purse-sheet"]),
        .executable(name: "purse-load", targets: ["purse-load"]),
        .executable(name: "bare-http", targets: ["bare-http"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        // libpq, found through pkg-config.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // epoll and eventfd for the driver's reactor on Linux (Glibc does not export them).
        .systemLibrary(name: "CEpoll"),
        // Our libpq layer: connections, the pool, $n-bound queries, typed rows, the migrator.
        .target(
            name: "Postgres",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "CEpoll",
                "CLibPQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: serverSettings
        ),
        // A PostgreSQL cluster of Purse's own in a folder (initdb, pg_ctl): the local default of
        // `purse` and the tests' throwaway clusters. Not part of the driver.
        .target(
            name: "LocalPostgres",
            dependencies: ["Postgres"],
            swiftSettings: serverSettings
        ),
        // The numbered migrations in sql/, compiled into the binary.
        .target(
            name: "PurseSQL",
            path: "sql",
            exclude: ["README.md"],
            resources: [.embedInCode("migrations")],
            swiftSettings: serverSettings
        ),
        // Codable wire types shared by the server and the client (Foundation only).
        .target(
            name: "PurseModels",
            swiftSettings: strictSettings
        ),
        // The domain: validation, the test processor, sheet rules, services and the repository
        // protocols they use. No database driver: the domain's tests run without PostgreSQL.
        .target(
            name: "PurseCore",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "PurseModels",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: serverSettings
        ),
        // Request parameters as clients send them: Stripe's form encoding and JSON, decoded into
        // the domain's parameter types under the request's parameter policy. Apart from the
        // server so the fuzz target builds without the HTTP and TLS stacks.
        .target(
            name: "PurseParameters",
            dependencies: [
                "PurseCore",
                "PurseModels",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // PurseCore's repositories on PostgreSQL, the `Database` over a pool, the schema: all of
        // Purse's SQL.
        .target(
            name: "PursePostgres",
            dependencies: ["Postgres", "PurseCore", "PurseModels", "PurseSQL"],
            swiftSettings: serverSettings
        ),
        // The HTTP API on Hummingbird.
        .target(
            name: "PurseServer",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "Postgres",
                "PurseCore",
                "PurseModels",
                "PurseParameters",
                "PursePostgres",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: serverSettings
        ),
        // The `purse` executable: serve, migrate, accounts, keys, certificates.
        .executableTarget(
            name: "purse",
            dependencies: [
                "PurseServer",
                "PurseCore",
                "PursePostgres",
                "Postgres",
                "LocalPostgres",
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: serverSettings
        ),
        // The client library apps link: `CustomerAdapter` and the ready adapter (Foundation only).
        .target(
            name: "PurseClient",
            dependencies: ["PurseModels"],
            swiftSettings: strictSettings
        ),
        // Examples/: a reference merchant backend, and a terminal customer sheet built on PurseClient.
        .executableTarget(
            name: "purse-example-backend",
            dependencies: [
                "PurseModels",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Examples/purse-example-backend",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "purse-sheet",
            dependencies: ["PurseClient"],
            path: "Examples/purse-sheet",
            swiftSettings: strictSettings
        ),
        // Benchmarks/: the closed-loop HTTP load generator the benchmark script drives.
        .executableTarget(
            name: "purse-load",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/purse-load",
            swiftSettings: strictSettings
        ),
        // Benchmarks/: the HTTP floor, Hummingbird alone answering GET /healthz, and the read and write floors.
        .executableTarget(
            name: "bare-http",
            dependencies: [
                "CLibPQ",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Benchmarks/bare-http",
            swiftSettings: strictSettings
        ),
        // Fuzz/: the libFuzzer target for the request-body decoders (scripts/fuzz builds it with
        // --sanitize=fuzzer); a plain build makes a replayer of saved inputs.
        .executableTarget(
            name: "purse-fuzz",
            dependencies: [
                "PurseCore",
                "PurseParameters",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Fuzz/purse-fuzz",
            // scripts/fuzz sets PURSE_FUZZING: libFuzzer brings its own `main` then.
            swiftSettings: strictSettings + (Context.environment["PURSE_FUZZING"] != nil ? [.define("PURSE_FUZZING")] : [])
        ),
        // Helpers the test targets share: the test PostgreSQL, live servers, HTTP calls.
        .target(
            name: "TestSupport",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "Postgres",
                "LocalPostgres",
                "PurseCore",
                "PurseModels",
                "PursePostgres",
                "PurseServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PostgresTests",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), "Postgres", "LocalPostgres", "TestSupport",
            ],
            swiftSettings: strictSettings
        ),
        // The domain on the in-memory repositories: no PostgreSQL.
        .testTarget(
            name: "PurseCoreTests",
            dependencies: ["PurseCore", "PurseModels", "TestSupport"],
            swiftSettings: strictSettings
        ),
        // The schema, its migrations, and PurseCore's work on a test PostgreSQL.
        .testTarget(
            name: "PursePostgresTests",
            dependencies: ["PursePostgres", "PurseCore", "PurseSQL", "Postgres", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PurseServerTests",
            dependencies: [
                "PurseServer", "PurseParameters", "PurseCore", "PurseModels", "PursePostgres", "Postgres", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // Runs the built `purse` executable as users do.
        .testTarget(
            name: "PurseCommandTests",
            dependencies: [
                "purse", "Postgres", "LocalPostgres", "PurseModels", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // The client library against a live server, and the examples run as users run them.
        .testTarget(
            name: "PurseClientTests",
            dependencies: [
                "PurseClient", "Postgres", "LocalPostgres", "PurseServer", "TestSupport", "purse-example-backend", "purse-sheet",
            ],
            swiftSettings: strictSettings
        ),
    ]
)
