// SPDX-License-Identifier: Apache-2.0
// Reading a DEM (GDAL) onto the local heightfield: CRS and coverage checks, void filling,
// bilinear resampling through a coarse lattice of inverse-projected points. Several DEM files
// (a mosaic) go through the same resampling: dem_mosaic.cpp. Part of the geodata module
// (osm/geodata_api.hpp).
#include <cpl_conv.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cityforge/osm/osm.hpp"
#include "osm/dem_grid.hpp"
#include "osm/geodata/dem_detail.hpp"

namespace cityforge::osm {
namespace {

/// Samples of the coarse lattice of inverse-projected points: every kLattice-th heightfield
/// sample (and the last). Transverse Mercator is smooth: bilinear interpolation between lattice
/// points is off by well under 1 cm at 28 m cells (tested).
constexpr std::uint32_t kLattice = 8;
/// DEM cells read around the needed window, so voids at its edge have valid neighbours.
constexpr int kWindowPad = 8;
/// Most boundary cells one void region is interpolated from (evenly thinned beyond).
constexpr std::size_t kMaxVoidBoundary = 1024;
/// Largest heightfield accepted (samples).
constexpr double kMaxSamples = 200e6;

std::string fmt(double v, int decimals = 5) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string extent_text(double min_lon, double min_lat, double max_lon, double max_lat) {
  return "lon " + fmt(min_lon) + ".." + fmt(max_lon) + ", lat " + fmt(min_lat) + ".." +
         fmt(max_lat);
}

struct TransformDeleter {
  void operator()(OGRCoordinateTransformation* ct) const {
    OGRCoordinateTransformation::DestroyCT(ct);
  }
};

/// Lattice positions along one axis: 0, K, 2K, ... and n - 1.
std::vector<std::uint32_t> lattice_axis(std::uint32_t n) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i + 1 < n; i += kLattice)
    out.push_back(i);
  out.push_back(n - 1);
  return out;
}

/// Fills void cells (valid == 0) of a w x h window in place: each 4-connected void region is
/// interpolated by inverse squared distance from the valid cells around it. Deterministic
/// (regions in row-major order of their first cell). Returns false when every cell is void.
bool fill_voids(std::vector<double>& z, std::vector<std::uint8_t>& valid, int w, int h) {
  const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  if (std::find(valid.begin(), valid.end(), std::uint8_t{1}) == valid.end()) return false;
  std::vector<std::uint8_t> seen(n, 0);
  std::vector<std::size_t> region;
  std::vector<std::size_t> boundary;
  std::vector<std::uint8_t> in_boundary(n, 0);
  for (std::size_t start = 0; start < n; ++start) {
    if (valid[start] != 0 || seen[start] != 0) continue;
    // 1. The void region (4-connected) and the valid cells around it (8-connected).
    region.clear();
    boundary.clear();
    region.push_back(start);
    seen[start] = 1;
    for (std::size_t k = 0; k < region.size(); ++k) {
      const int x = static_cast<int>(region[k] % static_cast<std::size_t>(w));
      const int y = static_cast<int>(region[k] / static_cast<std::size_t>(w));
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          const int ax = x + dx;
          const int ay = y + dy;
          if ((dx == 0 && dy == 0) || ax < 0 || ay < 0 || ax >= w || ay >= h) continue;
          const std::size_t a = static_cast<std::size_t>(ay) * static_cast<std::size_t>(w) +
                                static_cast<std::size_t>(ax);
          if (valid[a] != 0) {
            if (in_boundary[a] == 0) {
              in_boundary[a] = 1;
              boundary.push_back(a);
            }
          } else if (seen[a] == 0 && (dx == 0 || dy == 0)) {
            seen[a] = 1;
            region.push_back(a);
          }
        }
      }
    }
    std::sort(boundary.begin(), boundary.end());
    for (std::size_t b : boundary)
      in_boundary[b] = 0;
    // 2. Thin very long boundaries evenly (huge void regions only).
    if (boundary.size() > kMaxVoidBoundary) {
      std::vector<std::size_t> thin;
      for (std::size_t k = 0; k < kMaxVoidBoundary; ++k)
        thin.push_back(boundary[k * boundary.size() / kMaxVoidBoundary]);
      boundary.swap(thin);
    }
    // 3. Inverse squared distance from the boundary cells. (A region the window's valid cells
    //    do not touch cannot exist: some valid cell exists and regions are maximal.)
    for (std::size_t c : region) {
      const double cx = static_cast<double>(c % static_cast<std::size_t>(w));
      const double cy = static_cast<double>(c / static_cast<std::size_t>(w));
      double sw = 0.0;
      double sz = 0.0;
      for (std::size_t b : boundary) {
        const double bx = static_cast<double>(b % static_cast<std::size_t>(w));
        const double by = static_cast<double>(b / static_cast<std::size_t>(w));
        const double wgt = 1.0 / ((bx - cx) * (bx - cx) + (by - cy) * (by - cy));
        sw += wgt;
        sz += wgt * z[b];
      }
      z[c] = sz / sw;
    }
  }
  return true;
}

}  // namespace

namespace detail {

void register_gdal() {
  static std::once_flag once;
  std::call_once(once, [] { GDALAllRegister(); });
}

std::string crs_label(const OGRSpatialReference& srs) {
  auto labelled = [](const OGRSpatialReference& s) -> std::string {
    const char* name = s.GetAuthorityName(nullptr);
    const char* code = s.GetAuthorityCode(nullptr);
    if (name != nullptr && code != nullptr) return std::string(name) + ":" + code;
    return {};
  };
  std::string label = labelled(srs);
  if (!label.empty()) return label;
  std::unique_ptr<OGRSpatialReference> copy(srs.Clone());
  if (copy->AutoIdentifyEPSG() == OGRERR_NONE) label = labelled(*copy);
  if (!label.empty()) return label;
  const char* name = srs.GetName();
  return name != nullptr ? name : "unnamed CRS";
}

std::optional<Error> check_dem_request(const std::string& where, const Aabb2& area, double cell_m) {
  if (!(cell_m > 0.0) || !std::isfinite(cell_m)) {
    return Error::invalid_input(where, "expected a DEM cell size > 0 m, got " + fmt(cell_m, 3));
  }
  if (area.empty() || !std::isfinite(area.min.x) || !std::isfinite(area.max.x) ||
      !std::isfinite(area.min.y) || !std::isfinite(area.max.y)) {
    return Error::invalid_input(where, "expected a finite, non-empty area to cover");
  }
  const DemGrid g = dem_grid_size(area, cell_m);
  if (static_cast<double>(g.nx) * static_cast<double>(g.ny) > kMaxSamples) {
    return Error::invalid_input(where, "the area at " + fmt(cell_m, 2) + " m cells needs " +
                                           std::to_string(g.nx) + " x " + std::to_string(g.ny) +
                                           " samples; expected at most 200 million");
  }
  return std::nullopt;
}

Result<Dataset> open_dem(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error::invalid_input(path, "cannot open the DEM: no such file");
  }
  if (std::FILE* f = std::fopen(path.c_str(), "rb"); f != nullptr) {
    std::fclose(f);
  } else {
    return Error::invalid_input(path, std::string("cannot read the DEM: ") + std::strerror(errno));
  }
  register_gdal();
  QuietGdal quiet;
  Dataset ds(GDALDataset::FromHandle(
      GDALOpenEx(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, nullptr, nullptr, nullptr)));
  if (!ds) {
    return Error::invalid_input(
        path, "not a DEM GDAL can read (expected a GeoTIFF, SRTM .hgt or ArcInfo ASCII grid)" +
                  QuietGdal::last());
  }
  const std::string driver = ds->GetDriver() != nullptr ? ds->GetDriver()->GetDescription() : "";
  const int width = ds->GetRasterXSize();
  const int height = ds->GetRasterYSize();
  if (ds->GetRasterCount() < 1 || width < 2 || height < 2) {
    return Error::invalid_input(
        path, "expected a raster of at least 2 x 2 cells with a band, got " +
                  std::to_string(width) + " x " + std::to_string(height) + " with " +
                  std::to_string(ds->GetRasterCount()) + " bands (" + driver + ")");
  }
  double gt[6] = {};
  if (ds->GetGeoTransform(gt) != CE_None) {
    return Error::invalid_input(path, "the DEM has no georeferencing (no geotransform)");
  }
  if (gt[2] != 0.0 || gt[4] != 0.0 || gt[1] == 0.0 || gt[5] == 0.0) {
    return Error::invalid_input(path,
                                "expected a north-up DEM grid, got a rotated or "
                                "degenerate geotransform");
  }
  const OGRSpatialReference* dem_srs = ds->GetSpatialRef();
  if (dem_srs == nullptr || dem_srs->IsEmpty()) {
    return Error::invalid_input(path,
                                "the DEM has no CRS (expected one, e.g. an ArcInfo ASCII "
                                "grid with its .prj beside it, or a GeoTIFF with GeoKeys)");
  }
  if (dem_srs->IsLocal()) {
    return Error::invalid_input(path,
                                "the DEM's CRS is a local (engineering) CRS, not tied to "
                                "the Earth: cannot place it");
  }
  return ds;
}

BandValues band_values(GDALRasterBand& band) {
  BandValues v;
  int has_nodata = 0;
  v.nodata = band.GetNoDataValue(&has_nodata);
  v.has_nodata = has_nodata != 0;
  int has_scale = 0;
  int has_offset = 0;
  const double scale = band.GetScale(&has_scale);
  const double offset = band.GetOffset(&has_offset);
  v.scale = has_scale != 0 ? scale : 1.0;
  v.offset = has_offset != 0 ? offset : 0.0;
  if (const char* u = band.GetUnitType(); u != nullptr) {
    const std::string us(u);
    if (us == "ft" || us == "foot" || us == "feet") v.unit_m = 0.3048;
    if (us == "US survey foot") v.unit_m = 1200.0 / 3937.0;
  }
  return v;
}

Result<terrain::Heightfield> resample_dem(GDALDataset& ds, const std::string& path,
                                          const BandValues& values, GeoFrame& frame,
                                          const Aabb2& area, double cell_m, DemStats* stats) {
  // 1. The dataset's grid (open_dem checked it).
  QuietGdal quiet;
  const DemGrid g = dem_grid_size(area, cell_m);
  const std::string driver = ds.GetDriver() != nullptr ? ds.GetDriver()->GetDescription() : "";
  const int width = ds.GetRasterXSize();
  const int height = ds.GetRasterYSize();
  double gt[6] = {};
  if (ds.GetGeoTransform(gt) != CE_None) {
    return Error::invalid_input(path, "the DEM has no georeferencing (no geotransform)");
  }
  double inv_gt[6] = {};
  if (!GDALInvGeoTransform(gt, inv_gt)) {
    return Error::invalid_input(path, "the DEM's geotransform cannot be inverted");
  }
  const OGRSpatialReference* dem_srs = ds.GetSpatialRef();
  if (dem_srs == nullptr || dem_srs->IsEmpty()) {
    return Error::invalid_input(path, "the DEM has no CRS");
  }

  // 2. Its CRS, and the transformation from WGS84 (lon, lat order on both sides).
  OGRSpatialReference wgs84;
  wgs84.SetWellKnownGeogCS("WGS84");
  wgs84.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
  OGRSpatialReference target(*dem_srs);
  target.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
  const char* same_opts[] = {"IGNORE_DATA_AXIS_TO_SRS_AXIS_MAPPING=YES",
                             "CRITERION=EQUIVALENT_EXCEPT_AXIS_ORDER_GEOGCRS", nullptr};
  const bool plain_wgs84 = target.IsGeographic() && target.IsSame(&wgs84, same_opts);
  std::unique_ptr<OGRCoordinateTransformation, TransformDeleter> to_dem;
  std::unique_ptr<OGRCoordinateTransformation, TransformDeleter> from_dem;
  if (!plain_wgs84) {
    to_dem.reset(OGRCreateCoordinateTransformation(&wgs84, &target));
    from_dem.reset(OGRCreateCoordinateTransformation(&target, &wgs84));
    if (!to_dem || !from_dem) {
      return Error::invalid_input(path, "unknown CRS '" + crs_label(*dem_srs) +
                                            "': no transformation from WGS84" + QuietGdal::last());
    }
  }

  // 3. The DEM's extent in degrees (its outline, transformed).
  double dem_min_lon = 1e300, dem_min_lat = 1e300, dem_max_lon = -1e300, dem_max_lat = -1e300;
  {
    std::vector<double> xs, ys;
    constexpr int kEdge = 16;
    for (int k = 0; k <= kEdge; ++k) {
      const double f = static_cast<double>(k) / kEdge;
      const double px[4] = {f * width, f * width, 0.0, static_cast<double>(width)};
      const double py[4] = {0.0, static_cast<double>(height), f * height, f * height};
      for (int e = 0; e < 4; ++e) {
        xs.push_back(gt[0] + px[e] * gt[1] + py[e] * gt[2]);
        ys.push_back(gt[3] + px[e] * gt[4] + py[e] * gt[5]);
      }
    }
    std::vector<int> ok(xs.size(), TRUE);
    if (from_dem) from_dem->Transform(xs.size(), xs.data(), ys.data(), nullptr, ok.data());
    for (std::size_t k = 0; k < xs.size(); ++k) {
      if (!ok[k] || !std::isfinite(xs[k]) || !std::isfinite(ys[k])) continue;
      dem_min_lon = std::min(dem_min_lon, xs[k]);
      dem_max_lon = std::max(dem_max_lon, xs[k]);
      dem_min_lat = std::min(dem_min_lat, ys[k]);
      dem_max_lat = std::max(dem_max_lat, ys[k]);
    }
  }

  // 4. The lattice: local metres -> WGS84 -> DEM CRS -> pixel (corner-based geotransform, so
  //    pixel (c, r) covers [c, c+1) x [r, r+1) and its value sits at (c + 0.5, r + 0.5)).
  const std::vector<std::uint32_t> lx = lattice_axis(g.nx);
  const std::vector<std::uint32_t> ly = lattice_axis(g.ny);
  const std::size_t nlx = lx.size();
  const std::size_t nly = ly.size();
  std::vector<double> lon(nlx * nly), lat(nlx * nly);
  for (std::size_t b = 0; b < nly; ++b) {
    for (std::size_t a = 0; a < nlx; ++a) {
      const Vec2 p = area.min + Vec2{lx[a] * cell_m, ly[b] * cell_m};
      const auto [lo, la] = frame_to_wgs84(frame, p);
      lon[b * nlx + a] = lo;
      lat[b * nlx + a] = la;
    }
  }
  double area_min_lon = 1e300, area_min_lat = 1e300, area_max_lon = -1e300, area_max_lat = -1e300;
  for (std::size_t k = 0; k < lon.size(); ++k) {
    area_min_lon = std::min(area_min_lon, lon[k]);
    area_max_lon = std::max(area_max_lon, lon[k]);
    area_min_lat = std::min(area_min_lat, lat[k]);
    area_max_lat = std::max(area_max_lat, lat[k]);
  }
  std::vector<double> px(lon), py(lat);
  std::vector<int> ok(px.size(), TRUE);
  if (to_dem && !to_dem->Transform(px.size(), px.data(), py.data(), nullptr, ok.data())) {
    std::fill(ok.begin(), ok.end(), FALSE);
  }
  const std::string extents = "the heightfield covers " +
                              extent_text(area_min_lon, area_min_lat, area_max_lon, area_max_lat) +
                              "; the DEM covers " +
                              extent_text(dem_min_lon, dem_min_lat, dem_max_lon, dem_max_lat);
  double min_px = 1e300, max_px = -1e300, min_py = 1e300, max_py = -1e300;
  for (std::size_t k = 0; k < px.size(); ++k) {
    const double x = px[k];
    const double y = py[k];
    px[k] = inv_gt[0] + x * inv_gt[1] + y * inv_gt[2];
    py[k] = inv_gt[3] + x * inv_gt[4] + y * inv_gt[5];
    constexpr double kTol = 1e-6;  // pixels
    if (!ok[k] || !std::isfinite(px[k]) || !std::isfinite(py[k]) || px[k] < -kTol ||
        py[k] < -kTol || px[k] > width + kTol || py[k] > height + kTol) {
      return Error::invalid_input(path, "the DEM does not cover the area (sample at lon " +
                                            fmt(lon[k], 6) + ", lat " + fmt(lat[k], 6) +
                                            " is outside): " + extents);
    }
    min_px = std::min(min_px, px[k]);
    max_px = std::max(max_px, px[k]);
    min_py = std::min(min_py, py[k]);
    max_py = std::max(max_py, py[k]);
  }

  // 5. Read the window the samples need (bilinear between cell centres, plus a margin).
  const int wx0 = std::max(0, static_cast<int>(std::floor(min_px - 0.5)) - kWindowPad);
  const int wy0 = std::max(0, static_cast<int>(std::floor(min_py - 0.5)) - kWindowPad);
  const int wx1 = std::min(width, static_cast<int>(std::floor(max_px - 0.5)) + 2 + kWindowPad);
  const int wy1 = std::min(height, static_cast<int>(std::floor(max_py - 0.5)) + 2 + kWindowPad);
  const int ww = std::max(2, wx1 - wx0);
  const int wh = std::max(2, wy1 - wy0);
  const int rx0 = std::min(wx0, width - ww);
  const int ry0 = std::min(wy0, height - wh);
  std::vector<double> z(static_cast<std::size_t>(ww) * static_cast<std::size_t>(wh));
  GDALRasterBand* band = ds.GetRasterBand(1);
  if (band->RasterIO(GF_Read, rx0, ry0, ww, wh, z.data(), ww, wh, GDT_Float64, 0, 0, nullptr) !=
      CE_None) {
    // The header read, the cells do not: a truncated or corrupt file (bad input, exit 2).
    return Error::invalid_input(
        path, "cannot read the DEM's cells (window " + std::to_string(rx0) + "," +
                  std::to_string(ry0) + " size " + std::to_string(ww) + " x " + std::to_string(wh) +
                  "): expected a whole file, this one is truncated or corrupt" + QuietGdal::last());
  }
  std::vector<std::uint8_t> valid(z.size(), 1);
  std::size_t voids = 0;
  for (std::size_t k = 0; k < z.size(); ++k) {
    const bool is_void = !std::isfinite(z[k]) ||
                         (values.has_nodata && (z[k] == values.nodata ||
                                                std::abs(z[k] - values.nodata) <=
                                                    1e-6 * std::max(1.0, std::abs(values.nodata))));
    if (is_void) {
      valid[k] = 0;
      ++voids;
      continue;
    }
    z[k] = (values.scale * z[k] + values.offset) * values.unit_m;
  }
  std::vector<std::uint8_t> was_valid;
  if (voids > 0) {
    was_valid = valid;
    if (!fill_voids(z, valid, ww, wh)) {
      return Error::invalid_input(path, "every DEM cell over the area is a void (no data)");
    }
  }

  // 6. Resample: lattice -> pixel per sample (bilinear), then bilinear between cell centres.
  terrain::Heightfield hf;
  hf.origin = area.min;
  hf.cell_m = cell_m;
  hf.nx = g.nx;
  hf.ny = g.ny;
  hf.heights.assign(std::size_t{g.nx} * g.ny, 0.0f);
  std::vector<std::size_t> voids_per_row(g.ny, 0);
  std::vector<std::size_t> cell_of_x(g.nx);
  std::vector<double> u_of_x(g.nx);
  for (std::uint32_t i = 0; i < g.nx; ++i) {
    const std::size_t a = std::min<std::size_t>(i / kLattice, nlx - 2);
    cell_of_x[i] = a;
    u_of_x[i] = static_cast<double>(i - lx[a]) / static_cast<double>(lx[a + 1] - lx[a]);
  }
  tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, g.ny), [&](const auto& rows) {
    for (std::uint32_t j = rows.begin(); j != rows.end(); ++j) {
      const std::size_t b = std::min<std::size_t>(j / kLattice, nly - 2);
      const double v = static_cast<double>(j - ly[b]) / static_cast<double>(ly[b + 1] - ly[b]);
      for (std::uint32_t i = 0; i < g.nx; ++i) {
        const std::size_t a = cell_of_x[i];
        const double u = u_of_x[i];
        const std::size_t k00 = b * nlx + a;
        const std::size_t k01 = (b + 1) * nlx + a;
        auto mix = [&](const std::vector<double>& f) {
          const double f0 = f[k00] + u * (f[k00 + 1] - f[k00]);
          const double f1 = f[k01] + u * (f[k01 + 1] - f[k01]);
          return f0 + v * (f1 - f0);
        };
        const double cx = std::clamp(mix(px) - 0.5 - rx0, 0.0, static_cast<double>(ww - 1));
        const double cy = std::clamp(mix(py) - 0.5 - ry0, 0.0, static_cast<double>(wh - 1));
        const int c0 = std::min(static_cast<int>(cx), ww - 2);
        const int r0 = std::min(static_cast<int>(cy), wh - 2);
        const double fu = cx - c0;
        const double fv = cy - r0;
        const std::size_t q = static_cast<std::size_t>(r0) * static_cast<std::size_t>(ww) +
                              static_cast<std::size_t>(c0);
        const std::size_t q2 = q + static_cast<std::size_t>(ww);
        const double h0 = z[q] + fu * (z[q + 1] - z[q]);
        const double h1 = z[q2] + fu * (z[q2 + 1] - z[q2]);
        hf.heights[std::size_t{j} * g.nx + i] = static_cast<float>(h0 + fv * (h1 - h0));
        if (!was_valid.empty() && (was_valid[q] == 0 || was_valid[q + 1] == 0 ||
                                   was_valid[q2] == 0 || was_valid[q2 + 1] == 0)) {
          ++voids_per_row[j];
        }
      }
    }
  });

  // 7. Stats.
  if (stats != nullptr) {
    stats->driver = driver;
    stats->crs = plain_wgs84 ? std::string("EPSG:4326") : crs_label(*dem_srs);
    stats->voids_filled = 0;
    for (std::size_t n : voids_per_row)
      stats->voids_filled += n;
    const auto [lo, hi] = std::minmax_element(hf.heights.begin(), hf.heights.end());
    stats->min_m = *lo;
    stats->max_m = *hi;
  }
  return hf;
}

Result<terrain::Heightfield> read_dem(const std::string& path, GeoFrame& frame, const Aabb2& area,
                                      double cell_m, DemStats* stats) {
  if (std::optional<Error> bad = check_dem_request(path, area, cell_m)) return *bad;
  Result<Dataset> ds = open_dem(path);
  if (!ds) return ds.error();
  const BandValues values = band_values(*(*ds)->GetRasterBand(1));
  return resample_dem(**ds, path, values, frame, area, cell_m, stats);
}

}  // namespace detail

}  // namespace cityforge::osm
