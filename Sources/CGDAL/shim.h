// GDAL's C API (Debian libgdal-dev): rasters, overviews, masks, spatial references and PROJ transforms.
#include <gdal/gdal.h>
#include <gdal/cpl_conv.h>
#include <gdal/cpl_error.h>
#include <gdal/cpl_string.h>
#include <gdal/ogr_srs_api.h>
