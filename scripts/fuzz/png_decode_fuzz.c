/* libFuzzer harness: TrailMap's PNG decoder (Sources/CPNG) on arbitrary bytes, through the same
 * calls as Raster's PNGDecoder: a memory reader with the tile pixel cap, every row as RGBA, then
 * the check to IEND. Invariants beyond "no crash" (ASan, UBSan): a reader that opened reports a
 * size within the cap, and never delivers more rows than the image has. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpng.h"

#define MAX_PIXELS (1u << 22) /* TileDecoder's default cap */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[256];
    cpng_reader *r = cpng_reader_new(MAX_PIXELS, (uint64_t)MAX_PIXELS * 4);
    if (r == NULL) return 0;
    if (cpng_reader_open_memory(r, data, size, err, sizeof err) == CPNG_OK) {
        uint32_t w = cpng_reader_width(r), h = cpng_reader_height(r);
        if (w == 0 || h == 0 || (uint64_t)w * h > MAX_PIXELS) abort(); /* opened beyond the cap */
        size_t stride = (size_t)w * 4;
        uint8_t *rows = malloc(stride * 8);
        uint32_t done = 0;
        while (rows != NULL && done < h) {
            uint32_t n = h - done < 8 ? h - done : 8;
            if (cpng_reader_read_rows(r, rows, n, stride, err, sizeof err) != CPNG_OK) break;
            done += n;
            if (cpng_reader_rows_read(r) != done) abort();
        }
        if (done == h) (void)cpng_reader_finish(r, err, sizeof err);
        free(rows);
    }
    cpng_reader_close(r);
    return 0;
}
