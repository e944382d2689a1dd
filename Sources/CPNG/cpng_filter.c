/* cpng: PNG row filters and per-image filter heuristics (no libpng calls here). */
#include "cpng_private.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline uint8_t paeth(uint8_t a, uint8_t b, uint8_t c) {
    int p = (int)a + (int)b - (int)c;
    int pa = abs(p - (int)a), pb = abs(p - (int)b), pc = abs(p - (int)c);
    if (pa <= pb && pa <= pc) {
        return a;
    }
    return pb <= pc ? b : c;
}

void cpng_filter_row(int type, const uint8_t *row, const uint8_t *prev, size_t len, size_t bpp,
                     uint8_t *out) {
    size_t i;
    switch (type) {
    case 1: /* Sub */
        for (i = 0; i < bpp && i < len; i++) out[i] = row[i];
        for (; i < len; i++) out[i] = (uint8_t)(row[i] - row[i - bpp]);
        break;
    case 2: /* Up */
        if (prev == NULL) {
            memcpy(out, row, len);
        } else {
            for (i = 0; i < len; i++) out[i] = (uint8_t)(row[i] - prev[i]);
        }
        break;
    case 3: /* Average */
        if (prev == NULL) {
            for (i = 0; i < bpp && i < len; i++) out[i] = row[i];
            for (; i < len; i++) out[i] = (uint8_t)(row[i] - (row[i - bpp] >> 1));
        } else {
            for (i = 0; i < bpp && i < len; i++) out[i] = (uint8_t)(row[i] - (prev[i] >> 1));
            for (; i < len; i++) out[i] = (uint8_t)(row[i] - (((unsigned)row[i - bpp] + prev[i]) >> 1));
        }
        break;
    case 4: /* Paeth: with no previous row it is Sub */
        if (prev == NULL) {
            cpng_filter_row(1, row, NULL, len, bpp, out);
        } else {
            for (i = 0; i < bpp && i < len; i++) out[i] = (uint8_t)(row[i] - prev[i]);
            for (; i < len; i++) out[i] = (uint8_t)(row[i] - paeth(row[i - bpp], prev[i], prev[i - bpp]));
        }
        break;
    default: /* None */
        memcpy(out, row, len);
        break;
    }
}

/* Sum of the filtered bytes read as signed values, libpng's classic heuristic. */
static uint64_t minsum_cost(const uint8_t *f, size_t len) {
    uint64_t sum = 0;
    for (size_t i = 0; i < len; i++) {
        sum += f[i] < 128 ? f[i] : 256u - f[i];
    }
    return sum;
}

/* c * log2(c) for small counts, filled once. */
#define XLOG_TABLE 4096
static float xlog_table[XLOG_TABLE];
static pthread_once_t xlog_once = PTHREAD_ONCE_INIT;
static void xlog_init(void) {
    for (int c = 1; c < XLOG_TABLE; c++) xlog_table[c] = (float)(c * log2((double)c));
}
static inline double xlog(uint32_t c) { return c < XLOG_TABLE ? xlog_table[c] : c * log2((double)c); }

/* Shannon entropy of the filtered bytes in bits, as oxipng's Entropy heuristic:
 * n log n - sum(c log c). Four interleaved histograms keep runs of one value (the common case
 * on smooth images) from serialising on a single counter.
 *
 * Below XLOG_TABLE bytes every term is a float from the table, 0 or at least 2, so a multiple of
 * 2^-22, and the sum is under 2^16: each partial sum is a double exactly, in any order. The terms
 * are then summed in four independent chains (one chain of 256 dependent subtractions was most
 * of the cost), giving the very bits of the one-chain sum, which longer rows still use. */
static uint64_t entropy_cost(const uint8_t *f, size_t len) {
    uint32_t hist[4][256];
    memset(hist, 0, sizeof hist);
    size_t i = 0;
    for (; i + 4 <= len; i += 4) {
        hist[0][f[i]]++;
        hist[1][f[i + 1]]++;
        hist[2][f[i + 2]]++;
        hist[3][f[i + 3]]++;
    }
    for (; i < len; i++) hist[0][f[i]]++;
    if (len < XLOG_TABLE) {
        uint32_t total[256];
        for (int v = 0; v < 256; v++) total[v] = hist[0][v] + hist[1][v] + hist[2][v] + hist[3][v];
        double sum[4] = {0, 0, 0, 0};
        for (int v = 0; v < 256; v += 4) {
            sum[0] += xlog_table[total[v]];
            sum[1] += xlog_table[total[v + 1]];
            sum[2] += xlog_table[total[v + 2]];
            sum[3] += xlog_table[total[v + 3]];
        }
        double bits = (double)xlog_table[len] - ((sum[0] + sum[1]) + (sum[2] + sum[3]));
        return (uint64_t)(bits * 16.0);
    }
    double bits = xlog((uint32_t)len);
    for (int v = 0; v < 256; v++) {
        bits -= xlog(hist[0][v] + hist[1][v] + hist[2][v] + hist[3][v]);
    }
    return (uint64_t)(bits * 16.0);
}

uint64_t cpng_filter_image(const uint8_t *rows, size_t stride, uint32_t height, size_t bpp, int choice,
                           int allowed, uint8_t *out, uint8_t *scratch) {
    return cpng_filter_rows(rows, stride, 0, height, bpp, choice, allowed, out, scratch);
}

/* The allowed filter with the least cost for `row` after `prev` (NULL on the first row) under a
 * per-row heuristic (CPNG_CHOICE_MINSUM or _ENTROPY): its filtered bytes go to dst, its cost to
 * *cost; -1 when no filter is allowed. scratch holds len bytes. */
static int choose_filter(const uint8_t *row, const uint8_t *prev, size_t len, size_t bpp, int choice, int allowed,
                         uint8_t *dst, uint8_t *scratch, uint64_t *cost) {
    static const int flag_of[5] = {CPNG_FILTER_NONE, CPNG_FILTER_SUB, CPNG_FILTER_UP, CPNG_FILTER_AVG,
                                   CPNG_FILTER_PAETH};
    if (choice == CPNG_CHOICE_ENTROPY) (void)pthread_once(&xlog_once, xlog_init);
    uint64_t best_cost = UINT64_MAX;
    int best = -1;
    for (int t = 0; t < 5; t++) {
        if ((allowed & flag_of[t]) == 0) continue;
        /* The first candidate goes straight into place; later ones into scratch, copied over
         * when they win (a copy is cheaper than filtering the winner again). */
        uint8_t *into = best < 0 ? dst : scratch;
        cpng_filter_row(t, row, prev, len, bpp, into);
        uint64_t c = choice == CPNG_CHOICE_MINSUM ? minsum_cost(into, len) : entropy_cost(into, len);
        if (c < best_cost) {
            best_cost = c;
            best = t;
            if (into != dst) memcpy(dst, into, len);
        }
    }
    *cost = best_cost;
    return best;
}

uint64_t cpng_filter_rows(const uint8_t *rows, size_t stride, uint32_t first, uint32_t count, size_t bpp,
                          int choice, int allowed, uint8_t *out, uint8_t *scratch) {
    uint64_t entropy = 0;
    for (uint32_t y = first; y < first + count; y++) {
        const uint8_t *row = rows + (size_t)y * stride;
        const uint8_t *prev = y > 0 ? row - stride : NULL;
        uint8_t *dst = out + (size_t)(y - first) * (stride + 1);
        if (choice <= CPNG_CHOICE_PAETH) {
            dst[0] = (uint8_t)choice;
            cpng_filter_row(choice, row, prev, stride, bpp, dst + 1);
            continue;
        }
        uint64_t cost = 0;
        int best = choose_filter(row, prev, stride, bpp, choice, allowed, dst + 1, scratch, &cost);
        if (best < 0) { /* no filter allowed: None */
            best = 0;
            cpng_filter_row(0, row, prev, stride, bpp, dst + 1);
        } else if (choice == CPNG_CHOICE_ENTROPY) {
            entropy += cost;
        }
        dst[0] = (uint8_t)best;
    }
    return entropy;
}

/* Of a row byte v0 and its alternate v1, the one whose residue from `pred` is smaller (mod 256,
 * read as signed); ties, and alternates more than one away from v0, keep v0. */
static inline uint8_t nearer(uint8_t v0, uint8_t v1, int pred) {
    int d0 = (int8_t)(uint8_t)(v0 - pred), d1 = (int8_t)(uint8_t)(v1 - pred);
    int m0 = d0 < 0 ? -d0 : d0, m1 = d1 < 0 ? -d1 : d1;
    int usable = (uint8_t)(v1 - v0 + 1) <= 2;
    return usable && m1 < m0 ? v1 : v0;
}

/* Filters one row with PNG filter `type`, each byte taken from row or alt, whichever the filter
 * predicts more closely; the bytes taken go to `chosen` (later bytes are predicted from them),
 * the residues to `out`. prev: the previous row's chosen bytes, NULL on the first row. */
static void filter_row_alternates(int type, const uint8_t *row, const uint8_t *alt, const uint8_t *prev,
                                  size_t len, size_t bpp, uint8_t *chosen, uint8_t *out) {
    size_t head = bpp < len ? bpp : len;
    size_t i = 0;
#define TAKE(expr)                                    \
    do {                                              \
        int pred = (expr);                            \
        uint8_t v = nearer(row[i], alt[i], pred);     \
        chosen[i] = v;                                \
        out[i] = (uint8_t)(v - pred);                 \
    } while (0)
    /* With no previous row, Up predicts 0 (None), Average half the left byte, Paeth the left byte (Sub). */
    if (prev == NULL) {
        switch (type) {
        case 1: case 4:
            for (; i < head; i++) TAKE(0);
            for (; i < len; i++) TAKE(chosen[i - bpp]);
            break;
        case 3:
            for (; i < head; i++) TAKE(0);
            for (; i < len; i++) TAKE(chosen[i - bpp] >> 1);
            break;
        default:
            for (; i < len; i++) TAKE(0);
            break;
        }
    } else {
        switch (type) {
        case 1: /* Sub */
            for (; i < head; i++) TAKE(0);
            for (; i < len; i++) TAKE(chosen[i - bpp]);
            break;
        case 2: /* Up */
            for (; i < len; i++) TAKE(prev[i]);
            break;
        case 3: /* Average */
            for (; i < head; i++) TAKE(prev[i] >> 1);
            for (; i < len; i++) TAKE(((unsigned)chosen[i - bpp] + prev[i]) >> 1);
            break;
        case 4: /* Paeth */
            for (; i < head; i++) TAKE(prev[i]);
            for (; i < len; i++) TAKE(paeth(chosen[i - bpp], prev[i], prev[i - bpp]));
            break;
        default: /* None */
            for (; i < len; i++) TAKE(0);
            break;
        }
    }
#undef TAKE
}

uint64_t cpng_filter_image_alternates(const uint8_t *rows, const uint8_t *alternates, size_t stride,
                                      uint32_t height, size_t bpp, int choice, int allowed, uint8_t *out,
                                      uint8_t *chosen, uint8_t *scratch) {
    uint64_t entropy = 0;
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *row = rows + (size_t)y * stride, *alt = alternates + (size_t)y * stride;
        const uint8_t *prev = y > 0 ? chosen + (size_t)(y - 1) * stride : NULL;
        uint8_t *dst = out + (size_t)y * (stride + 1), *mine = chosen + (size_t)y * stride;
        /* A per-row heuristic chooses on the row as rounded to nearest, after the previous row as
         * stored; the winner is then applied with alternates. Choosing among the five filters
         * each applied with alternates was 0.1% smaller for 5x the work. */
        int type = choice;
        if (choice > CPNG_CHOICE_PAETH) {
            uint64_t cost = 0;
            type = choose_filter(row, prev, stride, bpp, choice, allowed, dst + 1, scratch, &cost);
            if (type < 0) {
                type = 0;
            } else if (choice == CPNG_CHOICE_ENTROPY) {
                entropy += cost;
            }
        }
        dst[0] = (uint8_t)type;
        filter_row_alternates(type, row, alt, prev, stride, bpp, mine, dst + 1);
    }
    return entropy;
}
