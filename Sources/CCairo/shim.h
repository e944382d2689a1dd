/* Cairo and Pango (Debian libcairo2-dev, libpango1.0-dev): trail strokes and labels. */
#include <cairo/cairo.h>
#include <pango/pangocairo.h>
