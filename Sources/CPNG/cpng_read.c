/* cpng: the streaming reader. Every libpng call sits behind a setjmp in this file. */
#include "cpng_private.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cpng_reader {
    png_structp png;
    png_infop info;
    cpng_errctx ctx;
    FILE *file;
    const uint8_t *mem;
    size_t mem_len;
    size_t mem_pos;
    uint64_t max_pixels;
    uint64_t max_interlaced_bytes;
    uint32_t width;
    uint32_t height;
    int interlaced;
    int opened;    /* an open was attempted */
    int header_ok; /* the open succeeded */
    int finished;
    uint32_t next_row;
    uint8_t *image;      /* whole decoded image, interlaced sources only */
    png_bytep *row_ptrs; /* temporary, for png_read_image */
    uint8_t *scratch;    /* row buffer used by finish to skip unread rows */
    int status;          /* sticky error status once a read failed */
    char msg[CPNG_MSG_LEN];
};

/* Records a sticky failure on the reader. */
static int fail(cpng_reader *r, int code, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(r->msg, sizeof r->msg, fmt, args);
    va_end(args);
    r->status = code;
    return code;
}

/* Records the failure libpng just reported through longjmp. */
static int fail_from_png(cpng_reader *r) {
    return fail(r, r->ctx.io_error ? CPNG_ERR_IO : CPNG_ERR_CORRUPT, "%s",
                r->ctx.msg[0] != '\0' ? r->ctx.msg : "unknown libpng error");
}

static int report(cpng_reader *r, int status, char *err, size_t err_len) {
    if (status != CPNG_OK) {
        cpng_copy_msg(err, err_len, r->msg);
    }
    return status;
}

static void mem_read_fn(png_structp png, png_bytep out, size_t length) {
    cpng_reader *r = (cpng_reader *)png_get_io_ptr(png);
    if (length > r->mem_len - r->mem_pos) {
        png_error(png, "truncated PNG data (unexpected end of data)");
    }
    memcpy(out, r->mem + r->mem_pos, length);
    r->mem_pos += length;
}

static void file_read_fn(png_structp png, png_bytep out, size_t length) {
    cpng_reader *r = (cpng_reader *)png_get_io_ptr(png);
    size_t n = fread(out, 1, length, r->file);
    if (n != length) {
        if (ferror(r->file)) {
            char reason[128];
            char buf[CPNG_MSG_LEN];
            cpng_errno_string(errno, reason, sizeof reason);
            snprintf(buf, sizeof buf, "read error: %s", reason);
            r->ctx.io_error = 1;
            png_error(png, buf);
        }
        png_error(png, "truncated PNG data (unexpected end of file)");
    }
}

cpng_reader *cpng_reader_new(uint64_t max_pixels, uint64_t max_interlaced_bytes) {
    cpng_reader *r = (cpng_reader *)calloc(1, sizeof *r);
    if (r != NULL) {
        r->max_pixels = max_pixels;
        r->max_interlaced_bytes = max_interlaced_bytes;
    }
    return r;
}

/* Reads the header and sets the RGBA8 transforms; decodes interlaced images whole. */
static int reader_start(cpng_reader *r) {
    png_structp png = r->png;
    png_infop info = r->info;
    if (setjmp(png_jmpbuf(png))) {
        return fail_from_png(r);
    }
    /* Size limits are ours (max_pixels), applied below with a clearer error. */
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    /* Only IHDR, PLTE, tRNS, IDAT and IEND make the RGBA rows delivered here (no gamma, background
     * or shift transforms are set), so every other chunk is skipped unread: its data goes through
     * libpng's small skip buffer, CRC checked. Handled, a text, pCAL, sCAL, sPLT or eXIf chunk's
     * declared length is allocated and zeroed before its data is read (up to 2 GiB: libpng's
     * "chunk data is too large" is only a warning when reading), so a 70-byte tile claiming a
     * 2 GiB tEXt made 2 GiB resident for 1.5 s of CPU (found by scripts/fuzz.sh; see
     * Tests/RasterTests/PNGFuzzRegressionTests.swift). */
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    png_set_sig_bytes(png, 8);
    png_read_info(png, info);

    png_uint_32 w = 0, h = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(png, info, &w, &h, &depth, &color, &interlace, NULL, NULL);
    r->width = w;
    r->height = h;
    r->interlaced = interlace != PNG_INTERLACE_NONE;
    if ((uint64_t)w * (uint64_t)h > r->max_pixels) {
        return fail(r, CPNG_ERR_TOO_LARGE, "PNG too large: %ux%u pixels (limit %llu pixels)",
                    (unsigned)w, (unsigned)h, (unsigned long long)r->max_pixels);
    }
    if (r->interlaced && (uint64_t)w * (uint64_t)h * 4 > r->max_interlaced_bytes) {
        return fail(r, CPNG_ERR_TOO_LARGE,
                    "interlaced PNG too large to stream (%ux%u); save it non-interlaced",
                    (unsigned)w, (unsigned)h);
    }

    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    if (color == PNG_COLOR_TYPE_PALETTE) {
        png_set_palette_to_rgb(png);
    }
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) {
        png_set_expand_gray_1_2_4_to_8(png);
    }
    if (has_trns) {
        png_set_tRNS_to_alpha(png);
    }
    if (depth == 16) {
        png_set_scale_16(png);
    }
    if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) {
        png_set_gray_to_rgb(png);
    }
    if ((color & PNG_COLOR_MASK_ALPHA) == 0 && !has_trns) {
        png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    }
    if (r->interlaced) {
        (void)png_set_interlace_handling(png);
    }
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)w * 4 || png_get_channels(png, info) != 4 ||
        png_get_bit_depth(png, info) != 8) {
        return fail(r, CPNG_ERR_CORRUPT, "unsupported PNG layout (cannot convert to RGBA8)");
    }

    if (r->interlaced) {
        size_t stride = (size_t)w * 4;
        r->image = (uint8_t *)malloc(stride * (size_t)h);
        r->row_ptrs = (png_bytep *)malloc(sizeof(png_bytep) * (size_t)h);
        if (r->image == NULL || r->row_ptrs == NULL) {
            return fail(r, CPNG_ERR_NOMEM, "out of memory decoding an interlaced PNG (%ux%u)",
                        (unsigned)w, (unsigned)h);
        }
        for (png_uint_32 y = 0; y < h; y++) {
            r->row_ptrs[y] = r->image + (size_t)y * stride;
        }
        png_read_image(png, r->row_ptrs);
        free(r->row_ptrs);
        r->row_ptrs = NULL;
    }
    return CPNG_OK;
}

/* Checks the signature (sig holds n <= 8 bytes), creates libpng's structs and starts reading. */
static int reader_open(cpng_reader *r, const uint8_t *sig, size_t n, png_rw_ptr read_fn) {
    if (n == 0) {
        return fail(r, CPNG_ERR_EMPTY, "empty file");
    }
    if (png_sig_cmp((png_const_bytep)sig, 0, n) != 0) {
        return fail(r, CPNG_ERR_NOT_PNG, "not a PNG file");
    }
    if (n < 8) {
        return fail(r, CPNG_ERR_CORRUPT, "truncated PNG data (incomplete signature)");
    }
    r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r->ctx, cpng_error_fn, cpng_warning_fn);
    if (r->png == NULL) {
        return fail(r, CPNG_ERR_NOMEM, "cannot initialise libpng");
    }
    r->info = png_create_info_struct(r->png);
    if (r->info == NULL) {
        return fail(r, CPNG_ERR_NOMEM, "cannot initialise libpng");
    }
    png_set_read_fn(r->png, r, read_fn);
    int status = reader_start(r);
    if (status == CPNG_OK) {
        r->header_ok = 1;
    }
    return status;
}

int cpng_reader_open_file(cpng_reader *r, const char *path, char *err, size_t err_len) {
    if (r == NULL || path == NULL) {
        return cpng_usage(err, err_len, "invalid arguments");
    }
    if (r->opened) {
        return cpng_usage(err, err_len, "reader already opened");
    }
    r->opened = 1;
    r->file = fopen(path, "rb");
    if (r->file == NULL) {
        char reason[128];
        cpng_errno_string(errno, reason, sizeof reason);
        return report(r, fail(r, CPNG_ERR_IO, "cannot open %s: %s", path, reason), err, err_len);
    }
    uint8_t sig[8];
    size_t n = fread(sig, 1, sizeof sig, r->file);
    if (n < sizeof sig && ferror(r->file)) {
        char reason[128];
        cpng_errno_string(errno, reason, sizeof reason);
        return report(r, fail(r, CPNG_ERR_IO, "cannot read %s: %s", path, reason), err, err_len);
    }
    return report(r, reader_open(r, sig, n, file_read_fn), err, err_len);
}

int cpng_reader_open_memory(cpng_reader *r, const uint8_t *data, size_t length, char *err,
                            size_t err_len) {
    if (r == NULL || (data == NULL && length > 0)) {
        return cpng_usage(err, err_len, "invalid arguments");
    }
    if (r->opened) {
        return cpng_usage(err, err_len, "reader already opened");
    }
    r->opened = 1;
    r->mem = data;
    r->mem_len = length;
    size_t n = length < 8 ? length : 8;
    r->mem_pos = n;
    return report(r, reader_open(r, data, n, mem_read_fn), err, err_len);
}

uint32_t cpng_reader_width(const cpng_reader *r) { return r != NULL ? r->width : 0; }
uint32_t cpng_reader_height(const cpng_reader *r) { return r != NULL ? r->height : 0; }
int cpng_reader_interlaced(const cpng_reader *r) { return r != NULL ? r->interlaced : 0; }
uint32_t cpng_reader_rows_read(const cpng_reader *r) { return r != NULL ? r->next_row : 0; }

/* Decodes `count` rows of a non-interlaced image; stride 0 overwrites one buffer. */
static int read_png_rows(cpng_reader *r, uint8_t *dst, uint32_t count, size_t stride) {
    png_structp png = r->png;
    if (setjmp(png_jmpbuf(png))) {
        return fail_from_png(r);
    }
    for (uint32_t i = 0; i < count; i++) {
        png_read_row(png, dst + (size_t)i * stride, NULL);
        r->next_row++;
    }
    return CPNG_OK;
}

int cpng_reader_read_rows(cpng_reader *r, uint8_t *dst, uint32_t count, size_t stride,
                          char *err, size_t err_len) {
    if (r == NULL) {
        return cpng_usage(err, err_len, "invalid arguments");
    }
    if (r->status != CPNG_OK) {
        return report(r, r->status, err, err_len);
    }
    if (!r->header_ok) {
        return cpng_usage(err, err_len, "reader is not open");
    }
    if (count == 0) {
        return CPNG_OK;
    }
    if (dst == NULL || stride < (size_t)r->width * 4) {
        return cpng_usage(err, err_len, "row buffer too small");
    }
    if (r->finished || count > r->height - r->next_row) {
        return cpng_usage(err, err_len, "read past the last row");
    }
    if (r->interlaced) {
        size_t row_bytes = (size_t)r->width * 4;
        for (uint32_t i = 0; i < count; i++) {
            memcpy(dst + (size_t)i * stride, r->image + (size_t)r->next_row * row_bytes, row_bytes);
            r->next_row++;
        }
        return CPNG_OK;
    }
    return report(r, read_png_rows(r, dst, count, stride), err, err_len);
}

static int read_end(cpng_reader *r) {
    png_structp png = r->png;
    if (setjmp(png_jmpbuf(png))) {
        return fail_from_png(r);
    }
    png_read_end(png, r->info);
    return CPNG_OK;
}

int cpng_reader_finish(cpng_reader *r, char *err, size_t err_len) {
    if (r == NULL) {
        return cpng_usage(err, err_len, "invalid arguments");
    }
    if (r->status != CPNG_OK) {
        return report(r, r->status, err, err_len);
    }
    if (!r->header_ok) {
        return cpng_usage(err, err_len, "reader is not open");
    }
    if (r->finished) {
        return CPNG_OK;
    }
    if (!r->interlaced && r->next_row < r->height) {
        r->scratch = (uint8_t *)malloc((size_t)r->width * 4);
        if (r->scratch == NULL) {
            return report(r, fail(r, CPNG_ERR_NOMEM, "out of memory"), err, err_len);
        }
        int status = read_png_rows(r, r->scratch, r->height - r->next_row, 0);
        if (status != CPNG_OK) {
            return report(r, status, err, err_len);
        }
    }
    r->next_row = r->height;
    int status = read_end(r);
    if (status == CPNG_OK) {
        r->finished = 1;
    }
    return report(r, status, err, err_len);
}

void cpng_reader_close(cpng_reader *r) {
    if (r == NULL) {
        return;
    }
    if (r->png != NULL) {
        png_destroy_read_struct(&r->png, r->info != NULL ? &r->info : NULL, NULL);
    }
    free(r->image);
    free(r->row_ptrs);
    free(r->scratch);
    if (r->file != NULL) {
        fclose(r->file);
    }
    free(r);
}
