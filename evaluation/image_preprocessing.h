// Image preprocessing for classification and detection evaluation, bit-exact with TensorFlow Lite's
// evaluation ImagePreprocessingStage (../shared/data/preprocessed/README.md): decode (JPEG with
// libjpeg's accurate integer IDCT and fancy upsampling; PNG and BMP too), an optional square central
// crop, TFLite's float ResizeBilinear (no half-pixel centers), normalisation, and a truncating cast.
// It reads no files itself: callers hand it the bytes.
#ifndef TOUCHSTONE_EVALUATION_IMAGE_PREPROCESSING_H_
#define TOUCHSTONE_EVALUATION_IMAGE_PREPROCESSING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/status.h"

namespace touchstone {

// Decoded pixels: height x width x 3, RGB, row-major.
struct RgbImage {
  int height = 0;
  int width = 0;
  std::vector<uint8_t> pixels;
};

// Decodes JPEG, PNG or BMP by content (a JPEG is recognised by its SOI marker). Grayscale becomes
// R = G = B; CMYK/YCCK JPEGs are converted as TensorFlow's wrapper converts them. `name` only labels
// errors (a corrupt or truncated image is an error, never a partial result).
StatusOr<RgbImage> DecodeImage(const std::vector<uint8_t>& bytes, const std::string& name);

struct PreprocessingConfig {
  int output_height = 224;
  int output_width = 224;
  TfLiteType output_type = kTfLiteFloat32;  // float32, uint8 or int8
  float crop_fraction = 0.875f;             // <= 0: no crop (the whole image is resized)
  // Normalisation: out = (v - mean[c]) * scale[c]. Empty: TFLite's defaults for output_type (float32:
  // mean 127.5, scale float(1/127.5); uint8: none; int8: mean 128, scale 1).
  std::vector<float> mean;
  std::vector<float> scale;
  bool nchw = false;  // write planar [1, 3, H, W] instead of [1, H, W, 3]
};

// The crop window TFLite takes: side = round(fraction * dim) per dimension (half away from zero), the
// square of the smaller side, offsets round((dim - side) / 2).
struct CropWindow {
  int y = 0, x = 0, side_h = 0, side_w = 0;
};
CropWindow CentralCrop(int height, int width, float fraction);

// TFLite's reference ResizeBilinear on float data, align_corners = half_pixel_centers = false, with
// every product and sum in float32, left to right.
std::vector<float> ResizeBilinearFloat(const std::vector<float>& input, int in_height, int in_width, int channels,
                                       int out_height, int out_width);

// The whole stage; returns the bytes of the input tensor (4 bytes per element for float32).
StatusOr<std::vector<uint8_t>> PreprocessImage(const RgbImage& image, const PreprocessingConfig& config);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_IMAGE_PREPROCESSING_H_
