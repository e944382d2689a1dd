import CPNG

/// How `PNGLayout` compresses its rows.
enum PNGCompression {
    /// libpng's zlib path: `filters` are libpng's adaptive filter flags.
    case zlib(level: Int, filters: Int32, strategy: Int32, interlaced: Bool)
    /// Rows filtered by the shim and compressed with libdeflate: `choice` is a `CPNG_CHOICE_*`
    /// (a fixed filter, a per-row heuristic over `filters`, or `CPNG_CHOICE_SEARCH`).
    case libdeflate(level: Int, filters: Int32, choice: Int32, searchLevel: Int, dense: Dense? = nil)

    /// With the per-row entropy choice: rows with more than `bits` bits of entropy in all are
    /// compressed at `level` instead.
    struct Dense {
        var level: Int
        var bits: UInt64
    }
}

extension PNGLayout {
    /// Encodes the rows as a PNG.
    func encode(_ compression: PNGCompression) throws(PNGError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let (status, message) = withParams(compression) { params in
            PNGShim.call { cpng_encode(&params, &output, &length, $0, $1) }
        }
        defer { cpng_free(output) }
        guard status == CPNG_OK, let output else {
            throw .encodeFailed(message.isEmpty ? "unknown error" : message)
        }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }

    /// Runs the libdeflate filter search at `searchLevel` over the `filters` allowed: the winning
    /// `CPNG_CHOICE_*` and its sample's compressed size (comparable between layouts of one image).
    /// With a fixed `choice`, only that choice's sample is compressed.
    func rankFilters(
        filters: Int32, choice fixed: Int32 = CPNG_CHOICE_SEARCH, searchLevel: Int
    ) throws(PNGError) -> (choice: Int32, score: Int) {
        var choice: Int32 = 0
        var score = 0
        let compression = PNGCompression.libdeflate(
            level: searchLevel, filters: filters, choice: fixed, searchLevel: searchLevel)
        let (status, message) = withParams(compression) { params in
            PNGShim.call { cpng_rank_filters(&params, &choice, &score, $0, $1) }
        }
        guard status == CPNG_OK else {
            throw .encodeFailed(message.isEmpty ? "unknown error" : message)
        }
        return (choice, score)
    }

    private func withParams<R>(_ compression: PNGCompression, _ body: (inout cpng_encode_params) -> R) -> R {
        let (deflater, level, strategy, filters, interlaced, choice, searchLevel): (Int32, Int, Int32, Int32, Bool, Int32, Int)
        var dense: PNGCompression.Dense?
        switch compression {
        case let .zlib(zlibLevel, zlibFilters, zlibStrategy, zlibInterlaced):
            (deflater, level, strategy, filters, interlaced, choice, searchLevel) =
                (CPNG_DEFLATER_ZLIB, zlibLevel, zlibStrategy, zlibFilters, zlibInterlaced, 0, 0)
        case let .libdeflate(deflateLevel, deflateFilters, deflateChoice, deflateSearch, deflateDense):
            (deflater, level, strategy, filters, interlaced, choice, searchLevel) =
                (CPNG_DEFLATER_LIBDEFLATE, deflateLevel, 0, deflateFilters, false, deflateChoice, deflateSearch)
            dense = deflateDense
        }
        return rows.withUnsafeBufferPointer { rows in
            palette.withUnsafeBufferPointer { palette in
                transparency.withUnsafeBufferPointer { transparency in
                    (alternates ?? []).withUnsafeBufferPointer { alternates in
                        var params = cpng_encode_params(
                            width: UInt32(width), height: UInt32(height), color_type: colorType,
                            bit_depth: Int32(bitDepth), rows: rows.baseAddress, rows_length: rows.count,
                            palette: palette.baseAddress, palette_count: Int32(palette.count / 3),
                            trns: transparency.baseAddress, trns_count: Int32(transparency.count),
                            compression_level: Int32(level), strategy: strategy, filters: filters,
                            interlace: interlaced ? 1 : 0, deflater: deflater, filter_choice: choice,
                            search_level: Int32(searchLevel), dense_level: Int32(dense?.level ?? 0),
                            dense_bits: dense?.bits ?? 0,
                            alternates: deflater == CPNG_DEFLATER_LIBDEFLATE && self.alternates != nil ? alternates.baseAddress : nil)
                        return body(&params)
                    }
                }
            }
        }
    }
}
