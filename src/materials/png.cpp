// SPDX-License-Identifier: Apache-2.0
// PNG files of the procedural textures, through libpng (Debian libpng-dev): written to memory,
// with no time or text chunk, so equal images give equal bytes.
#include <png.h>
#include <zlib.h>

#include <csetjmp>
#include <cstring>

#include "cityforge/materials/textures.hpp"

namespace cityforge::materials {
namespace {

void append_bytes(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<std::vector<std::uint8_t>*>(png_get_io_ptr(png));
  out->insert(out->end(), data, data + length);
}

void flush_nothing(png_structp /*png*/) {}

}  // namespace

Result<std::vector<std::uint8_t>> encode_png(const Image& image, const std::string& where,
                                             PngEncoding encoding) {
  const std::size_t row = std::size_t{image.width} * image.channels;
  if (image.width == 0 || image.height == 0 || (image.channels != 3 && image.channels != 4) ||
      image.rgb.size() != row * image.height) {
    return Error::internal(where, "a " + std::to_string(image.width) + " x " +
                                      std::to_string(image.height) + " x " +
                                      std::to_string(image.channels) + " image with " +
                                      std::to_string(image.rgb.size()) + " bytes");
  }
  std::vector<std::uint8_t> out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  if (png == nullptr) return Error::internal(where, "libpng could not start a PNG");
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    return Error::internal(where, "libpng could not start a PNG");
  }
  std::vector<png_bytep> rows(image.height);
  for (std::size_t j = 0; j < image.height; ++j)
    rows[j] = const_cast<png_bytep>(image.rgb.data() + j * row);
  // libpng reports errors by longjmp: nothing with a destructor is created after this point.
  if (setjmp(png_jmpbuf(png)) != 0) {
    png_destroy_write_struct(&png, &info);
    return Error::internal(where, "libpng failed to encode the image");
  }
  png_set_write_fn(png, &out, append_bytes, flush_nothing);
  png_set_IHDR(png, info, image.width, image.height, 8,
               image.channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (encoding == PngEncoding::fast) {
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    png_set_compression_strategy(png, Z_RLE);
  } else {
    png_set_compression_level(png, 6);  // zlib level 9 took 4x the time for 7 % less
  }
  png_write_info(png, info);
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

}  // namespace cityforge::materials
