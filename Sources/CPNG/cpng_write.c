/* cpng: the encoder, writing to a growable memory buffer. */
#include "cpng_private.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct enc_state {
    cpng_errctx ctx;
    uint8_t *data;
    size_t length;
    size_t capacity;
    png_bytep *rows;
    uint8_t *idat;      /* libdeflate path: the finished zlib stream */
    size_t idat_length;
} enc_state;

/* Largest IDAT chunk written; longer streams are split over several IDAT chunks. */
#define IDAT_CHUNK_MAX ((size_t)1 << 30)

static void write_fn(png_structp png, png_bytep data, size_t length) {
    enc_state *s = (enc_state *)png_get_io_ptr(png);
    if (length > SIZE_MAX / 2 - s->length) {
        png_error(png, "encoded PNG too large");
    }
    size_t need = s->length + length;
    if (need > s->capacity) {
        size_t capacity = s->capacity < 4096 ? 4096 : s->capacity;
        while (capacity < need) {
            capacity *= 2;
        }
        uint8_t *grown = (uint8_t *)realloc(s->data, capacity);
        if (grown == NULL) {
            png_error(png, "out of memory");
        }
        s->data = grown;
        s->capacity = capacity;
    }
    memcpy(s->data + s->length, data, length);
    s->length = need;
}

static void flush_fn(png_structp png) { (void)png; }

static int encode_guarded(png_structp png, png_infop info, const cpng_encode_params *p,
                          enc_state *s) {
    if (setjmp(png_jmpbuf(png))) {
        return CPNG_ERR_ENCODE;
    }
    png_set_write_fn(png, s, write_fn, flush_fn);
    png_set_IHDR(png, info, p->width, p->height, p->bit_depth, p->color_type,
                 p->interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (p->color_type == CPNG_COLOR_PALETTE) {
        png_color palette[256];
        for (int i = 0; i < p->palette_count; i++) {
            palette[i].red = p->palette[i * 3];
            palette[i].green = p->palette[i * 3 + 1];
            palette[i].blue = p->palette[i * 3 + 2];
        }
        png_set_PLTE(png, info, palette, p->palette_count);
        if (p->trns != NULL && p->trns_count > 0) {
            png_set_tRNS(png, info, (png_const_bytep)p->trns, p->trns_count, NULL);
        }
    }
    if (s->idat != NULL) {
        /* libpng writes signature, IHDR, PLTE and tRNS; the rows were filtered and compressed
         * already, so IDAT and IEND go out as raw chunks (libpng adds lengths and CRCs). */
        png_write_info(png, info);
        static const png_byte idat[5] = {'I', 'D', 'A', 'T', '\0'};
        static const png_byte iend[5] = {'I', 'E', 'N', 'D', '\0'};
        for (size_t at = 0; at < s->idat_length; at += IDAT_CHUNK_MAX) {
            size_t left = s->idat_length - at;
            png_write_chunk(png, idat, s->idat + at, left < IDAT_CHUNK_MAX ? left : IDAT_CHUNK_MAX);
        }
        png_write_chunk(png, iend, NULL, 0);
        return CPNG_OK;
    }
    png_set_compression_level(png, p->compression_level);
    png_set_compression_mem_level(png, 9);
    png_set_compression_strategy(png, p->strategy);
    png_set_compression_buffer_size(png, 1 << 16);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, p->filters != 0 ? p->filters : PNG_FILTER_NONE);
    png_write_info(png, info);
    if (p->interlace) {
        (void)png_set_interlace_handling(png);
    }
    png_write_image(png, s->rows);
    png_write_end(png, NULL);
    return CPNG_OK;
}

static int channels_of(int color_type) {
    switch (color_type) {
    case CPNG_COLOR_GRAY: return 1;
    case CPNG_COLOR_PALETTE: return 1;
    case CPNG_COLOR_GRAY_ALPHA: return 2;
    case CPNG_COLOR_RGB: return 3;
    case CPNG_COLOR_RGBA: return 4;
    default: return 0;
    }
}

const char *cpng_validate_encode(const cpng_encode_params *p, size_t *stride_out) {
    if (p->width == 0 || p->height == 0 || p->width > 0x7fffffff || p->height > 0x7fffffff) {
        return "invalid image size";
    }
    int channels = channels_of(p->color_type);
    if (channels == 0) {
        return "invalid colour type";
    }
    int d = p->bit_depth;
    int low_ok = p->color_type == CPNG_COLOR_GRAY || p->color_type == CPNG_COLOR_PALETTE;
    if (!(d == 8 || (low_ok && (d == 1 || d == 2 || d == 4)))) {
        return "invalid bit depth for the colour type";
    }
    uint64_t stride = ((uint64_t)p->width * (uint64_t)channels * (uint64_t)d + 7) / 8;
    if (p->rows == NULL || stride > SIZE_MAX / p->height || p->rows_length < stride * p->height) {
        return "row data too short";
    }
    if (p->color_type == CPNG_COLOR_PALETTE) {
        if (p->palette == NULL || p->palette_count < 1 || p->palette_count > (1 << d)) {
            return "invalid palette";
        }
        if (p->trns_count < 0 || p->trns_count > p->palette_count) {
            return "invalid tRNS";
        }
    }
    if (p->deflater == CPNG_DEFLATER_LIBDEFLATE) {
        if (p->interlace) {
            return "interlaced output needs the zlib deflater";
        }
        if (p->compression_level < 0 || p->compression_level > 12) {
            return "libdeflate compression level must be 0...12";
        }
        if (p->filter_choice < CPNG_CHOICE_SEARCH || p->filter_choice > CPNG_CHOICE_ENTROPY) {
            return "invalid filter choice";
        }
        if (p->dense_level < 0 || p->dense_level > 12) {
            return "libdeflate dense level must be 0...12";
        }
        if (p->filter_choice == CPNG_CHOICE_SEARCH && (p->search_level < 1 || p->search_level > 12)) {
            return "libdeflate search level must be 1...12";
        }
    } else if (p->deflater != CPNG_DEFLATER_ZLIB) {
        return "invalid deflater";
    } else if (p->compression_level < 0 || p->compression_level > 9) {
        return "compression level must be 0...9";
    }
    if (p->alternates != NULL &&
        (p->deflater != CPNG_DEFLATER_LIBDEFLATE || p->bit_depth != 8 || p->color_type == CPNG_COLOR_PALETTE)) {
        return "rounding alternates need the libdeflate deflater and 8-bit gray or truecolour rows";
    }
    if (p->strategy < 0 || p->strategy > 4) {
        return "invalid zlib strategy";
    }
    if ((p->filters & ~CPNG_ALL_FILTERS) != 0) {
        return "invalid filter flags";
    }
    *stride_out = (size_t)stride;
    return NULL;
}

int cpng_encode(const cpng_encode_params *p, uint8_t **out, size_t *out_length, char *err,
                size_t err_len) {
    if (out != NULL) {
        *out = NULL;
    }
    if (out_length != NULL) {
        *out_length = 0;
    }
    if (p == NULL || out == NULL || out_length == NULL) {
        return cpng_usage(err, err_len, "invalid arguments");
    }
    size_t stride = 0;
    const char *invalid = cpng_validate_encode(p, &stride);
    if (invalid != NULL) {
        return cpng_usage(err, err_len, invalid);
    }
    enc_state *s = (enc_state *)calloc(1, sizeof *s);
    if (s == NULL) {
        cpng_copy_msg(err, err_len, "out of memory");
        return CPNG_ERR_NOMEM;
    }
    s->rows = (png_bytep *)malloc(sizeof(png_bytep) * (size_t)p->height);
    png_structp png = NULL;
    png_infop info = NULL;
    if (s->rows != NULL) {
        png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &s->ctx, cpng_error_fn, cpng_warning_fn);
    }
    if (png != NULL) {
        info = png_create_info_struct(png);
    }
    int status;
    if (info != NULL && p->deflater == CPNG_DEFLATER_LIBDEFLATE) {
        status = cpng_deflate_idat(p, stride, &s->idat, &s->idat_length, s->ctx.msg, sizeof s->ctx.msg);
        if (status != CPNG_OK) {
            png_destroy_write_struct(&png, &info);
            cpng_copy_msg(err, err_len, s->ctx.msg);
            free(s->rows);
            free(s);
            return status;
        }
    }
    if (info == NULL) {
        status = CPNG_ERR_NOMEM;
        snprintf(s->ctx.msg, sizeof s->ctx.msg, "out of memory");
    } else {
        for (uint32_t y = 0; y < p->height; y++) {
            s->rows[y] = (png_bytep)(p->rows + (size_t)y * stride);
        }
        status = encode_guarded(png, info, p, s);
    }
    if (png != NULL) {
        png_destroy_write_struct(&png, info != NULL ? &info : NULL);
    }
    if (status == CPNG_OK) {
        *out = s->data;
        *out_length = s->length;
    } else {
        cpng_copy_msg(err, err_len, s->ctx.msg[0] != '\0' ? s->ctx.msg : "PNG encoding failed");
        free(s->data);
    }
    free(s->idat);
    free(s->rows);
    free(s);
    return status;
}
