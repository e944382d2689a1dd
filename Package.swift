// swift-tools-version: 6.1
import PackageDescription

let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "TrailMap",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "trailmap", targets: ["trailmap"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(
            name: "CPNG",
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]
        ),
        .target(name: "TileGeometry", swiftSettings: upcoming),
        .target(name: "Raster", dependencies: ["CPNG", "TileGeometry"], swiftSettings: upcoming),
        .target(
            name: "TileStore",
            dependencies: [
                "TileGeometry",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "BundleBuilder",
            dependencies: [
                "Raster", "TileStore", "TileGeometry",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "trailmap",
            dependencies: [
                "BundleBuilder", "TileStore", "TileGeometry", "Raster",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "TrailMapTestSupport",
            dependencies: ["Raster", "TileGeometry"],
            path: "Tests/TrailMapTestSupport",
            swiftSettings: upcoming
        ),
        .testTarget(name: "TileGeometryTests", dependencies: ["TileGeometry"], swiftSettings: upcoming),
        .testTarget(name: "RasterTests", dependencies: ["Raster", "CPNG", "TileGeometry", "TrailMapTestSupport"], swiftSettings: upcoming),
        .testTarget(name: "TileStoreTests", dependencies: ["TileStore", "TileGeometry", "Raster", "TrailMapTestSupport"], swiftSettings: upcoming),
        .testTarget(
            name: "BundleBuilderTests",
            dependencies: ["BundleBuilder", "TileStore", "TileGeometry", "Raster", "TrailMapTestSupport"],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "trailmapTests",
            dependencies: ["trailmap", "TileStore", "TileGeometry", "Raster", "TrailMapTestSupport"],
            swiftSettings: upcoming
        ),
    ]
)
