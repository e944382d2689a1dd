/* cpng: the IDAT zlib stream compressed with libdeflate, with a per-image filter search. */
#include "cpng_private.h"

#include <libdeflate.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEVELS 13 /* libdeflate levels 0...12 */
/* The filter search compresses bands of SAMPLE_BAND rows, one band in every SAMPLE_EVERY. */
#define SAMPLE_BAND 8
#define SAMPLE_EVERY 4

/* Compressors are costly to allocate (the high levels hold large match finders) and may not be
 * shared between threads, so each thread keeps one per level, freed when the thread exits. */
typedef struct compressor_cache {
    struct libdeflate_compressor *by_level[LEVELS];
} compressor_cache;

static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static int cache_ready;

static void cache_free(void *value) {
    compressor_cache *cache = (compressor_cache *)value;
    for (int i = 0; i < LEVELS; i++) {
        libdeflate_free_compressor(cache->by_level[i]);
    }
    free(cache);
}

static void cache_init(void) { cache_ready = pthread_key_create(&cache_key, cache_free) == 0; }

/* A compressor for `level`; *owned tells the caller to free it (no thread cache available). */
static struct libdeflate_compressor *compressor_for(int level, int *owned) {
    *owned = 0;
    (void)pthread_once(&cache_once, cache_init);
    compressor_cache *cache = cache_ready ? (compressor_cache *)pthread_getspecific(cache_key) : NULL;
    if (cache_ready && cache == NULL) {
        cache = (compressor_cache *)calloc(1, sizeof *cache);
        if (cache != NULL && pthread_setspecific(cache_key, cache) != 0) {
            free(cache);
            cache = NULL;
        }
    }
    if (cache == NULL) {
        *owned = 1;
        return libdeflate_alloc_compressor(level);
    }
    if (cache->by_level[level] == NULL) {
        cache->by_level[level] = libdeflate_alloc_compressor(level);
    }
    return cache->by_level[level];
}

static void compressor_release(struct libdeflate_compressor *c, int owned) {
    if (owned) {
        libdeflate_free_compressor(c);
    }
}

static int bits_per_pixel(const cpng_encode_params *p) {
    switch (p->color_type) {
    case CPNG_COLOR_RGB: return 3 * p->bit_depth;
    case CPNG_COLOR_GRAY_ALPHA: return 2 * p->bit_depth;
    case CPNG_COLOR_RGBA: return 4 * p->bit_depth;
    default: return p->bit_depth;
    }
}

/* Compresses `in` into a new malloc'd buffer at `level`; 0 with a message on failure. */
static int compress_at(int level, const uint8_t *in, size_t n, uint8_t **out, size_t *out_len,
                       char *msg, size_t msg_len) {
    int owned = 0;
    struct libdeflate_compressor *c = compressor_for(level, &owned);
    if (c == NULL) {
        snprintf(msg, msg_len, "out of memory (libdeflate compressor, level %d)", level);
        return CPNG_ERR_NOMEM;
    }
    size_t bound = libdeflate_zlib_compress_bound(c, n);
    uint8_t *buffer = (uint8_t *)malloc(bound);
    if (buffer == NULL) {
        compressor_release(c, owned);
        snprintf(msg, msg_len, "out of memory (%zu-byte compression buffer)", bound);
        return CPNG_ERR_NOMEM;
    }
    size_t written = libdeflate_zlib_compress(c, in, n, buffer, bound);
    compressor_release(c, owned);
    if (written == 0) {
        free(buffer);
        snprintf(msg, msg_len, "libdeflate could not compress the image data");
        return CPNG_ERR_ENCODE;
    }
    *out = buffer;
    *out_len = written;
    return CPNG_OK;
}

static const int flag_of[5] = {CPNG_FILTER_NONE, CPNG_FILTER_SUB, CPNG_FILTER_UP, CPNG_FILTER_AVG,
                               CPNG_FILTER_PAETH};

static size_t bytes_per_pixel(const cpng_encode_params *p) {
    return (size_t)(bits_per_pixel(p) + 7) / 8;
}

int cpng_rank(const cpng_encode_params *p, size_t stride, int *choice, size_t *score, char *msg,
              size_t msg_len) {
    int allowed = p->filters != 0 ? p->filters : CPNG_FILTER_NONE;
    int candidates[7];
    int count = 0;
    for (int t = 0; t < 5 && p->filter_choice == CPNG_CHOICE_SEARCH; t++) {
        if (allowed & flag_of[t]) candidates[count++] = t;
    }
    if (p->filter_choice != CPNG_CHOICE_SEARCH) {
        candidates[count++] = p->filter_choice;
    } else if (count > 1) {
        candidates[count++] = CPNG_CHOICE_MINSUM;
        candidates[count++] = CPNG_CHOICE_ENTROPY;
    }
    /* SAMPLE_BAND-row bands, one in every SAMPLE_EVERY (every band when the image is short),
     * each row filtered against its real predecessor. */
    uint32_t every = p->height >= 2 * SAMPLE_BAND * SAMPLE_EVERY ? SAMPLE_EVERY : 1;
    uint32_t bands = (p->height + SAMPLE_BAND - 1) / SAMPLE_BAND;
    size_t sample_rows = 0;
    for (uint32_t band = 0; band < bands; band += every) {
        uint32_t y0 = band * SAMPLE_BAND;
        sample_rows += p->height - y0 < SAMPLE_BAND ? p->height - y0 : SAMPLE_BAND;
    }
    size_t bpp = bytes_per_pixel(p);
    uint8_t *sample = (uint8_t *)malloc(sample_rows * (stride + 1));
    uint8_t *scratch = (uint8_t *)malloc(stride);
    if (sample == NULL || scratch == NULL) {
        free(sample);
        free(scratch);
        snprintf(msg, msg_len, "out of memory (filter search)");
        return CPNG_ERR_NOMEM;
    }
    int status = CPNG_OK;
    *choice = candidates[0];
    *score = SIZE_MAX;
    for (int i = 0; i < count && status == CPNG_OK; i++) {
        size_t at = 0;
        for (uint32_t band = 0; band < bands; band += every) {
            uint32_t y0 = band * SAMPLE_BAND;
            uint32_t rows = p->height - y0 < SAMPLE_BAND ? p->height - y0 : SAMPLE_BAND;
            cpng_filter_rows(p->rows, stride, y0, rows, bpp, candidates[i], allowed, sample + at, scratch);
            at += (size_t)rows * (stride + 1);
        }
        uint8_t *z = NULL;
        size_t z_len = 0;
        status = compress_at(p->search_level, sample, at, &z, &z_len, msg, msg_len);
        free(z);
        if (status == CPNG_OK && z_len < *score) {
            *choice = candidates[i];
            *score = z_len;
        }
    }
    free(sample);
    free(scratch);
    return status;
}

int cpng_deflate_idat(const cpng_encode_params *p, size_t stride, uint8_t **zdata, size_t *zlength,
                      char *msg, size_t msg_len) {
    *zdata = NULL;
    *zlength = 0;
    if (stride + 1 > SIZE_MAX / p->height) {
        snprintf(msg, msg_len, "image too large");
        return CPNG_ERR_ENCODE;
    }
    int allowed = p->filters != 0 ? p->filters : CPNG_FILTER_NONE;
    int choice = p->filter_choice;
    if (choice == CPNG_CHOICE_SEARCH) {
        size_t score = 0;
        int status = cpng_rank(p, stride, &choice, &score, msg, msg_len);
        if (status != CPNG_OK) return status;
    }
    size_t n = (stride + 1) * (size_t)p->height;
    uint8_t *filtered = (uint8_t *)malloc(n);
    int flexible = p->alternates != NULL;
    uint8_t *scratch = (uint8_t *)malloc(stride);
    uint8_t *chosen = flexible ? (uint8_t *)malloc(stride * (size_t)p->height) : NULL;
    int status = CPNG_ERR_NOMEM;
    if (filtered != NULL && scratch != NULL && (chosen != NULL || !flexible)) {
        uint64_t entropy =
            flexible ? cpng_filter_image_alternates(p->rows, p->alternates, stride, p->height, bytes_per_pixel(p),
                                                    choice, allowed, filtered, chosen, scratch)
                     : cpng_filter_image(p->rows, stride, p->height, bytes_per_pixel(p), choice, allowed,
                                         filtered, scratch);
        /* Near-optimal parsing pays where the rows are dense: it costs less time per byte saved
         * there (docs/notes/png-compression.md). */
        int level = p->compression_level;
        if (p->dense_level > 0 && choice == CPNG_CHOICE_ENTROPY && entropy / 16 > p->dense_bits) {
            level = p->dense_level;
        }
        status = compress_at(level, filtered, n, zdata, zlength, msg, msg_len);
    } else {
        snprintf(msg, msg_len, "out of memory (%zu bytes of filtered rows)", n);
    }
    free(filtered);
    free(scratch);
    free(chosen);
    return status;
}

int cpng_rank_filters(const cpng_encode_params *p, int *choice, size_t *score, char *err,
                      size_t err_len) {
    if (p == NULL || choice == NULL || score == NULL) {
        return cpng_usage(err, err_len, "invalid arguments");
    }
    size_t stride = 0;
    const char *invalid = cpng_validate_encode(p, &stride);
    if (invalid == NULL && p->deflater != CPNG_DEFLATER_LIBDEFLATE) {
        invalid = "filter ranking needs the libdeflate deflater";
    }
    if (invalid == NULL && (p->search_level < 1 || p->search_level > 12)) {
        invalid = "libdeflate search level must be 1...12";
    }
    if (invalid != NULL) {
        return cpng_usage(err, err_len, invalid);
    }
    char msg[CPNG_MSG_LEN] = {0};
    int status = cpng_rank(p, stride, choice, score, msg, sizeof msg);
    if (status != CPNG_OK) {
        cpng_copy_msg(err, err_len, msg);
    }
    return status;
}
