// swift-tools-version: 6.1
import PackageDescription

let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility")
]

let package = Package(
    name: "TrailMap",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "trailmap", targets: ["trailmap"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.30.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2")
    ],
    targets: [
        .target(
            name: "CLibdeflate",
            exclude: ["VENDORED.md", "COPYING"],
            // Optimised in debug builds too: tests build bundles, and -O0 compression is 2.8x slower.
            cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]
        ),
        .target(
            name: "CPNG",
            dependencies: ["CLibdeflate"],
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]
        ),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        // SQLite's defensive mode (a variadic C call), for the patch files a device opens.
        .systemLibrary(name: "CSQLiteConfig", path: "Sources/CSQLiteConfig"),
        // Small helpers every module uses: constant-time compare, hex, base64url, file SHA-256, atomic files, file locks.
        .target(
            name: "Essentials",
            dependencies: ["CZlib", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: upcoming
        ),
        .systemLibrary(name: "CGDAL", path: "Sources/CGDAL"),
        .target(name: "SourceReaders", dependencies: ["CGDAL", "TileGeometry"], swiftSettings: upcoming),
        .target(name: "TileGeometry", swiftSettings: upcoming),
        // Elevation: terrain-tile encodings (Terrarium, Mapbox Terrain-RGB), sampling terrain bundles, profiles.
        .target(name: "Terrain", dependencies: ["TileStore", "Raster", "TileGeometry"], swiftSettings: upcoming),
        // Trails' elevation figures filled from an elevation source (a build's single call).
        .target(name: "TrailTerrain", dependencies: ["Trails", "Terrain"], swiftSettings: upcoming),
        // Elevation read straight from a DEM through GDAL (builds, and the reference of benchmarks).
        .target(name: "TerrainDEM", dependencies: ["Terrain", "SourceReaders", "CGDAL"], swiftSettings: upcoming),
        // The /api/v1 contract: request and answer bodies, their OpenAPI schemas (Foundation only).
        .target(name: "TrailMapAPI", swiftSettings: upcoming),
        .systemLibrary(name: "CWebP", path: "Sources/CWebP"),
        .systemLibrary(name: "CTurboJPEG", path: "Sources/CTurboJPEG"),
        .target(name: "Raster", dependencies: ["CPNG", "CWebP", "CTurboJPEG", "TileGeometry"], swiftSettings: upcoming),
        // Cairo and Pango (Debian libcairo2-dev, libpango1.0-dev): trail labels, shaped and drawn along the lines.
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        .systemLibrary(name: "CCairo", path: "Sources/CCairo", pkgConfig: "pangocairo"),
        // Trails drawn from vectors into transparent overlay tiles: strokes, casings, labels.
        .target(name: "TrailRendering", dependencies: ["CCairo", "Raster", "TileGeometry"], swiftSettings: upcoming),
        .target(
            name: "TileStore",
            dependencies: [
                "TileGeometry", "Essentials",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: upcoming
        ),
        // Patches between published versions of a bundle: content hashes, version indexes, making and applying.
        .target(
            name: "BundlePatch",
            dependencies: [
                "TileStore", "Essentials", "CSQLiteConfig", "Trails",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: upcoming
        ),
        // Trails as data: trail records, their tables in a bundle (R*Tree, FTS5), search (SQLite only, no GDAL).
        .target(
            name: "Trails",
            dependencies: [
                "Essentials",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: upcoming
        ),
        // Trails from vector files: line layers read through OGR, field mappings, the OpenStreetMap preset, joining.
        .target(
            name: "TrailSources",
            dependencies: [
                "Trails", "CGDAL", "SourceReaders", .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift")
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "BundleBuilder",
            dependencies: [
                "Raster", "TileStore", "TileGeometry", "SourceReaders", "Essentials", "Trails", "TrailSources", "TrailRendering",
                "TerrainDEM", "TrailTerrain",
                "Terrain",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "TileCache",
            dependencies: [
                "TileStore", "TileGeometry",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: upcoming
        ),
        // App Store signed data: JWS transactions and notifications checked against Apple's chain; the sandbox store.
        .target(
            name: "StoreVerification",
            dependencies: [
                "Essentials",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1")
            ],
            swiftSettings: upcoming
        ),
        // The catalog's core: its types, the rules every backend follows, one protocol per aggregate (no database code).
        .target(
            name: "Catalog",
            dependencies: [
                "TileStore", "TileGeometry", "Essentials", "TrailMapAPI", "StoreVerification",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto")
            ],
            swiftSettings: upcoming
        ),
        // The catalog in one SQLite file (GRDB), the embedded default: the same rules as CatalogPostgres.
        .target(
            name: "CatalogSQLite",
            dependencies: [
                "Catalog", "TileStore", "TileGeometry", "Essentials", "TrailMapAPI",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: upcoming
        ),
        // The catalog on PostgreSQL, for N stateless replicas: the same rules as CatalogSQLite.
        .target(
            name: "CatalogPostgres",
            dependencies: [
                "Catalog", "TileStore", "TileGeometry", "Essentials", "TrailMapAPI",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio")
            ],
            swiftSettings: upcoming
        ),
        // Areas on demand: quoting an area (fit to an area product's cap) and cutting it from several bundles.
        .target(
            name: "Areas",
            dependencies: [
                "Catalog", "TileStore", "TileGeometry", "Raster", "Essentials", "TrailMapAPI", "Trails",
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "RegionManager",
            dependencies: [
                "Essentials", "TrailMapAPI", "BundlePatch",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "TrailMapServer",
            dependencies: [
                "TileStore", "TileGeometry", "Raster", "CZlib", "CEpoll", "TileCache", "Catalog", "Essentials", "TrailMapAPI",
                "BundlePatch", "Areas", "Trails", "Terrain",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "trailmap",
            dependencies: [
                "BundleBuilder", "TileStore", "TileGeometry", "Raster", "TrailMapServer",
                "Catalog", "CatalogSQLite", "CatalogPostgres", "StoreVerification", "TileCache", "RegionManager", "SourceReaders",
                "TrailMapAPI",
                "BundlePatch", "Trails", "TrailSources", "TrailRendering",
                "Terrain",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: upcoming
        ),
        // Benchmark of signed-transaction verification (scripts/bench/store-verify.sh); small, no products.
        .executableTarget(
            name: "store-verify-bench",
            dependencies: ["StoreVerification"],
            path: "Benchmarks/store-verify",
            swiftSettings: upcoming
        ),
        // Trace benchmark of the cache policies (scripts/bench/cache-traces); small, no products.
        .executableTarget(
            name: "cache-traces",
            dependencies: ["TileCache", "TileGeometry", .product(name: "NIOCore", package: "swift-nio")],
            path: "Benchmarks/cache-traces",
            swiftSettings: upcoming
        ),
        // Trails overlay drawing benchmark against Mapnik (scripts/bench/trails-render.sh); small, no products.
        .executableTarget(
            name: "trails-render-bench",
            dependencies: ["TrailRendering", "Raster", "TileGeometry"],
            path: "Benchmarks/trails-render",
            swiftSettings: upcoming
        ),
        // Trails data benchmark: ingest and search against GDAL, osmium and GeoPackage (scripts/bench/trails-data.sh); small, no products.
        .executableTarget(
            name: "trails-data-bench",
            dependencies: ["Trails", "TrailSources"],
            path: "Benchmarks/trails-data",
            swiftSettings: upcoming
        ),
        // Elevation profile benchmark (scripts/bench/profile.sh): device p95 and ascent against GDAL; small, no products.
        .executableTarget(
            name: "profile-bench",
            dependencies: ["Terrain", "TerrainDEM", "Raster", "TileStore", "TileGeometry"],
            path: "Benchmarks/profile",
            swiftSettings: upcoming
        ),
        .target(
            name: "TrailMapTestSupport",
            dependencies: ["Raster", "TileGeometry", "TileStore", "Essentials", "Terrain", .product(name: "Logging", package: "swift-log")],
            path: "Tests/TrailMapTestSupport",
            swiftSettings: upcoming
        ),
        .testTarget(name: "AreasTests", dependencies: ["Areas", "Catalog"], swiftSettings: upcoming),
        .testTarget(name: "EssentialsTests", dependencies: ["Essentials", "TrailMapTestSupport"], swiftSettings: upcoming),
        .testTarget(
            name: "TrailRenderingTests",
            dependencies: ["TrailRendering", "Raster", "TileGeometry", "TrailMapTestSupport"],
            swiftSettings: upcoming
        ),
        .testTarget(name: "TileGeometryTests", dependencies: ["TileGeometry"], swiftSettings: upcoming),
        .testTarget(
            name: "TerrainTests",
            dependencies: [
                "Terrain", "TerrainDEM", "TrailTerrain", "Trails", "TrailSources", "TrailMapTestSupport", "TileGeometry", "TileStore",
                "Raster"
            ],
            swiftSettings: upcoming),
        .testTarget(
            name: "SourceReadersTests", dependencies: ["SourceReaders", "TileGeometry", "TrailMapTestSupport"], swiftSettings: upcoming),
        .testTarget(name: "RasterTests", dependencies: ["Raster", "CPNG", "TileGeometry", "TrailMapTestSupport"], swiftSettings: upcoming),
        .testTarget(
            name: "TileStoreTests", dependencies: ["TileStore", "TileGeometry", "Raster", "TrailMapTestSupport"], swiftSettings: upcoming),
        .testTarget(
            name: "BundleBuilderTests",
            dependencies: [
                "BundleBuilder", "TileStore", "TileGeometry", "Raster", "SourceReaders", "TrailMapTestSupport", "Trails", "TrailRendering",
                "Terrain",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "TrailMapServerTests",
            dependencies: [
                "TrailMapServer", "TileStore", "TileGeometry", "TileCache", "Raster", "TrailMapTestSupport", "CZlib", "Catalog",
                "CatalogSQLite", "CatalogPostgres", "StoreVerification", "TrailMapAPI", "Areas",
                "Trails", "TrailSources", "Terrain", "TrailTerrain", "TerrainDEM",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "TileCacheTests",
            dependencies: [
                "TileCache", "TileStore", "TileGeometry", "TrailMapTestSupport", .product(name: "NIOCore", package: "swift-nio")
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "StoreVerificationTests",
            dependencies: [
                "StoreVerification", "TrailMapTestSupport", "Essentials",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1")
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "CatalogTests",
            dependencies: [
                "Catalog", "CatalogSQLite", "CatalogPostgres", "TileStore", "TileGeometry", "TrailMapTestSupport", "Essentials",
                "TrailMapAPI",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1")
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "RegionManagerTests",
            dependencies: ["RegionManager", "TileStore", "TileGeometry", "TrailMapTestSupport", "TrailMapAPI", "BundlePatch", "Essentials"],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "TrailsTests",
            dependencies: [
                "Trails", "TrailSources", "TileStore", "TileGeometry", "TrailMapTestSupport", "BundlePatch",
                .product(name: "GRDB", package: "GRDB.swift")
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "BundlePatchTests",
            dependencies: ["BundlePatch", "TileStore", "TileGeometry", "Essentials", "TrailMapTestSupport"],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "trailmapTests",
            dependencies: [
                "trailmap", "TileStore", "TileGeometry", "Raster", "TrailMapTestSupport", "TrailMapAPI", "Essentials", "BundlePatch",
                "Terrain"
            ],
            swiftSettings: upcoming
        )
    ]
)
