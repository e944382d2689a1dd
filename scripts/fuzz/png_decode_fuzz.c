/* libFuzzer harness: TrailMap's PNG decoder (Sources/CPNG) on arbitrary bytes, through the public
 * cpng reader API the way Raster calls it: a memory reader with the tile pixel cap
 * (TileEncoding.decode: 1 << 22 pixels; PNGDecoder: 4 bytes a pixel for interlaced images),
 * every row as RGBA8, then the check to IEND.
 *
 * Two kinds of input:
 * - starting with 0x89 (a PNG signature byte): the bytes are a PNG. They are decoded as they
 *   are, then again with every chunk's CRC recomputed (libpng stops at a bad CRC, so most
 *   mutations would never reach past the chunk they touched).
 * - anything else: a recipe (see build_png) for a valid PNG of any colour type, bit depth,
 *   palette, tRNS, interlacing and filtered rows, compressed here with zlib, with an ancillary
 *   chunk that must not change the pixels; a reference decoder written here says what the
 *   pixels must be. (System libpng is not instrumented: this reaches its transforms anyway.)
 *
 * Invariants beyond "no crash" (ASan, UBSan):
 * - an image that opens is 1...cap pixels;
 * - decoding it whole (one read of every row, as PNGDecoder does) and in chunks of rows with a
 *   wider stride succeed or fail together, give the same pixels, write every byte of each row
 *   (the two buffers start with different fills) and nothing between rows (canary);
 * - the reader counts the rows it delivered; finish() without reading a row agrees with a full
 *   decode about whether the stream is good;
 * - a recipe image decodes, to exactly the reference pixels (or fails when a row holds an
 *   invalid filter type). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "cpng.h"

#define MAX_PIXELS (1u << 22) /* TileDecoder's default cap (TileEncoding.decode) */
#define MAX_INTERLACED_BYTES ((uint64_t)MAX_PIXELS * 4) /* PNGDecoder.interlacedLimit */
#define CANARY 0xA5

#define CHECK(cond, ...)                                            \
    do {                                                            \
        if (!(cond)) {                                              \
            fprintf(stderr, "invariant failed: %s: ", #cond);       \
            fprintf(stderr, __VA_ARGS__);                           \
            fprintf(stderr, "\n");                                  \
            abort();                                                \
        }                                                           \
    } while (0)

typedef struct {
    int status;         /* CPNG_OK or the first error */
    uint32_t w, h;      /* size, when the header was read */
    uint8_t *pixels;    /* w*h*4 bytes (tightly packed), when status == CPNG_OK */
    char err[256];      /* the error's message */
} decoded;

/* Decodes the way PNGDecoder.decode does: one read of every row into a w*4 stride buffer. */
static decoded decode_whole(const uint8_t *data, size_t size, uint8_t fill) {
    decoded d = {CPNG_ERR_NOMEM, 0, 0, NULL, ""};
    char *err = d.err;
    cpng_reader *r = cpng_reader_new(MAX_PIXELS, MAX_INTERLACED_BYTES);
    if (r == NULL) return d;
    d.status = cpng_reader_open_memory(r, data, size, err, sizeof d.err);
    if (d.status == CPNG_OK) {
        d.w = cpng_reader_width(r);
        d.h = cpng_reader_height(r);
        CHECK(d.w > 0 && d.h > 0 && (uint64_t)d.w * d.h <= MAX_PIXELS, "opened %ux%u", d.w, d.h);
        CHECK(cpng_reader_rows_read(r) == 0, "rows read before any read");
        size_t bytes = (size_t)d.w * d.h * 4;
        d.pixels = malloc(bytes);
        if (d.pixels == NULL) {
            d.status = CPNG_ERR_NOMEM;
        } else {
            memset(d.pixels, fill, bytes);
            d.status = cpng_reader_read_rows(r, d.pixels, d.h, (size_t)d.w * 4, err, sizeof d.err);
            if (d.status == CPNG_OK) {
                CHECK(cpng_reader_rows_read(r) == d.h, "rows_read %u after reading %u", cpng_reader_rows_read(r), d.h);
                d.status = cpng_reader_finish(r, err, sizeof d.err);
            }
            if (d.status != CPNG_OK) { /* a failed reader stays failed, with the same error */
                uint8_t row[4];
                CHECK(cpng_reader_finish(r, err, sizeof d.err) == d.status, "finish after error %d", d.status);
                CHECK(cpng_reader_read_rows(r, row, 1, 4, err, sizeof d.err) == d.status, "read after error %d", d.status);
            }
        }
    }
    cpng_reader_close(r);
    return d;
}

/* Decodes in chunks of `chunk` rows into a buffer of stride w*4 + pad whose padding holds a
 * canary; the rows are then packed tightly into d.pixels for comparison. */
static decoded decode_chunked(const uint8_t *data, size_t size, uint32_t chunk, size_t pad, uint8_t fill) {
    decoded d = {CPNG_ERR_NOMEM, 0, 0, NULL, ""};
    char *err = d.err;
    cpng_reader *r = cpng_reader_new(MAX_PIXELS, MAX_INTERLACED_BYTES);
    if (r == NULL) return d;
    d.status = cpng_reader_open_memory(r, data, size, err, sizeof d.err);
    if (d.status == CPNG_OK) {
        d.w = cpng_reader_width(r);
        d.h = cpng_reader_height(r);
        size_t row_bytes = (size_t)d.w * 4, stride = row_bytes + pad;
        uint8_t *buf = malloc(stride * chunk);
        d.pixels = malloc(row_bytes * d.h);
        if (buf == NULL || d.pixels == NULL) {
            d.status = CPNG_ERR_NOMEM;
        } else {
            uint32_t done = 0;
            while (done < d.h) {
                uint32_t n = d.h - done < chunk ? d.h - done : chunk;
                memset(buf, CANARY, stride * chunk);
                for (uint32_t i = 0; i < n; i++) memset(buf + i * stride, fill, row_bytes);
                d.status = cpng_reader_read_rows(r, buf, n, stride, err, sizeof d.err);
                if (d.status != CPNG_OK) break;
                for (uint32_t i = 0; i < n; i++) {
                    for (size_t k = row_bytes; k < stride; k++)
                        CHECK(buf[i * stride + k] == CANARY, "row %u: byte %zu past the row was written", done + i, k);
                    memcpy(d.pixels + (size_t)(done + i) * row_bytes, buf + i * stride, row_bytes);
                }
                for (size_t k = (size_t)n * stride; k < stride * chunk; k++)
                    CHECK(buf[k] == CANARY, "byte %zu past the %u rows asked for was written", k, n);
                done += n;
                CHECK(cpng_reader_rows_read(r) == done, "rows_read %u, delivered %u", cpng_reader_rows_read(r), done);
            }
            if (d.status == CPNG_OK) {
                uint8_t row[4];
                CHECK(cpng_reader_read_rows(r, row, 1, 4 + row_bytes, err, sizeof d.err) == CPNG_ERR_USAGE,
                      "read past the last row accepted");
                d.status = cpng_reader_finish(r, err, sizeof d.err);
            }
        }
        free(buf);
    }
    cpng_reader_close(r);
    return d;
}

/* Opens and finishes without reading a row (the skip path of finish). */
static int decode_skip(const uint8_t *data, size_t size) {
    char err[256];
    cpng_reader *r = cpng_reader_new(MAX_PIXELS, MAX_INTERLACED_BYTES);
    if (r == NULL) return CPNG_ERR_NOMEM;
    int status = cpng_reader_open_memory(r, data, size, err, sizeof err);
    if (status == CPNG_OK) {
        status = cpng_reader_finish(r, err, sizeof err);
        if (status == CPNG_OK) {
            CHECK(cpng_reader_rows_read(r) == cpng_reader_height(r), "finish left rows");
            CHECK(cpng_reader_finish(r, err, sizeof err) == CPNG_OK, "a second finish failed");
        }
    }
    cpng_reader_close(r);
    return status;
}

/* Every invariant on one PNG; returns the whole decode (caller frees pixels). */
static decoded check_png(const uint8_t *data, size_t size, uint32_t seed) {
    decoded whole = decode_whole(data, size, 0x00);
    if (whole.w == 0) {
        /* Did not open (or out of memory): the other paths must not open it either. */
        decoded other = decode_chunked(data, size, 1, 0, 0xff);
        CHECK(other.w == 0 && other.status == whole.status, "open: %d then %d", whole.status, other.status);
        free(other.pixels);
        return whole;
    }
    uint32_t chunk = 1 + seed % 7;
    size_t pad = (seed >> 3) % 9;
    decoded chunked = decode_chunked(data, size, chunk, pad, 0xff);
    CHECK(chunked.w == whole.w && chunked.h == whole.h, "size %ux%u then %ux%u", whole.w, whole.h, chunked.w, chunked.h);
    CHECK((whole.status == CPNG_OK) == (chunked.status == CPNG_OK),
          "whole decode %d, chunks of %u rows %d", whole.status, chunk, chunked.status);
    if (whole.status == CPNG_OK) {
        size_t bytes = (size_t)whole.w * whole.h * 4;
        for (size_t i = 0; i < bytes; i++)
            CHECK(whole.pixels[i] == chunked.pixels[i],
                  "pixel byte %zu (%ux%u): %u whole (buffer of 0x00), %u in chunks of %u (buffer of 0xff)",
                  i, whole.w, whole.h, whole.pixels[i], chunked.pixels[i], chunk);
    }
    free(chunked.pixels);
    int skipped = decode_skip(data, size);
    CHECK((skipped == CPNG_OK) == (whole.status == CPNG_OK), "whole decode %d, finish alone %d", whole.status, skipped);
    return whole;
}

/* ------------------------------------------------------------------ PNGs with fixed CRCs */

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

/* Recomputes the CRC of every whole chunk; returns whether anything changed. */
static int fix_crcs(uint8_t *p, size_t size) {
    int changed = 0;
    size_t pos = 8;
    while (size - pos >= 12 && pos <= size) {
        uint32_t len = be32(p + pos);
        if (len > size - pos - 12) break;
        uint32_t crc = (uint32_t)crc32(0, p + pos + 4, len + 4);
        if (be32(p + pos + 8 + len) != crc) {
            put32(p + pos + 8 + len, crc);
            changed = 1;
        }
        pos += 12 + (size_t)len;
    }
    return changed;
}

/* ------------------------------------------------------------------ recipes */

/* Reads the recipe's bytes; past the end, a counter (so short inputs still make images). */
typedef struct {
    const uint8_t *p;
    size_t n, i;
} source;

static uint8_t take(source *s) {
    if (s->i < s->n) return s->p[s->i++];
    return (uint8_t)(s->i++ * 37);
}

typedef struct {
    uint8_t *p;
    size_t n, cap;
} buffer;

static void put(buffer *b, const void *bytes, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = (b->n + n) * 2;
        uint8_t *p = realloc(b->p, cap);
        if (p == NULL) abort();
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, bytes, n);
    b->n += n;
}

static void put_chunk(buffer *b, const char *type, const uint8_t *data, uint32_t len) {
    uint8_t head[8];
    put32(head, len);
    memcpy(head + 4, type, 4);
    put(b, head, 8);
    if (len > 0) put(b, data, len);
    uLong crc = crc32(0, (const uint8_t *)type, 4);
    if (len > 0) crc = crc32(crc, data, len); /* crc32(crc, NULL, 0) would restart at 0 */
    uint8_t tail[4];
    put32(tail, (uint32_t)crc);
    put(b, tail, 4);
}

typedef struct {
    uint32_t w, h;
    int color, depth, interlace;
    int channels;
    uint8_t palette[256 * 3];
    int palette_count;
    uint8_t trns_alpha[256];
    int trns_count;         /* palette tRNS entries */
    int has_trns;           /* any tRNS chunk */
    uint16_t trns_value[3]; /* gray or RGB tRNS sample */
} recipe;

static const int adam7[7][4] = {/* x0, y0, dx, dy */
                                {0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
                                {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}};

static size_t row_bytes(const recipe *r, uint32_t width) {
    return ((size_t)width * r->channels * r->depth + 7) / 8;
}

/* Sample `i` (channel index counted across the row) of an unfiltered row. */
static uint16_t sample(const recipe *r, const uint8_t *row, size_t i) {
    switch (r->depth) {
    case 16: return (uint16_t)(row[2 * i] << 8 | row[2 * i + 1]);
    case 8: return row[i];
    default: {
        size_t bit = i * r->depth;
        return (row[bit / 8] >> (8 - r->depth - bit % 8)) & ((1 << r->depth) - 1);
    }
    }
}

/* libpng's png_do_scale_16_to_8 (what png_set_scale_16 does), for one sample. */
static uint8_t scale16(uint16_t v) {
    int32_t tmp = v >> 8;
    tmp += (((int)(v & 0xff) - tmp + 128) * 65535) >> 24;
    return (uint8_t)tmp;
}

/* A sample of the source's depth as 8 bits (gray of 1, 2, 4 bits is expanded by replication). */
static uint8_t to8(const recipe *r, uint16_t v) {
    switch (r->depth) {
    case 1: return v ? 0xff : 0;
    case 2: return (uint8_t)(v * 0x55);
    case 4: return (uint8_t)(v * 0x11);
    case 8: return (uint8_t)v;
    default: return scale16(v);
    }
}

/* The RGBA8 pixel x of an unfiltered row, the way the reader's transforms should make it. */
static void reference_pixel(const recipe *r, const uint8_t *row, uint32_t x, uint8_t out[4]) {
    size_t c = (size_t)x * r->channels;
    switch (r->color) {
    case 0: { /* gray */
        uint16_t g = sample(r, row, c);
        out[0] = out[1] = out[2] = to8(r, g);
        out[3] = r->has_trns && g == r->trns_value[0] ? 0 : 0xff;
        break;
    }
    case 2: { /* RGB */
        uint16_t v[3] = {sample(r, row, c), sample(r, row, c + 1), sample(r, row, c + 2)};
        for (int k = 0; k < 3; k++) out[k] = to8(r, v[k]);
        out[3] = r->has_trns && v[0] == r->trns_value[0] && v[1] == r->trns_value[1] && v[2] == r->trns_value[2] ? 0 : 0xff;
        break;
    }
    case 3: { /* palette: indices past the palette are black (libpng keeps 256 zeroed entries) */
        uint16_t i = sample(r, row, c);
        for (int k = 0; k < 3; k++) out[k] = i < r->palette_count ? r->palette[3 * i + k] : 0;
        out[3] = i < r->trns_count ? r->trns_alpha[i] : 0xff;
        break;
    }
    case 4: { /* gray + alpha */
        out[0] = out[1] = out[2] = to8(r, sample(r, row, c));
        out[3] = to8(r, sample(r, row, c + 1));
        break;
    }
    default: /* RGBA */
        for (int k = 0; k < 4; k++) out[k] = to8(r, sample(r, row, c + k));
    }
}

static uint8_t paeth(uint8_t a, uint8_t b, uint8_t c) {
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undoes the PNG filter of one row in place (prev NULL on a pass's first row); 0 for a bad type. */
static int unfilter(int type, uint8_t *row, const uint8_t *prev, size_t len, size_t bpp) {
    for (size_t i = 0; i < len; i++) {
        uint8_t a = i >= bpp ? row[i - bpp] : 0, b = prev ? prev[i] : 0, c = prev && i >= bpp ? prev[i - bpp] : 0;
        switch (type) {
        case 0: break;
        case 1: row[i] += a; break;
        case 2: row[i] += b; break;
        case 3: row[i] += (uint8_t)((a + b) / 2); break;
        case 4: row[i] += paeth(a, b, c); break;
        default: return 0;
        }
    }
    return 1;
}

/*
 * Builds a PNG from a recipe and its reference pixels (*expected, w*h*4 bytes). Returns 0 when
 * the image data holds an invalid filter type (the decode must then fail).
 * Recipe bytes: colour type, bit depth, flags (interlace, tRNS, zlib level, IDAT split),
 * width - 1, height - 1 (1...64 each), palette size - 1, then as needed: palette, tRNS, the
 * ancillary chunk, and the filtered scanlines (a filter byte per row; types 0-4 mostly).
 */
static int build_png(source *s, recipe *r, buffer *png, uint8_t **expected) {
    static const int colors[5] = {0, 2, 3, 4, 6};
    static const int depths[5][5] = {{1, 2, 4, 8, 16}, {8, 16}, {1, 2, 4, 8}, {8, 16}, {8, 16}};
    static const int ndepths[5] = {5, 2, 4, 2, 2};
    static const int channels[7] = {1, 0, 3, 1, 2, 0, 4};
    memset(r, 0, sizeof *r);
    int ci = take(s) % 5;
    r->color = colors[ci];
    r->depth = depths[ci][take(s) % ndepths[ci]];
    r->channels = channels[r->color];
    uint8_t flags = take(s);
    r->interlace = flags & 1;
    int want_trns = (flags & 2) != 0 && (r->color == 0 || r->color == 2 || r->color == 3);
    int level = (flags >> 2) % 10;
    uint32_t idat_split = 1 + (flags >> 6) * 700; /* 1, 701, 1401, 2101 bytes a chunk */
    r->w = 1 + take(s) % 64;
    r->h = 1 + take(s) % 64;
    int palette_count = 1 + take(s);

    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    put(png, sig, 8);
    uint8_t ihdr[13];
    put32(ihdr, r->w);
    put32(ihdr + 4, r->h);
    ihdr[8] = (uint8_t)r->depth;
    ihdr[9] = (uint8_t)r->color;
    ihdr[10] = 0;
    ihdr[11] = 0;
    ihdr[12] = (uint8_t)r->interlace;
    put_chunk(png, "IHDR", ihdr, 13);

    if (r->color == 3) {
        int max = 1 << r->depth;
        r->palette_count = palette_count > max ? max : palette_count;
        for (int i = 0; i < 3 * r->palette_count; i++) r->palette[i] = take(s);
        put_chunk(png, "PLTE", r->palette, (uint32_t)(3 * r->palette_count));
    }
    if (want_trns) {
        uint8_t t[256];
        uint32_t len;
        r->has_trns = 1;
        if (r->color == 3) {
            r->trns_count = 1 + take(s) % r->palette_count;
            for (int i = 0; i < r->trns_count; i++) t[i] = r->trns_alpha[i] = take(s);
            len = (uint32_t)r->trns_count;
        } else {
            int n = r->color == 0 ? 1 : 3;
            uint16_t mask = r->depth == 16 ? 0xffff : (uint16_t)((1 << r->depth) - 1);
            for (int k = 0; k < n; k++) {
                uint8_t hi = take(s), lo = take(s);
                r->trns_value[k] = (uint16_t)(hi << 8 | lo) & mask;
                t[2 * k] = r->trns_value[k] >> 8;
                t[2 * k + 1] = r->trns_value[k] & 0xff;
            }
            len = (uint32_t)(2 * n);
        }
        put_chunk(png, "tRNS", t, len);
    }
    /* An ancillary chunk libpng reads or skips without changing the pixels. */
    {
        static const char *types[] = {"gAMA", "sRGB", "tEXt", "zTXt", "pHYs", "bKGD", "sBIT",
                                      "iCCP", "cHRM", "tIME", "iTXt", "sPLT", "hIST", "eXIf", "zzZz"};
        uint8_t pick = take(s);
        if (pick < 2 * (sizeof types / sizeof *types)) {
            uint8_t body[64];
            uint32_t len = take(s) % sizeof body;
            for (uint32_t i = 0; i < len; i++) body[i] = take(s);
            put_chunk(png, types[pick % (sizeof types / sizeof *types)], body, len);
        }
    }

    /* The filtered scanlines, pass by pass, and the reference image. */
    size_t bpp = ((size_t)r->channels * r->depth + 7) / 8;
    size_t raw_cap = 0;
    for (int pass = 0; pass < (r->interlace ? 7 : 1); pass++) raw_cap += (size_t)r->h * (1 + row_bytes(r, r->w));
    uint8_t *raw = malloc(raw_cap), *prev = malloc(row_bytes(r, r->w)), *cur = malloc(row_bytes(r, r->w) + 1);
    *expected = malloc((size_t)r->w * r->h * 4);
    if (raw == NULL || prev == NULL || cur == NULL || *expected == NULL) abort();
    size_t raw_n = 0;
    int valid = 1;
    for (int pass = 0; pass < (r->interlace ? 7 : 1); pass++) {
        uint32_t x0 = 0, y0 = 0, dx = 1, dy = 1;
        if (r->interlace) {
            x0 = adam7[pass][0]; y0 = adam7[pass][1]; dx = adam7[pass][2]; dy = adam7[pass][3];
        }
        uint32_t pw = r->w > x0 ? (r->w - x0 + dx - 1) / dx : 0, ph = r->h > y0 ? (r->h - y0 + dy - 1) / dy : 0;
        if (pw == 0 || ph == 0) continue;
        size_t rb = row_bytes(r, pw);
        for (uint32_t y = 0; y < ph; y++) {
            uint8_t f = take(s);
            int type = f < 250 ? f % 5 : f - 245; /* 250...255: 5...10, invalid */
            raw[raw_n++] = (uint8_t)type;
            for (size_t i = 0; i < rb; i++) cur[i] = raw[raw_n++] = take(s);
            if (!unfilter(type, cur, y > 0 ? prev : NULL, rb, bpp)) valid = 0;
            for (uint32_t x = 0; x < pw; x++) {
                uint8_t *px = *expected + ((size_t)(y0 + y * dy) * r->w + x0 + x * dx) * 4;
                reference_pixel(r, cur, x, px);
            }
            memcpy(prev, cur, rb);
        }
    }
    uLongf zcap = compressBound(raw_n);
    uint8_t *z = malloc(zcap);
    if (z == NULL || compress2(z, &zcap, raw, raw_n, level) != Z_OK) abort();
    for (uLongf off = 0; off < zcap; off += idat_split) {
        uint32_t n = zcap - off < idat_split ? (uint32_t)(zcap - off) : idat_split;
        put_chunk(png, "IDAT", z + off, n);
    }
    put_chunk(png, "IEND", NULL, 0);
    free(z);
    free(raw);
    free(prev);
    free(cur);
    return valid;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint32_t seed = (uint32_t)size * 2654435761u;
    if (size > 0 && data[0] == 0x89) {
        decoded d = check_png(data, size, seed);
        free(d.pixels);
        uint8_t *copy = malloc(size);
        if (copy == NULL) return 0;
        memcpy(copy, data, size);
        if (fix_crcs(copy, size)) {
            d = check_png(copy, size, seed >> 7);
            free(d.pixels);
        }
        free(copy);
        return 0;
    }
    source s = {data, size, 0};
    recipe r;
    buffer png = {NULL, 0, 0};
    uint8_t *expected = NULL;
    int valid = build_png(&s, &r, &png, &expected);
    decoded d = check_png(png.p, png.n, seed);
    if (!valid) {
        CHECK(d.status != CPNG_OK, "a row with an invalid filter type decoded");
    } else {
        CHECK(d.status == CPNG_OK, "a valid %ux%u PNG (colour type %d, depth %d, interlace %d, tRNS %d) failed: %d %s",
              r.w, r.h, r.color, r.depth, r.interlace, r.has_trns, d.status, d.err);
        CHECK(d.w == r.w && d.h == r.h, "size %ux%u, made %ux%u", d.w, d.h, r.w, r.h);
        for (size_t i = 0; i < (size_t)r.w * r.h * 4; i++)
            CHECK(d.pixels[i] == expected[i],
                  "pixel (%zu, %zu) channel %zu of a %ux%u PNG (colour type %d, depth %d, interlace %d, tRNS %d): "
                  "decoded %u, reference %u",
                  (i / 4) % r.w, (i / 4) / r.w, i % 4, r.w, r.h, r.color, r.depth, r.interlace, r.has_trns,
                  d.pixels[i], expected[i]);
    }
    free(d.pixels);
    free(expected);
    free(png.p);
    return 0;
}
