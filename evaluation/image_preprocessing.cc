#include "evaluation/image_preprocessing.h"

#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <jpeglib.h>
#include <stb/stb_image.h>

namespace touchstone {
namespace {

// libjpeg reports fatal errors through error_exit; jump back instead of exiting the process.
struct JpegError {
  jpeg_error_mgr manager;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  int warnings;
};

void JpegErrorExit(j_common_ptr cinfo) {
  auto* error = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, error->message);
  longjmp(error->jump, 1);
}

void JpegWarning(j_common_ptr cinfo, int level) {
  // level -1: a recoverable corruption (e.g. premature end of data); traces (>= 0) are ignored.
  if (level < 0) {
    auto* error = reinterpret_cast<JpegError*>(cinfo->err);
    if (error->warnings++ == 0) (*cinfo->err->format_message)(cinfo, error->message);
  }
}

StatusOr<RgbImage> DecodeJpeg(const std::vector<uint8_t>& bytes, const std::string& name) {
  jpeg_decompress_struct cinfo;
  JpegError error;
  std::memset(&error, 0, sizeof(error));
  cinfo.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = JpegErrorExit;
  error.manager.emit_message = JpegWarning;
  RgbImage image;
  std::vector<uint8_t> row;
  if (setjmp(error.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return InvalidInputError(name + ": corrupt JPEG: " + error.message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&cinfo, TRUE);
  const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  cinfo.dct_method = JDCT_ISLOW;
  cinfo.do_fancy_upsampling = TRUE;
  cinfo.scale_num = 1;
  cinfo.scale_denom = 1;
  jpeg_start_decompress(&cinfo);
  const int width = static_cast<int>(cinfo.output_width);
  const int height = static_cast<int>(cinfo.output_height);
  const int components = cinfo.output_components;
  if (width <= 0 || height <= 0 || (uint64_t)width * height > (uint64_t{1} << 28)) {
    jpeg_destroy_decompress(&cinfo);
    return InvalidInputError(name + ": JPEG of " + std::to_string(width) + "x" + std::to_string(height) +
                             " pixels is empty or too large");
  }
  image.width = width;
  image.height = height;
  image.pixels.resize(static_cast<size_t>(width) * height * 3);
  row.resize(static_cast<size_t>(width) * components);
  const bool adobe = cinfo.saw_Adobe_marker;
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW rows[1] = {row.data()};
    const int y = static_cast<int>(cinfo.output_scanline);
    if (jpeg_read_scanlines(&cinfo, rows, 1) != 1) break;
    uint8_t* out = image.pixels.data() + static_cast<size_t>(y) * width * 3;
    for (int x = 0; x < width; ++x) {
      if (cmyk) {
        // TensorFlow's conversion: with an Adobe marker the values are stored inverted.
        const int k = row[x * 4 + 3];
        for (int c = 0; c < 3; ++c) {
          const int v = row[x * 4 + c];
          out[x * 3 + c] = static_cast<uint8_t>(adobe ? k * v / 255 : (255 - k) * (255 - v) / 255);
        }
      } else if (components == 3) {
        std::memcpy(out + x * 3, row.data() + x * 3, 3);
      } else {
        out[x * 3] = out[x * 3 + 1] = out[x * 3 + 2] = row[x];
      }
    }
  }
  const bool complete = cinfo.output_scanline == cinfo.output_height;
  if (complete) jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  if (!complete || error.warnings > 0) {
    return InvalidInputError(name + ": corrupt or truncated JPEG" +
                             (error.warnings > 0 ? std::string(": ") + error.message : std::string()));
  }
  return image;
}

// stb_image grows its buffer to the length a PNG chunk claims before reading it (a 205-byte file
// claiming a 1.7 GB IDAT made it allocate that, found by image_fuzzer): every chunk must lie inside
// the file.
Status CheckPngChunks(const std::vector<uint8_t>& bytes, const std::string& name) {
  size_t offset = 8;
  while (offset + 8 <= bytes.size()) {
    const uint32_t length = (uint32_t{bytes[offset]} << 24) | (uint32_t{bytes[offset + 1]} << 16) |
                            (uint32_t{bytes[offset + 2]} << 8) | uint32_t{bytes[offset + 3]};
    const std::string type(reinterpret_cast<const char*>(&bytes[offset + 4]), 4);
    const size_t left = bytes.size() - offset - 8;
    // The chunk's data and its 4-byte CRC.
    if (uint64_t{length} + 4 > left) {
      return InvalidInputError(name + ": corrupt PNG: chunk '" + type + "' at byte " + std::to_string(offset) +
                               " claims " + std::to_string(length) + " bytes; " + std::to_string(left) + " are left");
    }
    offset += 12 + size_t{length};
    if (type == "IEND") return Status::Ok();
  }
  return Status::Ok();  // truncated before IEND: stb_image reports what is missing
}

StatusOr<RgbImage> DecodeWithStb(const std::vector<uint8_t>& bytes, const std::string& name) {
  int width = 0, height = 0, channels = 0;
  if (!stbi_info_from_memory(bytes.data(), static_cast<int>(bytes.size()), &width, &height, &channels) || width <= 0 ||
      height <= 0 || (uint64_t)width * height > (uint64_t{1} << 28)) {
    return InvalidInputError(name + ": not a decodable JPEG, PNG or BMP image");
  }
  unsigned char* pixels =
      stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &width, &height, &channels, 3);
  if (pixels == nullptr) {
    return InvalidInputError(name + ": corrupt image: " + std::string(stbi_failure_reason()));
  }
  RgbImage image;
  image.width = width;
  image.height = height;
  image.pixels.assign(pixels, pixels + static_cast<size_t>(width) * height * 3);
  stbi_image_free(pixels);
  return image;
}

}  // namespace

StatusOr<RgbImage> DecodeImage(const std::vector<uint8_t>& bytes, const std::string& name) {
  if (bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) return DecodeJpeg(bytes, name);
  if (bytes.empty()) return InvalidInputError(name + ": empty image file");
  static const uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), kPngSignature, 8) == 0) {
    TS_RETURN_IF_ERROR(CheckPngChunks(bytes, name));
    return DecodeWithStb(bytes, name);
  }
  if (bytes.size() >= 2 && bytes[0] == 'B' && bytes[1] == 'M') return DecodeWithStb(bytes, name);
  // stb_image also decodes GIF, PSD, TGA, HDR, PIC and PNM: undocumented here, and never fuzzed.
  return InvalidInputError(name + ": not a JPEG, PNG or BMP image");
}

CropWindow CentralCrop(int height, int width, float fraction) {
  CropWindow window;
  if (fraction <= 0.0f) {
    window.side_h = height;
    window.side_w = width;
    return window;
  }
  const int side_h = static_cast<int>(std::round(fraction * static_cast<float>(height)));
  const int side_w = static_cast<int>(std::round(fraction * static_cast<float>(width)));
  const int side = std::min(side_h, side_w);
  window.side_h = window.side_w = side;
  window.y = static_cast<int>(std::round((height - side) / 2.0));
  window.x = static_cast<int>(std::round((width - side) / 2.0));
  return window;
}

std::vector<float> ResizeBilinearFloat(const std::vector<float>& input, int in_height, int in_width, int channels,
                                       int out_height, int out_width) {
  std::vector<float> output(static_cast<size_t>(out_height) * out_width * channels);
  const float height_scale = static_cast<float>(in_height) / static_cast<float>(out_height);
  const float width_scale = static_cast<float>(in_width) / static_cast<float>(out_width);
  for (int y = 0; y < out_height; ++y) {
    const float input_y = static_cast<float>(y) * height_scale;
    const int y0 = std::max(static_cast<int>(std::floor(input_y)), 0);
    const int y1 = std::min(static_cast<int>(std::ceil(input_y)), in_height - 1);
    const float dy = input_y - static_cast<float>(y0);
    for (int x = 0; x < out_width; ++x) {
      const float input_x = static_cast<float>(x) * width_scale;
      const int x0 = std::max(static_cast<int>(std::floor(input_x)), 0);
      const int x1 = std::min(static_cast<int>(std::ceil(input_x)), in_width - 1);
      const float dx = input_x - static_cast<float>(x0);
      const float* a = &input[(static_cast<size_t>(y0) * in_width + x0) * channels];
      const float* b = &input[(static_cast<size_t>(y1) * in_width + x0) * channels];
      const float* c = &input[(static_cast<size_t>(y0) * in_width + x1) * channels];
      const float* d = &input[(static_cast<size_t>(y1) * in_width + x1) * channels];
      float* out = &output[(static_cast<size_t>(y) * out_width + x) * channels];
      for (int ch = 0; ch < channels; ++ch) {
        // Each term left to right, then summed left to right, in float32 (no fused multiply-add:
        // this file is compiled with -ffp-contract=off).
        const float term_a = a[ch] * (1 - dy) * (1 - dx);
        const float term_b = b[ch] * dy * (1 - dx);
        const float term_c = c[ch] * (1 - dy) * dx;
        const float term_d = d[ch] * dy * dx;
        out[ch] = term_a + term_b + term_c + term_d;
      }
    }
  }
  return output;
}

StatusOr<std::vector<uint8_t>> PreprocessImage(const RgbImage& image, const PreprocessingConfig& config) {
  if (config.output_type != kTfLiteFloat32 && config.output_type != kTfLiteUInt8 && config.output_type != kTfLiteInt8) {
    return InvalidInputError(std::string("image inputs of type ") + TfLiteTypeGetName(config.output_type) +
                             " are not supported (float32, uint8, int8)");
  }
  if (config.output_height <= 0 || config.output_width <= 0 || image.height <= 0 || image.width <= 0) {
    return InvalidInputError("image or model input has an empty size");
  }
  const CropWindow crop = CentralCrop(image.height, image.width, config.crop_fraction);
  if (crop.side_h <= 0 || crop.side_w <= 0) return InvalidInputError("image is too small to crop");
  std::vector<float> cropped(static_cast<size_t>(crop.side_h) * crop.side_w * 3);
  for (int y = 0; y < crop.side_h; ++y) {
    const uint8_t* src = image.pixels.data() + (static_cast<size_t>(y + crop.y) * image.width + crop.x) * 3;
    float* dst = cropped.data() + static_cast<size_t>(y) * crop.side_w * 3;
    for (int i = 0; i < crop.side_w * 3; ++i) dst[i] = static_cast<float>(src[i]);
  }
  const std::vector<float> resized =
      ResizeBilinearFloat(cropped, crop.side_h, crop.side_w, 3, config.output_height, config.output_width);

  float mean[3], scale[3];
  for (int c = 0; c < 3; ++c) {
    if (!config.mean.empty()) {
      mean[c] = config.mean[config.mean.size() == 3 ? c : 0];
      scale[c] = config.scale.empty() ? 1.0f : config.scale[config.scale.size() == 3 ? c : 0];
    } else if (config.output_type == kTfLiteFloat32) {
      mean[c] = 127.5f;
      scale[c] = 1.0f / 127.5f;
    } else {
      mean[c] = config.output_type == kTfLiteInt8 ? 128.0f : 0.0f;
      scale[c] = 1.0f;
    }
  }
  const bool normalize = !config.mean.empty() || config.output_type != kTfLiteUInt8;
  // Integer outputs convert each normalised value to int: the extremes of (v - mean) * scale over
  // v in 0..255 must be finite and fit an int, or the conversion is undefined (found by image_fuzzer).
  if (normalize && config.output_type != kTfLiteFloat32) {
    for (int c = 0; c < 3; ++c) {
      const float low = (0.0f - mean[c]) * scale[c], high = (255.0f - mean[c]) * scale[c];
      const float limit = 2147483520.0f;  // the largest float below 2^31
      if (!std::isfinite(low) || !std::isfinite(high) || std::fabs(low) > limit || std::fabs(high) > limit) {
        return InvalidInputError("normalisation (mean " + std::to_string(mean[c]) + ", scale " +
                                 std::to_string(scale[c]) + ") takes pixel values outside the range of " +
                                 TfLiteTypeGetName(config.output_type) + " conversion");
      }
    }
  }
  const size_t pixels = static_cast<size_t>(config.output_height) * config.output_width;
  const size_t element = config.output_type == kTfLiteFloat32 ? 4 : 1;
  std::vector<uint8_t> out(pixels * 3 * element);
  for (size_t p = 0; p < pixels; ++p) {
    for (int c = 0; c < 3; ++c) {
      float v = resized[p * 3 + c];
      if (normalize) v = (v - mean[c]) * scale[c];
      const size_t index = config.nchw ? c * pixels + p : p * 3 + c;
      if (config.output_type == kTfLiteFloat32) {
        std::memcpy(&out[index * 4], &v, 4);
      } else if (config.output_type == kTfLiteUInt8) {
        out[index] = static_cast<uint8_t>(static_cast<int>(v));  // truncation, as TFLite's cast
      } else {
        out[index] = static_cast<uint8_t>(static_cast<int8_t>(static_cast<int>(v)));
      }
    }
  }
  return out;
}

}  // namespace touchstone
