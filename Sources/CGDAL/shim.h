// GDAL's C API (Debian libgdal-dev): rasters, overviews, masks, spatial references, PROJ transforms,
// ground-control-point transformers and the warper of gdal_utils (DEM tiles).
#include <gdal/gdal.h>
#include <gdal/gdal_alg.h>
#include <gdal/gdal_utils.h>
#include <gdal/cpl_conv.h>
#include <gdal/cpl_error.h>
#include <gdal/cpl_string.h>
#include <gdal/ogr_srs_api.h>
