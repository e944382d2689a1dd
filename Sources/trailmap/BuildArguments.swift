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

    /// `--bands`: 1 to 4 band numbers from 1.
    struct Bands {
        let numbers: [Int]
    }

    /// `--bands b,b,b`.
    @Sendable static func bands(_ text: String) throws -> Bands {
        guard let numbers = NumberList.numbers(text).flatMap(ReadOptions.bandNumbers) else {
            throw ValidationError("--bands must be 1 to 4 band numbers from 1, e.g. 1,2,3 or 4,3,2")
        }
        return Bands(numbers: numbers)
    }

    /// `--source-crs`: an EPSG code, WKT or a PROJ string.
    @Sendable static func crs(_ text: String) throws -> SpatialReference {
        do { return try SpatialReference(userInput: text) } catch { throw ValidationError(error.description) }
    }
}
