// libFuzzer harness: the tile fast path's request parsing (Sources/TrailMapServer/
// TileRequestParsing.swift, compiled in with this file) on arbitrary bytes taken as a request
// target and an If-None-Match value. Beyond "no crash" (ASan), each function's contract is
// checked against a plain reference implementation; a difference aborts.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    let target = text.hasPrefix("/") ? text : "/tiles/" + text

    // tilePath: nil, or five components without '/' or '?' that rebuild the path. HTTP targets
    // are bytes: the reference splits UTF-8 bytes too (a String split would keep "/" with a
    // combining mark after it as one character).
    let slash = UInt8(ascii: "/"), question = UInt8(ascii: "?")
    let pathBytes = Array(target.utf8.prefix { $0 != question })
    let referenceParts = pathBytes.dropFirst().split(separator: slash, omittingEmptySubsequences: false).map(Array.init)
    let reference: [[UInt8]]? = target.utf8.count <= 2048 && target.utf8.starts(with: "/tiles/".utf8) && referenceParts.count == 5
        ? referenceParts : nil
    let parts = TileRequestParsing.tilePath(target)
    if let parts {
        guard parts.count == 5, parts.allSatisfy({ !$0.utf8.contains(slash) && !$0.utf8.contains(question) }),
              Array(("/" + parts.joined(separator: "/")).utf8) == pathBytes
        else { fatalError("tilePath(\(target.debugDescription)) = \(parts)") }
    }
    if parts.map({ $0.map { Array($0.utf8) } }) != reference {
        fatalError("tilePath(\(target.debugDescription)): \(String(describing: parts)) vs reference \(String(describing: reference))")
    }

    // coordinate: exactly 1-9 ASCII digits, with the value Int gives.
    for piece in text.split(separator: "/", omittingEmptySubsequences: false).prefix(8) {
        let asciiDigits = !piece.isEmpty && piece.utf8.count <= 9 && piece.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        let value = TileRequestParsing.coordinate(piece)
        guard (value != nil) == asciiDigits, value == nil || value == Int(piece) else {
            fatalError("coordinate(\(piece.debugDescription)) = \(String(describing: value))")
        }
        // tilesetID: a valid id never holds a path.
        if let id = TileRequestParsing.tilesetID(piece) {
            guard !id.contains("/"), !id.hasPrefix("."), !id.contains("%"), id.utf8.count <= 128 else {
                fatalError("tilesetID(\(piece.debugDescription)) = \(id.debugDescription)")
            }
        }
    }

    // etagMatches: an exact tag or '*' always matches; a header that holds neither never does.
    let etag = "\"0123456789abcdef0123456789abcdef\""
    let header = String(text.prefix(256))
    let matched = TileRequestParsing.etagMatches(header, etag: etag)
    if matched, !header.contains(etag), !header.contains("*") { fatalError("etagMatches(\(header.debugDescription))") }
    guard TileRequestParsing.etagMatches(etag, etag: etag), TileRequestParsing.etagMatches("W/" + etag, etag: etag),
          TileRequestParsing.etagMatches("\(header), \(etag)", etag: etag) || header.contains("\"") else {
        fatalError("etagMatches misses \(etag) after \(header.debugDescription)")
    }
    return 0
}
