import CPNG

/// Lossless PNG encoding with colour reduction: palette (1/2/4/8-bit) when there are at most 256
/// distinct RGBA colours, otherwise the fewest channels that hold the image exactly.
/// Thread-safe: call from any number of tasks at once.
public enum PNGEncoder: Sendable {
    /// Encodes `image`; decoding the result gives back exactly `image.pixels`.
    public static func encode(_ image: RGBAImage, options: PNGEncodingOptions = .default) throws(PNGError) -> [UInt8] {
        guard image.width > 0, image.height > 0 else {
            throw .encodeFailed("cannot encode an empty image (\(image.width)×\(image.height))")
        }
        guard image.width <= Int(Int32.max), image.height <= Int(Int32.max) else {
            throw .encodeFailed("image too large for PNG (\(image.width)×\(image.height))")
        }
        guard (0...9).contains(options.compressionLevel) else {
            throw .encodeFailed("compression level must be 0...9, not \(options.compressionLevel)")
        }
        let (layout, attempts) = plan(image, options: options)
        var best: [UInt8]?
        for attempt in attempts {
            let output = try layout.encode(
                level: options.compressionLevel, filters: attempt.filters, strategy: attempt.strategy,
                interlaced: options.interlaced)
            if output.count < best?.count ?? Int.max {
                best = output
            }
        }
        guard let best else { throw .encodeFailed("no encoding attempted") }
        return best
    }

    /// The chosen layout and the filter/strategy settings to try on it.
    static func plan(
        _ image: RGBAImage, options: PNGEncodingOptions
    ) -> (PNGLayout, [(filters: Int32, strategy: Int32)]) {
        let fast = options.effort == .fast
        let adaptive = (filters: CPNG_ALL_FILTERS, strategy: CPNG_STRATEGY_FILTERED)
        let adaptiveDefault = (filters: CPNG_ALL_FILTERS, strategy: CPNG_STRATEGY_DEFAULT)
        let unfiltered = (filters: CPNG_FILTER_NONE, strategy: CPNG_STRATEGY_DEFAULT)

        var (opaque, gray) = (false, false)
        if options.reduceChannels {
            (opaque, gray) = PNGLayout.channelInfo(image)
        }
        if options.allowPalette, let palette = PNGPalette.analyze(image) {
            // 8-bit gray beats an 8-bit palette: same data, no PLTE, meaningful filters.
            if !(opaque && gray && palette.bitDepth == 8) {
                let layout = PNGLayout.palette(palette, width: image.width, height: image.height)
                return (layout, fast ? [unfiltered] : [unfiltered, adaptiveDefault])
            }
        }
        let layout = options.reduceChannels
            ? PNGLayout.truecolor(image, opaque: opaque, gray: gray)
            : PNGLayout.rgba(image)
        if fast {
            return (layout, [adaptive])
        }
        return (layout, layout.colorType == CPNG_COLOR_GRAY ? [adaptive, unfiltered] : [adaptive, adaptiveDefault])
    }
}
