// Fuzz target: image decoding (JPEG, PNG, BMP) and the preprocessing stage of
// evaluation/image_preprocessing.h. The first bytes choose the preprocessing (output size and type,
// crop, layout, and the mean and scale imagenet_eval's --input_mean/--input_std can set); the rest is
// the image file.
#include <cmath>
#include <cstdint>
#include <vector>

#include "evaluation/image_preprocessing.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

// Decoded images above this many pixels are not preprocessed (it is slow, and not what is fuzzed).
constexpr int64_t kMaxPreprocessPixels = int64_t{1} << 22;
constexpr size_t kConfigBytes = 13;  // 5 bytes, then mean and std (4 each)

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kConfigBytes) return 0;
  touchstone::fuzz::Reader reader(data, kConfigBytes);
  touchstone::PreprocessingConfig config;
  config.output_height = reader.Range(1, 64);
  config.output_width = reader.Range(1, 64);
  const TfLiteType types[] = {kTfLiteFloat32, kTfLiteUInt8, kTfLiteInt8};
  config.output_type = types[reader.Byte() % 3];
  const uint8_t crop = reader.Byte();
  config.crop_fraction = crop < 64 ? 0.0f : crop < 128 ? 0.875f : static_cast<float>(crop - 127) / 128.0f;
  const uint8_t flags = reader.Byte();
  config.nchw = (flags & 1) != 0;
  if (flags & 2) {
    // --input_mean / --input_std as imagenet_eval takes them: any finite numbers, std not 0.
    const float mean = reader.Float();
    const float stddev = reader.Float();
    if (!std::isfinite(mean) || !std::isfinite(stddev) || stddev == 0.0f) return 0;
    config.mean = {mean};
    config.scale = {1.0f / stddev};
  }
  const std::vector<uint8_t> bytes(data + kConfigBytes, data + size);
  auto image = touchstone::DecodeImage(bytes, "fuzz.img");
  if (!image.ok()) return 0;
  const touchstone::RgbImage& rgb = image.value();
  if (rgb.height <= 0 || rgb.width <= 0 ||
      rgb.pixels.size() != static_cast<size_t>(rgb.height) * static_cast<size_t>(rgb.width) * 3) {
    __builtin_trap();  // DecodeImage's contract: height x width x 3 bytes
  }
  if (static_cast<int64_t>(rgb.height) * rgb.width > kMaxPreprocessPixels) return 0;
  auto tensor = touchstone::PreprocessImage(rgb, config);
  if (tensor.ok()) {
    const size_t element = config.output_type == kTfLiteFloat32 ? 4 : 1;
    if (tensor.value().size() != static_cast<size_t>(config.output_height) * config.output_width * 3 * element) {
      __builtin_trap();
    }
  }
  return 0;
}
