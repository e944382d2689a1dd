import ArgumentParser
import Foundation
import TileStore

/// `bundle inspect` and `bundle verify` on a PMTiles archive.
extension InspectCommand {
    /// The summary of an archive: the same sections as a bundle's, then the archive's own figures.
    func inspectArchive() throws {
        let reader = try PMTilesReader(path: file)
        let pairs = try reader.metadataPairs()
        let summary = PMTilesSummary(reader)
        let h = summary.header
        if json {
            var object = inspection(
                pairs: pairs, layout: "pmtiles", fileBytes: Int(reader.fileSize), levels: summary.levels,
                storedImages: summary.contents.count, storedBytes: summary.contentBytes)
            object.pmtiles = PMTilesInspection(summary)
            try Self.printJSON(object)
            return
        }
        print("\(file) (PMTiles v3 archive, \(ByteSize.format(Int(reader.fileSize))))")
        Self.printDetails(pairs: pairs, levels: summary.levels)
        Self.printTotal(
            tiles: summary.addressedTiles, bytes: summary.tileBytes, stored: summary.contents.count,
            storedBytes: summary.contentBytes, noun: "contents")
        print(
            "pmtiles: \(summary.addressedTiles) addressed tiles, \(summary.tileEntries) entries, \(summary.contents.count) contents"
                + " (header: \(h.addressedTiles), \(h.tileEntries), \(h.tileContents)); \(h.clustered ? "clustered" : "not clustered");"
                + " \(summary.leafDirectories) leaf directories; directories \(h.internalCompression),"
                + " tiles \(h.tileCompression), type \(h.tileType)"
        )
        print(
            "sections: root directory \(ByteSize.format(Int(h.rootLength))), metadata \(ByteSize.format(Int(h.metadataLength))),"
                + " leaf directories \(ByteSize.format(Int(h.leafLength))), tile data \(ByteSize.format(Int(h.tileDataLength)))")
        if !summary.problems.isEmpty {
            var err = FileHandle.standardError
            print("warning: the directories have problems (run `trailmap bundle verify`):", to: &err)
            for p in summary.problems { print("  - \(p)", to: &err) }
        }
    }
}

extension VerifyCommand {
    /// Verifies an archive: header, metadata, every directory entry, every distinct tile.
    func verifyArchive() throws {
        var contents = 0
        let pairs = (try? PMTilesReader(path: file).metadataPairs()) ?? [:]
        let check = TileContentCheck(metadata: pairs)
        let problems = PMTilesVerifier.verify(path: file) { _, data in
            contents += 1
            return check.problem(data)
        }
        if json {
            try JSONOutput.print(VerifyOutput(file: file, ok: problems.isEmpty, tiles: contents, problems: problems))
            if !problems.isEmpty { throw ExitCode.failure }
            return
        }
        if problems.isEmpty {
            print("\(file): OK (\(contents) distinct tiles decode, every directory entry inside the file, metadata readable)")
            return
        }
        try Self.fail(file, problems)
    }
}
