/* cpng: setjmp-guarded libpng shim, shared helpers. See include/cpng.h. */
#include "cpng_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cpng_copy_msg(char *err, size_t err_len, const char *msg) {
    if (err != NULL && err_len > 0) {
        snprintf(err, err_len, "%s", msg != NULL ? msg : "");
    }
}

int cpng_usage(char *err, size_t err_len, const char *msg) {
    cpng_copy_msg(err, err_len, msg);
    return CPNG_ERR_USAGE;
}

void cpng_errno_string(int code, char *buf, size_t len) {
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
    const char *s = strerror_r(code, buf, len);
    if (s != buf) {
        snprintf(buf, len, "%s", s);
    }
#else
    if (strerror_r(code, buf, len) != 0) {
        snprintf(buf, len, "error %d", code);
    }
#endif
}

void cpng_error_fn(png_structp png, png_const_charp msg) {
    cpng_errctx *ctx = (cpng_errctx *)png_get_error_ptr(png);
    if (ctx != NULL) {
        snprintf(ctx->msg, sizeof ctx->msg, "%s", msg != NULL ? msg : "unknown libpng error");
    }
    png_longjmp(png, 1);
}

void cpng_warning_fn(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg;
}

void cpng_free(void *buffer) { free(buffer); }
