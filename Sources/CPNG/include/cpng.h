/*
 * cpng: a small setjmp-guarded shim over libpng 1.6.
 *
 * libpng reports errors with longjmp. Every libpng call made by this shim happens inside a C
 * function that has set its own jump buffer first, so a longjmp never crosses a Swift frame.
 * Functions return a status (CPNG_OK or one of the CPNG_ERR_* codes) and copy a readable
 * message (usually libpng's own, e.g. "IDAT: CRC error") into a caller-provided buffer.
 * There is no global state: distinct readers/encodes may run on distinct threads at once.
 */
#ifndef CPNG_H
#define CPNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
#define CPNG_OK 0
#define CPNG_ERR_NOT_PNG 1     /* signature mismatch */
#define CPNG_ERR_EMPTY 2       /* zero bytes */
#define CPNG_ERR_CORRUPT 3     /* libpng error: truncated data, bad CRC, bad zlib stream, ... */
#define CPNG_ERR_TOO_LARGE 4   /* dimensions over the caller's limits */
#define CPNG_ERR_IO 5          /* cannot open or read the file */
#define CPNG_ERR_ENCODE 6      /* encoder failure */
#define CPNG_ERR_NOMEM 7       /* allocation failed */
#define CPNG_ERR_USAGE 8       /* API misuse (bad parameters, read past the last row) */

/* PNG colour types (same values as the PNG specification). */
#define CPNG_COLOR_GRAY 0
#define CPNG_COLOR_RGB 2
#define CPNG_COLOR_PALETTE 3
#define CPNG_COLOR_GRAY_ALPHA 4
#define CPNG_COLOR_RGBA 6

/* Filter flags for cpng_encode_params.filters (same values as libpng's PNG_FILTER_*). */
#define CPNG_FILTER_NONE 0x08
#define CPNG_FILTER_SUB 0x10
#define CPNG_FILTER_UP 0x20
#define CPNG_FILTER_AVG 0x40
#define CPNG_FILTER_PAETH 0x80
#define CPNG_ALL_FILTERS 0xF8

/* Deflate engines for cpng_encode_params.deflater. */
#define CPNG_DEFLATER_ZLIB 0       /* libpng's own zlib path (the only one for interlaced output) */
#define CPNG_DEFLATER_LIBDEFLATE 1 /* filter rows here, compress the IDAT stream with libdeflate */

/* Filter choices for cpng_encode_params.filter_choice (libdeflate only). */
#define CPNG_CHOICE_SEARCH (-1) /* rank the candidates at search_level (see below) */
#define CPNG_CHOICE_NONE 0      /* 0...4: that PNG filter type on every row */
#define CPNG_CHOICE_SUB 1
#define CPNG_CHOICE_UP 2
#define CPNG_CHOICE_AVG 3
#define CPNG_CHOICE_PAETH 4
#define CPNG_CHOICE_MINSUM 5    /* per row, the allowed filter with the least sum of |signed byte| */
#define CPNG_CHOICE_ENTROPY 6   /* per row, the allowed filter with the least Shannon entropy */

/* zlib strategies (same values as zlib's Z_* strategies). */
#define CPNG_STRATEGY_DEFAULT 0
#define CPNG_STRATEGY_FILTERED 1
#define CPNG_STRATEGY_HUFFMAN_ONLY 2
#define CPNG_STRATEGY_RLE 3
#define CPNG_STRATEGY_FIXED 4

/* ---------------------------------------------------------------- streaming reader */

/* A reader delivering every row as 8-bit RGBA, whatever the PNG's colour type and depth. */
typedef struct cpng_reader cpng_reader;

/*
 * Creates an unopened reader (NULL when out of memory).
 * max_pixels: width*height above this is CPNG_ERR_TOO_LARGE (checked before any allocation).
 * max_interlaced_bytes: interlaced images are decoded whole at open; width*height*4 above this
 * is CPNG_ERR_TOO_LARGE.
 */
cpng_reader *cpng_reader_new(uint64_t max_pixels, uint64_t max_interlaced_bytes);

/* Opens a file and reads the header. Call once per reader. */
int cpng_reader_open_file(cpng_reader *reader, const char *path, char *err, size_t err_len);

/*
 * Reads from memory (not copied: the bytes must stay valid and unchanged until close).
 * Reading past the end is a "truncated" error, never an out-of-bounds read.
 */
int cpng_reader_open_memory(cpng_reader *reader, const uint8_t *data, size_t length,
                            char *err, size_t err_len);

/* Image size and interlacing; valid once the header was read (also after a TOO_LARGE error). */
uint32_t cpng_reader_width(const cpng_reader *reader);
uint32_t cpng_reader_height(const cpng_reader *reader);
int cpng_reader_interlaced(const cpng_reader *reader);
/* Number of rows delivered so far. */
uint32_t cpng_reader_rows_read(const cpng_reader *reader);

/*
 * Reads the next `count` rows as RGBA8 into dst, row i at dst + i*stride (stride >= width*4).
 * After an error the reader is failed: every later call returns the same error.
 */
int cpng_reader_read_rows(cpng_reader *reader, uint8_t *dst, uint32_t count, size_t stride,
                          char *err, size_t err_len);

/*
 * Verifies the rest of the stream up to IEND (truncation, CRC errors). Rows not read yet are
 * decoded and discarded first.
 */
int cpng_reader_finish(cpng_reader *reader, char *err, size_t err_len);

/* Frees everything, closes the file. Accepts NULL and failed readers. */
void cpng_reader_close(cpng_reader *reader);

/* ---------------------------------------------------------------- encoder */

typedef struct cpng_encode_params {
    uint32_t width;
    uint32_t height;
    int color_type;            /* CPNG_COLOR_* */
    int bit_depth;             /* 8; or 1, 2, 4 for palette and gray */
    const uint8_t *rows;       /* packed rows, stride = ceil(width * channels * bit_depth / 8) */
    size_t rows_length;        /* bytes available at rows (at least stride * height) */
    const uint8_t *palette;    /* RGB triplets, palette_count of them (palette type only) */
    int palette_count;         /* 1...256 */
    const uint8_t *trns;       /* alpha per palette entry, or NULL */
    int trns_count;            /* 0...palette_count */
    int compression_level;     /* zlib: 0...9; libdeflate: 0...12 */
    int strategy;              /* CPNG_STRATEGY_* (zlib only) */
    int filters;               /* CPNG_FILTER_* flags: the filters allowed */
    int interlace;             /* nonzero: Adam7 (zlib only) */
    int deflater;              /* CPNG_DEFLATER_*; libdeflate needs interlace == 0 */
    int filter_choice;         /* libdeflate only: CPNG_CHOICE_* */
    /*
     * libdeflate with CPNG_CHOICE_SEARCH only, 1...12: every allowed fixed filter and both per-row
     * heuristics filter a sample of the rows (8-row bands, one in four), which is compressed at
     * this level; the candidate with the smallest sample wins and is compressed whole at
     * compression_level. With a single allowed filter there is nothing to search.
     */
    int search_level;
    /*
     * libdeflate with CPNG_CHOICE_ENTROPY only: when dense_level is 1...12 and the filtered rows'
     * Shannon entropy exceeds dense_bits bits, the image is compressed at dense_level instead of
     * compression_level. 0 turns it off.
     */
    int dense_level;
    uint64_t dense_bits;
    /*
     * libdeflate, 8-bit gray, gray+alpha, RGB or RGBA only; NULL otherwise. Per byte of `rows`
     * (same packing, rows_length bytes), a second value the encoder may store instead: the byte
     * whichever of the two the row's filter predicts more closely (ties keep `rows`). Callers
     * give the other integer next to an exact value that `rows` holds rounded, so the image
     * stays within one level of that value; a value more than one from its row byte is ignored.
     * NULL: `rows` exactly.
     */
    const uint8_t *alternates;
} cpng_encode_params;

/*
 * Encodes to a malloc'd buffer stored in *out (length *out_length); free it with cpng_free.
 * On error *out is NULL.
 */
int cpng_encode(const cpng_encode_params *params, uint8_t **out, size_t *out_length,
                char *err, size_t err_len);

/*
 * libdeflate only: runs the filter search at search_level without encoding. *choice gets the
 * winning CPNG_CHOICE_* and *score its sample's compressed size, comparable between layouts
 * (colour types, bit depths) of the same image; callers encode the winner with filter_choice set.
 * With a fixed filter_choice (not CPNG_CHOICE_SEARCH) only that choice's sample is compressed.
 */
int cpng_rank_filters(const cpng_encode_params *params, int *choice, size_t *score, char *err,
                      size_t err_len);

/* Frees a buffer returned by cpng_encode. */
void cpng_free(void *buffer);

#ifdef __cplusplus
}
#endif

#endif /* CPNG_H */
