import CPNG

/// Lossless PNG encoding with colour reduction: palette (1/2/4/8-bit) when there are at most 256
/// distinct RGBA colours, otherwise the fewest channels that hold the image exactly.
/// Thread-safe: call from any number of tasks at once.
public enum PNGEncoder: Sendable {
    /// Encodes `image`; decoding the result gives back exactly `image.pixels` (with
    /// `options.rounding` `.compact`, each byte `image.pixels`' or its rounding alternate's).
    public static func encode(_ image: RGBAImage, options: PNGEncodingOptions = .default) throws(PNGError) -> [UInt8] {
        try check(width: image.width, height: image.height, options: options)
        return try encode(candidates(image, options: options), options: options)
    }

    /// Encodes a grey image: the same PNG as its RGBA form (`image.rgba`) gives, made without
    /// spreading its pixels into four channels and reducing them again.
    public static func encode(_ image: GrayImage, options: PNGEncodingOptions = .default) throws(PNGError) -> [UInt8] {
        // Without channel reduction the PNG is RGBA: nothing to save.
        guard options.reduceChannels else { return try encode(image.rgba, options: options) }
        try check(width: image.width, height: image.height, options: options)
        return try encode(candidates(image, options: options), options: options)
    }

    /// An image size and options the encoder takes, or the error saying why not.
    private static func check(width: Int, height: Int, options: PNGEncodingOptions) throws(PNGError) {
        guard width > 0, height > 0 else {
            throw .encodeFailed("cannot encode an empty image (\(width)×\(height))")
        }
        guard width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw .encodeFailed("image too large for PNG (\(width)×\(height))")
        }
        let deflater = options.deflater
        guard (0...deflater.maxLevel).contains(options.compressionLevel) else {
            throw .encodeFailed(
                "\(deflater) compression level must be 0...\(deflater.maxLevel), not \(options.compressionLevel)")
        }
    }

    /// Compresses the preferred of `layouts` (or, with `.best` libdeflate effort, the one that
    /// compresses smallest).
    private static func encode(_ layouts: [PNGLayout], options: PNGEncodingOptions) throws(PNGError) -> [UInt8] {
        if options.deflater == .libdeflate && !options.interlaced {
            return try encodeWithLibdeflate(layouts, options: options)
        }
        let layout = layouts[0]
        var best: [UInt8]?
        for attempt in zlibAttempts(layout, effort: options.effort) {
            let output = try layout.encode(
                .zlib(
                    level: min(options.compressionLevel, 9), filters: attempt.filters, strategy: attempt.strategy,
                    interlaced: options.interlaced))
            if output.count < best?.count ?? Int.max {
                best = output
            }
        }
        guard let best else { throw .encodeFailed("no encoding attempted") }
        return best
    }

    /// The lossless layouts worth trying, preferred first: a palette when it has at most 256
    /// colours (unless 8-bit gray holds the same data), then the reduced truecolour layout
    /// (only with `.best` libdeflate effort when a palette came first).
    static func candidates(_ image: RGBAImage, options: PNGEncodingOptions) -> [PNGLayout] {
        var (opaque, gray) = (false, false)
        if options.reduceChannels {
            (opaque, gray) = PNGLayout.channelInfo(image)
        }
        var layouts: [PNGLayout] = []
        // An opaque gray image's palette is only used below 8 bits (at most 16 colours): with
        // more grey levels, skip building it.
        let paletteCanWin = !(opaque && gray) || PNGLayout.hasFewGrayLevels(image, atMost: 16)
        if options.allowPalette, paletteCanWin, let palette = PNGPalette.analyze(image) {
            // 8-bit gray beats an 8-bit palette: same data, no PLTE, meaningful filters.
            if !(opaque && gray && palette.bitDepth == 8) {
                layouts.append(PNGLayout.palette(palette, width: image.width, height: image.height))
            }
        }
        let searchesLayouts = options.effort == .best && options.deflater == .libdeflate && !options.interlaced
        if layouts.isEmpty || searchesLayouts {
            let layout =
                options.reduceChannels
                ? PNGLayout.truecolor(image, opaque: opaque, gray: gray)
                : PNGLayout.rgba(image)
            let flexible = options.rounding == .compact && options.deflater == .libdeflate && !options.interlaced
            layouts.append(flexible ? layout.withAlternates(of: image) : layout)
        }
        return layouts
    }

    /// The layouts worth trying for a grey image, as `candidates` chooses them for its RGBA form
    /// (channel reduction on): a palette when it has at most 256 colours (unless 8-bit gray holds
    /// the same data), then 8-bit gray, or gray and alpha when some pixel is not opaque.
    static func candidates(_ image: GrayImage, options: PNGEncodingOptions) -> [PNGLayout] {
        let opaque = image.isOpaque
        var layouts: [PNGLayout] = []
        let paletteCanWin = !opaque || PNGLayout.hasFewGrayLevels(image, atMost: 16)
        if options.allowPalette, paletteCanWin, let palette = PNGPalette.analyze(image) {
            if !(opaque && palette.bitDepth == 8) {
                layouts.append(PNGLayout.palette(palette, width: image.width, height: image.height))
            }
        }
        let searchesLayouts = options.effort == .best && options.deflater == .libdeflate && !options.interlaced
        if layouts.isEmpty || searchesLayouts {
            layouts.append(PNGLayout.gray(image, opaque: opaque))
        }
        return layouts
    }

    /// libdeflate: with `.fast`, one filter setting on the preferred layout; with `.best`, the
    /// layout and filter choice whose sample compresses smallest.
    static func encodeWithLibdeflate(_ layouts: [PNGLayout], options: PNGEncodingOptions) throws(PNGError) -> [UInt8] {
        let level = options.compressionLevel
        guard options.effort == .best else {
            let layout = layouts[0]
            // Per row, the filter whose output has the least Shannon entropy: 2-3% smaller than the
            // least-sum heuristic on the benchmark's truecolour tiles at the same level, same time.
            let isPalette = layout.colorType == CPNG_COLOR_PALETTE
            let choice = isPalette ? CPNG_CHOICE_NONE : CPNG_CHOICE_ENTROPY
            guard let adaptive = options.adaptiveLevels else {
                return try layout.encode(.libdeflate(level: level, filters: CPNG_ALL_FILTERS, choice: choice, searchLevel: 0))
            }
            guard adaptive.denseBitsPerPixel.isFinite, adaptive.denseBitsPerPixel >= 0 else {
                throw .encodeFailed(
                    "the dense threshold must be a finite number of bits per pixel, 0 or more (got \(adaptive.denseBitsPerPixel))")
            }
            let bits = adaptive.denseBitsPerPixel * Double(layout.width * layout.height)
            let dense = PNGCompression.Dense(level: adaptive.dense, bits: UInt64(min(bits, 0x1p63)))
            return try layout.encode(
                .libdeflate(
                    level: isPalette ? adaptive.palette : level, filters: CPNG_ALL_FILTERS, choice: choice,
                    searchLevel: 0, dense: isPalette ? nil : dense))
        }
        var best: (layout: PNGLayout, choice: Int32, score: Int)?
        for layout in layouts {
            let ranked = try layout.rankFilters(filters: CPNG_ALL_FILTERS, searchLevel: options.searchLevel)
            guard layouts.count > 1 else {
                best = (layout, ranked.choice, 0)
                break
            }
            // Layouts compete on their winners' samples at the final level (the fast search level
            // mispredicts between colour types); PLTE and tRNS are part of a palette's cost.
            let sample = try layout.rankFilters(
                filters: CPNG_ALL_FILTERS, choice: ranked.choice, searchLevel: max(level, 1))
            let score = sample.score + layout.palette.count + layout.transparency.count
            if score < best?.score ?? Int.max {
                best = (layout, ranked.choice, score)
            }
        }
        guard let best else { throw .encodeFailed("no encoding attempted") }
        return try best.layout.encode(
            .libdeflate(
                level: level, filters: CPNG_ALL_FILTERS, choice: best.choice, searchLevel: 0))
    }

    /// zlib: the filter/strategy settings to try on a layout.
    static func zlibAttempts(_ layout: PNGLayout, effort: PNGEncodingOptions.Effort) -> [(filters: Int32, strategy: Int32)] {
        let adaptive = (filters: CPNG_ALL_FILTERS, strategy: CPNG_STRATEGY_FILTERED)
        let adaptiveDefault = (filters: CPNG_ALL_FILTERS, strategy: CPNG_STRATEGY_DEFAULT)
        let unfiltered = (filters: CPNG_FILTER_NONE, strategy: CPNG_STRATEGY_DEFAULT)
        let fast = effort == .fast
        if layout.colorType == CPNG_COLOR_PALETTE {
            return fast ? [unfiltered] : [unfiltered, adaptiveDefault]
        }
        if fast {
            return [adaptive]
        }
        return layout.colorType == CPNG_COLOR_GRAY ? [adaptive, unfiltered] : [adaptive, adaptiveDefault]
    }
}
