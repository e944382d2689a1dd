import CGDAL
import Foundation

// Reading a window as straight-alpha RGBA.

extension RasterDataset {
    /// Reads a window of full resolution (`level` 0) or of overview `level - 1` of
    /// `description.overviews` as straight-alpha RGBA into `out` (`width * height * 4` bytes).
    public func readRGBA(
        _ d: RasterDescription, level: Int, x0: Int, y0: Int, width w: Int, height h: Int,
        into out: UnsafeMutablePointer<UInt8>
    ) throws(SourceReaderError) {
        let n = w * h
        guard n > 0 else { return }
        var bands = [GDALRasterBandH]()
        for i in d.bands {
            guard var band = GDALGetRasterBand(handle, Int32(i)) else { throw .readFailed(path: path, reason: "band \(i) is missing") }
            if level > 0 {
                guard let o = GDALGetOverview(band, Int32(d.overviews[level - 1].index)) else {
                    throw .readFailed(path: path, reason: "overview \(level) of band \(i) is missing")
                }
                band = o
            }
            bands.append(band)
        }
        let colourBands = d.layout.hasAlpha ? bands.count - 1 : bands.count
        let eightBit = d.scale == nil
        var isNodata = [Bool]()
        if d.transparency.nodataValues != nil { isNodata = [Bool](repeating: true, count: n) }

        // Colour bands.
        let channels: [Int] = d.layout == .rgb || d.layout == .rgba ? [0, 1, 2] : [0]
        for (b, channel) in channels.enumerated() {
            if eightBit {
                try read(bands[b], x0, y0, w, h, into: out + channel, type: GDT_Byte, pixelSpace: 4)
                if let values = d.transparency.nodataValues, values[b].isFinite {
                    let v = values[b]
                    for i in 0..<n where isNodata[i] && Double(out[i * 4 + channel]) != v { isNodata[i] = false }
                } else if !isNodata.isEmpty {
                    for i in 0..<n { isNodata[i] = false }
                }
            } else if d.dataType == "Float64" {
                // Read as Doubles: values past Float's range (±3.4e38) keep their place in the scale.
                if doubles.count < n { doubles = [Double](repeating: 0, count: n) }
                try doubles.withUnsafeMutableBufferPointer { f throws(SourceReaderError) in
                    try read(bands[b], x0, y0, w, h, into: f.baseAddress!, type: GDT_Float64, pixelSpace: 8)
                    Self.scale(UnsafeBufferPointer(rebasing: f[0..<n]), d, band: b, channel: channel, into: out, isNodata: &isNodata)
                }
            } else {
                if floats.count < n { floats = [Float](repeating: 0, count: n) }
                try floats.withUnsafeMutableBufferPointer { f throws(SourceReaderError) in
                    try read(bands[b], x0, y0, w, h, into: f.baseAddress!, type: GDT_Float32, pixelSpace: 4)
                    if d.signedBytes { // GDAL reads a SIGNEDBYTE band's values as 0...255
                        for i in 0..<n where f[i] >= 128 { f[i] -= 256 }
                    }
                    Self.scale(UnsafeBufferPointer(rebasing: f[0..<n]), d, band: b, channel: channel, into: out, isNodata: &isNodata)
                }
            }
        }
        if eightBit { for i in 0..<n { out[i * 4 + 3] = 255 } }
        if eightBit, let bits = d.bitsPerSample {
            let widen = Self.widening(bits)
            for i in 0..<n { for c in channels { out[i * 4 + c] = widen[Int(out[i * 4 + c])] } }
        }
        // Gray and palette fan out to RGB.
        switch d.layout {
        case .gray, .grayAlpha:
            for i in 0..<n {
                let g = out[i * 4]
                out[i * 4 + 1] = g
                out[i * 4 + 2] = g
            }
        case .palette, .paletteAlpha:
            d.palette.withUnsafeBufferPointer { pal in
                for i in 0..<n {
                    let p = Int(out[i * 4]) * 4
                    if pal.isEmpty { continue }
                    out[i * 4] = pal[p]
                    out[i * 4 + 1] = pal[p + 1]
                    out[i * 4 + 2] = pal[p + 2]
                    out[i * 4 + 3] = pal[p + 3]
                }
            }
        case .rgb, .rgba:
            break
        }
        // Transparency: the alpha band, then nodata values or the mask.
        if d.layout.hasAlpha {
            let alpha = bands[colourBands]
            if d.layout == .paletteAlpha {
                // The colour table's alpha times the band's.
                try multiplyAlpha(out, by: alpha, x0, y0, w, h, bits: d.alphaBitsPerSample)
            } else if eightBit || d.alphaBitsPerSample != nil {
                try read(alpha, x0, y0, w, h, into: out + 3, type: GDT_Byte, pixelSpace: 4)
                if let bits = d.alphaBitsPerSample {
                    let widen = Self.widening(bits)
                    for i in 0..<n { out[i * 4 + 3] = widen[Int(out[i * 4 + 3])] }
                }
            } else {
                if floats.count < n { floats = [Float](repeating: 0, count: n) }
                try floats.withUnsafeMutableBufferPointer { f throws(SourceReaderError) in
                    try read(alpha, x0, y0, w, h, into: f.baseAddress!, type: GDT_Float32, pixelSpace: 4)
                }
                // 16-bit alpha runs 0...65535; wider or floating-point alpha is taken as 0...255.
                let divisor: Float = d.dataType == "UInt16" || d.dataType == "Int16" ? 257 : 1
                for i in 0..<n where out[i * 4 + 3] != 0 {
                    out[i * 4 + 3] = UInt8(max(0, min(255, (floats[i] / divisor).rounded())))
                }
            }
        }
        switch d.transparency {
        case .none, .alphaBand:
            break
        case .nodata, .alphaBandAndNodata:
            for i in 0..<n where isNodata[i] { out[i * 4 + 3] = 0 }
        case .mask:
            guard let mask = GDALGetMaskBand(bands[0]) else { break }
            try multiplyAlpha(out, by: mask, x0, y0, w, h)
        }
        if let neatline = d.neatline {
            let s = d.scale(ofLevel: level)
            neatline.clip(out, x0: x0, y0: y0, width: w, height: h, scaleX: s.x, scaleY: s.y)
        }
    }

    /// Maps colour band `band`'s values from the description's scale to 0...255 into `channel` of
    /// the RGBA window, NaN transparent; clears `isNodata` (when not empty) where a value is not
    /// the band's nodata. The first band sets alpha.
    private static func scale<T: BinaryFloatingPoint>(
        _ values: UnsafeBufferPointer<T>, _ d: RasterDescription, band b: Int,
        channel: Int, into out: UnsafeMutablePointer<UInt8>, isNodata: inout [Bool]
    ) {
        // A range wider than the largest Double (a Float64 band from -1e308 to 1e308) is halved
        // first, which is exact: (v - lo) * k == (v/2 - lo/2) * (2k).
        var (lo, hi) = d.scale!
        let half: Double = (hi - lo).isFinite ? 1 : 0.5
        (lo, hi) = (lo * half, hi * half)
        let k = 255 / (hi - lo)
        let nodataValue = d.transparency.nodataValues?[b] ?? .nan
        // A Float32 band's nodata is compared as a Float, as its pixels are (`FloatNodata`).
        let nodataFloat = FloatNodata(nodataValue), single = T.self == Float.self
        for i in 0..<values.count {
            let raw = Double(values[i]), v = raw * half
            if !isNodata.isEmpty && !v.isNaN
                && (!nodataValue.isFinite || !(single ? nodataFloat.matches(Float(raw)) : raw == nodataValue))
            {
                isNodata[i] = false
            }
            out[i * 4 + channel] = v.isNaN ? 0 : UInt8(max(0, min(255, ((v - lo) * k).rounded())))
            if v.isNaN { out[i * 4 + 3] = 0 } else if b == 0 { out[i * 4 + 3] = 255 }
        }
    }

    /// Multiplies the window's alpha by an 8-bit band's values (an alpha band, a mask) read over it;
    /// a band of fewer `bits` a sample is widened first.
    private func multiplyAlpha(
        _ out: UnsafeMutablePointer<UInt8>, by band: GDALRasterBandH,
        _ x0: Int, _ y0: Int, _ w: Int, _ h: Int, bits: Int? = nil
    ) throws(SourceReaderError) {
        let n = w * h
        if bytes.count < n { bytes = [UInt8](repeating: 0, count: n) }
        try bytes.withUnsafeMutableBufferPointer { m throws(SourceReaderError) in
            try read(band, x0, y0, w, h, into: m.baseAddress!, type: GDT_Byte, pixelSpace: 1)
        }
        if let bits {
            let widen = Self.widening(bits)
            for i in 0..<n { bytes[i] = widen[Int(bytes[i])] }
        }
        for i in 0..<n where bytes[i] != 255 { out[i * 4 + 3] = UInt8(Int(out[i * 4 + 3]) * Int(bytes[i]) / 255) }
    }

    private func read<T>(
        _ band: GDALRasterBandH, _ x0: Int, _ y0: Int, _ w: Int, _ h: Int,
        into buffer: UnsafeMutablePointer<T>, type: GDALDataType, pixelSpace: Int
    ) throws(SourceReaderError) {
        GDALEnvironment.resetError()
        let err = GDALRasterIO(
            band, GF_Read, Int32(x0), Int32(y0), Int32(w), Int32(h), buffer, Int32(w), Int32(h),
            type, Int32(pixelSpace), Int32(pixelSpace * w))
        guard err == CE_None else {
            throw .readFailed(path: path, reason: GDALEnvironment.lastError(or: "GDAL could not read a block (truncated or corrupt file?)"))
        }
    }
}
