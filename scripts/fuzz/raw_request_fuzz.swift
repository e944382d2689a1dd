// libFuzzer harness: TileWire's request parsing (Sources/TrailMapServer/RawTileRequest.swift,
// compiled in with this file) on arbitrary bytes. Beyond "no crash" (ASan), its contract:
// a request's length is within the input and parsing exactly those bytes gives the same request;
// a request's target starts with /tiles/ and holds only visible ASCII; an accepted request
// stays accepted with any bytes after it; every strict prefix of it is incomplete.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let parsed = RawTileRequest.parse(bytes, clientHeader: Array("x-client".utf8))
    guard case let .request(request, length) = parsed else { return 0 }
    guard length > 0, length <= size else { fatalError("length \(length) of \(size) bytes") }
    let exact = RawTileRequest.parse(UnsafeRawBufferPointer(rebasing: bytes[0..<length]), clientHeader: Array("x-client".utf8))
    guard exact == parsed else { fatalError("the request's own bytes parse as \(exact), not \(parsed)") }
    guard request.target.hasPrefix("/tiles/"), request.target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
        fatalError("target \(request.target.debugDescription)")
    }
    for k in stride(from: 1, to: length, by: max(1, length / 64)) {
        let prefix = RawTileRequest.parse(UnsafeRawBufferPointer(rebasing: bytes[0..<k]), clientHeader: Array("x-client".utf8))
        guard prefix == .incomplete else { fatalError("prefix of \(k) bytes: \(prefix)") }
    }
    return 0
}
