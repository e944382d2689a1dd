/* libwebp (Debian libwebp-dev): tile encoding and decoding. */
#include <webp/encode.h>
#include <webp/decode.h>
