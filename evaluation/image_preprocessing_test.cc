#include "evaluation/image_preprocessing.h"

#include <gtest/gtest.h>

#include <cstring>

#include "tests/common/shared_dir.h"

namespace touchstone {
namespace {

TEST(ImagePreprocessingTest, CentralCropRoundsHalfAwayFromZero) {
  // From ../shared/data/preprocessed/README.md.
  CropWindow a = CentralCrop(325, 480, 0.875f);
  EXPECT_EQ(a.side_h, 284);
  EXPECT_EQ(a.x, 98);
  EXPECT_EQ(a.y, 21);  // round(20.5)
  CropWindow b = CentralCrop(428, 640, 0.875f);
  EXPECT_EQ(b.side_h, 375);  // round(374.5)
  EXPECT_EQ(b.x, 133);
  EXPECT_EQ(b.y, 27);
  CropWindow none = CentralCrop(10, 20, 0.0f);
  EXPECT_EQ(none.side_h, 10);
  EXPECT_EQ(none.side_w, 20);
}

TEST(ImagePreprocessingTest, ResizeBilinearByHand) {
  // 2x2 -> 4x4 with scale 0.5: source coordinates 0, 0.5, 1, 1.5 (clamped to index 1).
  std::vector<float> in = {0, 10, 20, 30};
  std::vector<float> out = ResizeBilinearFloat(in, 2, 2, 1, 4, 4);
  EXPECT_FLOAT_EQ(out[0], 0);
  EXPECT_FLOAT_EQ(out[1], 5);
  EXPECT_FLOAT_EQ(out[2], 10);
  EXPECT_FLOAT_EQ(out[3], 10);
  EXPECT_FLOAT_EQ(out[4 * 1 + 1], 15);  // y 0.5, x 0.5: mean of all four
  EXPECT_FLOAT_EQ(out[4 * 3 + 3], 30);
}

TEST(ImagePreprocessingTest, NormalisationAndTruncation) {
  RgbImage image;
  image.height = image.width = 1;
  image.pixels = {0, 127, 255};
  PreprocessingConfig config;
  config.output_height = config.output_width = 1;
  config.crop_fraction = 0.0f;
  config.output_type = kTfLiteFloat32;
  auto f = PreprocessImage(image, config);
  ASSERT_TRUE(f.ok());
  float v[3];
  std::memcpy(v, f.value().data(), 12);
  EXPECT_FLOAT_EQ(v[0], -1.0f);
  EXPECT_FLOAT_EQ(v[2], 1.0f);
  config.output_type = kTfLiteInt8;
  auto i8 = PreprocessImage(image, config);
  ASSERT_TRUE(i8.ok());
  EXPECT_EQ(static_cast<int8_t>(i8.value()[0]), -128);
  EXPECT_EQ(static_cast<int8_t>(i8.value()[1]), -1);
  EXPECT_EQ(static_cast<int8_t>(i8.value()[2]), 127);
}

TEST(ImagePreprocessingTest, CorruptImagesAreErrors) {
  EXPECT_FALSE(DecodeImage({}, "empty.jpg").ok());
  EXPECT_FALSE(DecodeImage({0xFF, 0xD8, 0xFF, 0xE0, 0, 0}, "cut.jpg").ok());
  auto garbage = DecodeImage({1, 2, 3, 4, 5}, "garbage.png");
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.status().message().find("garbage.png"), std::string::npos);
}

// Found by image_fuzzer: a PNG chunk claiming more than the file holds (stb_image allocated the
// claim), formats other than JPEG/PNG/BMP reaching stb_image, and a normalisation whose results
// overflow the int conversion of an integer output.
TEST(ImagePreprocessingTest, HostileImagesAndNormalisationAreRefused) {
  std::vector<uint8_t> png = {0x89, 'P',  'N',  'G', '\r', '\n', 0x1A, '\n', 0x69,
                              0xFF, 0x00, 0x1C, 'I', 'D',  'A',  'T',  0,    0};
  auto claim = DecodeImage(png, "claim.png");
  ASSERT_FALSE(claim.ok());
  EXPECT_NE(claim.status().message().find("chunk 'IDAT' at byte 8 claims 1778319388 bytes"), std::string::npos)
      << claim.status().message();
  auto gif = DecodeImage({'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0, 0, 0, 0}, "a.gif");
  ASSERT_FALSE(gif.ok());
  EXPECT_NE(gif.status().message().find("a.gif: not a JPEG, PNG or BMP image"), std::string::npos);

  RgbImage image;
  image.height = image.width = 1;
  image.pixels = {0, 127, 255};
  PreprocessingConfig config;
  config.output_height = config.output_width = 1;
  config.output_type = kTfLiteUInt8;
  config.mean = {0.0f};
  config.scale = {1e30f};
  auto overflow = PreprocessImage(image, config);
  ASSERT_FALSE(overflow.ok());
  EXPECT_NE(overflow.status().message().find("outside the range of UINT8 conversion"), std::string::npos)
      << overflow.status().message();
  config.scale = {1.0f};
  EXPECT_TRUE(PreprocessImage(image, config).ok());
}

// Byte-exact against the tensors TFLite 2.14.1's own stage produced.
TEST(ImagePreprocessingTest, MatchesTflitePreprocessedTensors) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  struct Case {
    const char* image;
    int size;
    TfLiteType type;
    const char* suffix;
  };
  const Case cases[] = {
      {"img_000", 224, kTfLiteFloat32, "224x224_float32"}, {"img_000", 224, kTfLiteUInt8, "224x224_uint8"},
      {"img_000", 128, kTfLiteUInt8, "128x128_uint8"},     {"img_000", 224, kTfLiteInt8, "224x224_int8"},
      {"img_002", 224, kTfLiteFloat32, "224x224_float32"}, {"img_002", 224, kTfLiteUInt8, "224x224_uint8"},
      {"img_002", 128, kTfLiteUInt8, "128x128_uint8"},     {"img_002", 224, kTfLiteInt8, "224x224_int8"},
      {"img_003", 224, kTfLiteFloat32, "224x224_float32"}, {"img_003", 224, kTfLiteUInt8, "224x224_uint8"},
      {"img_003", 128, kTfLiteUInt8, "128x128_uint8"},     {"img_003", 224, kTfLiteInt8, "224x224_int8"},
      {"img_006", 224, kTfLiteFloat32, "224x224_float32"}, {"img_006", 224, kTfLiteUInt8, "224x224_uint8"},
      {"img_006", 128, kTfLiteUInt8, "128x128_uint8"},     {"img_006", 224, kTfLiteInt8, "224x224_int8"}};
  int ran = 0;
  for (const Case& c : cases) {
    std::vector<uint8_t> jpeg, expected;
    ASSERT_TRUE(testing::ReadFileBytes(shared + "/data/imagenet_sample/images/" + c.image + ".jpg", &jpeg));
    ASSERT_TRUE(testing::ReadFileBytes(shared + "/data/preprocessed/" + c.image + "_" + c.suffix + ".bin", &expected));
    auto image = DecodeImage(jpeg, c.image);
    ASSERT_TRUE(image.ok()) << image.status().message();
    PreprocessingConfig config;
    config.output_height = config.output_width = c.size;
    config.output_type = c.type;
    auto tensor = PreprocessImage(image.value(), config);
    ASSERT_TRUE(tensor.ok()) << tensor.status().message();
    ASSERT_EQ(tensor.value().size(), expected.size()) << c.image << " " << c.suffix;
    size_t differing = 0;
    for (size_t i = 0; i < expected.size(); ++i) differing += tensor.value()[i] != expected[i];
    EXPECT_EQ(differing, 0u) << c.image << " " << c.suffix << ": " << differing << " bytes differ";
    ++ran;
  }
  testing::ReportCases("preprocessed", ran, 16);
}

}  // namespace
}  // namespace touchstone
