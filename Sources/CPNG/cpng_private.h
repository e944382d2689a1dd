/* Internal declarations shared by the cpng sources (not part of the public header). */
#ifndef CPNG_PRIVATE_H
#define CPNG_PRIVATE_H

#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* XSI strerror_r */
#endif
#include "cpng.h"

#include <png.h>

#include <stddef.h>
#include <stdint.h>

#define CPNG_MSG_LEN 256
#define CPNG_HIDDEN __attribute__((visibility("hidden")))

/* Where libpng's error callback leaves its message before it longjmps. */
typedef struct cpng_errctx {
    char msg[CPNG_MSG_LEN];
    int io_error; /* set by the file read callback: the failure is I/O, not corrupt data */
} cpng_errctx;

/* Copies msg into a caller's error buffer (NULL/0-sized buffers are ignored). */
CPNG_HIDDEN void cpng_copy_msg(char *err, size_t err_len, const char *msg);
/* Copies msg and returns CPNG_ERR_USAGE. */
CPNG_HIDDEN int cpng_usage(char *err, size_t err_len, const char *msg);
/* Thread-safe strerror. */
CPNG_HIDDEN void cpng_errno_string(int code, char *buf, size_t len);
/* libpng callbacks; the error pointer must be a cpng_errctx. error_fn longjmps. */
CPNG_HIDDEN void cpng_error_fn(png_structp png, png_const_charp msg);
CPNG_HIDDEN void cpng_warning_fn(png_structp png, png_const_charp msg);

/* Filters one row with PNG filter `type` (0...4); prev is NULL on the first row. */
CPNG_HIDDEN void cpng_filter_row(int type, const uint8_t *row, const uint8_t *prev, size_t len,
                                 size_t bpp, uint8_t *out);
/* Writes height * (1 + stride) bytes of filtered scanlines (filter byte + filtered row) to out.
 * allowed: CPNG_FILTER_* flags the heuristics may pick from; scratch holds stride bytes.
 * Returns, for CPNG_CHOICE_ENTROPY, the Shannon entropy of the rows written in 1/16 bits
 * (the sum of each row's own entropy; 0 for the other choices). */
CPNG_HIDDEN uint64_t cpng_filter_image(const uint8_t *rows, size_t stride, uint32_t height, size_t bpp,
                                   int choice, int allowed, uint8_t *out, uint8_t *scratch);

/* The same for rows first ... first + count - 1 only (out gets count * (1 + stride) bytes). */
CPNG_HIDDEN uint64_t cpng_filter_rows(const uint8_t *rows, size_t stride, uint32_t first, uint32_t count,
                                  size_t bpp, int choice, int allowed, uint8_t *out, uint8_t *scratch);

/* cpng_filter_image for rows whose bytes may each be stored as rows[i] or alternates[i] (see
 * cpng_encode_params.alternates): each row's filter is chosen as cpng_filter_image would, after
 * the previous row as stored; then every byte takes whichever value that filter predicts more
 * closely. The rows stored go to `chosen` (height * stride bytes). scratch holds stride bytes. */
CPNG_HIDDEN uint64_t cpng_filter_image_alternates(const uint8_t *rows, const uint8_t *alternates, size_t stride,
                                              uint32_t height, size_t bpp, int choice, int allowed,
                                              uint8_t *out, uint8_t *chosen, uint8_t *scratch);

/* Checks encoder parameters; returns a message, or NULL and the row stride. */
CPNG_HIDDEN const char *cpng_validate_encode(const cpng_encode_params *p, size_t *stride_out);

/* The filter choice cpng_rank_filters would make and its sample's compressed size. */
CPNG_HIDDEN int cpng_rank(const cpng_encode_params *p, size_t stride, int *choice, size_t *score,
                          char *msg, size_t msg_len);

/* The zlib stream for IDAT, compressed with libdeflate (see cpng_encode_params.deflater).
 * On success *zdata is malloc'd; on failure returns a CPNG_ERR_* code with a message in msg. */
CPNG_HIDDEN int cpng_deflate_idat(const cpng_encode_params *p, size_t stride, uint8_t **zdata,
                                  size_t *zlength, char *msg, size_t msg_len);

#endif /* CPNG_PRIVATE_H */
