import ArgumentParser
import BundleBuilder
import SourceReaders

/// `trailmap build`'s values parsed once, as the command line is read, into the libraries'
/// types; a value that is not one is a usage error naming the flag and why.
enum BuildArguments {
    /// `--shard K/N`.
    @Sendable static func shard(_ text: String) throws -> ShardSpec {
        do { return try ShardSpec(parsing: text) } catch { throw ValidationError(error.description) }
    }

    /// `--source-crs`: an EPSG code, WKT or a PROJ string.
    @Sendable static func crs(_ text: String) throws -> SpatialReference {
        do { return try SpatialReference(userInput: text) } catch { throw ValidationError(error.description) }
    }
}
