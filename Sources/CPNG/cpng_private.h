/* Internal declarations shared by the cpng sources (not part of the public header). */
#ifndef CPNG_PRIVATE_H
#define CPNG_PRIVATE_H

#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* XSI strerror_r */
#endif
#include "cpng.h"

#include <png.h>

#include <stddef.h>

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

#endif /* CPNG_PRIVATE_H */
