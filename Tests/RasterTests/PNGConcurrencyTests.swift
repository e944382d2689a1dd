import Testing
import TrailMapTestSupport
@testable import Raster

@Suite("PNG codec: concurrency", .computeThreads)
struct PNGConcurrencyTests {
    @Test func manyTasksEncodeAndDecodeAtOnce() async throws {
        let failures = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var failures = 0
                    for tile in 0..<50 {
                        let seed = UInt64(task * 1000 + tile)
                        let image: RGBAImage
                        switch tile % 4 {
                        case 0: image = PNGFixtures.photo(width: 64, height: 64, seed: seed)
                        case 1: image = PNGFixtures.rgbaVaried(width: 64, height: 64, seed: seed)
                        case 2: image = PNGFixtures.fewColorsWithAlpha(width: 64, height: 64)
                        default: image = PNGFixtures.gray(width: 64, height: 64, seed: seed)
                        }
                        do throws(PNGError) {
                            let png = try PNGEncoder.encode(image)
                            if try PNGDecoder.decode(png) != image { failures += 1 }
                            // Corrupt data fails in parallel too, without disturbing others.
                            if (try? PNGDecoder.decode(Array(png.prefix(png.count / 2)))) != nil { failures += 1 }
                        } catch {
                            failures += 1
                        }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
    }
}
