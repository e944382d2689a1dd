/* libjpeg-turbo's TurboJPEG API (Debian libturbojpeg0-dev): JPEG tiles. */
#include <turbojpeg.h>
