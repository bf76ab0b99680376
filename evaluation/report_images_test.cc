#include "evaluation/report_images.h"

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

namespace touchstone {
namespace {

// A 40x20 24-bit BMP of one colour.
std::string WriteBmp(const std::string& name) {
  const std::string path = std::string(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp") + "/" + name;
  const int w = 40, h = 20, row = w * 3;
  std::vector<unsigned char> data(static_cast<size_t>(row * h), 200);
  std::ofstream out(path, std::ios::binary);
  auto u32 = [&](uint32_t v) { out.write(reinterpret_cast<const char*>(&v), 4); };
  auto u16 = [&](uint16_t v) { out.write(reinterpret_cast<const char*>(&v), 2); };
  out.write("BM", 2);
  u32(54 + static_cast<uint32_t>(data.size()));
  u32(0);
  u32(54);
  u32(40);
  u32(w);
  u32(h);
  u16(1);
  u16(24);
  for (int i = 0; i < 6; ++i) u32(0);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  return path;
}

TEST(ReportImagesTest, Base64) {
  EXPECT_EQ(Base64({}), "");
  EXPECT_EQ(Base64({'f'}), "Zg==");
  EXPECT_EQ(Base64({'f', 'o'}), "Zm8=");
  EXPECT_EQ(Base64({'f', 'o', 'o'}), "Zm9v");
  EXPECT_EQ(Base64({'f', 'o', 'o', 'b', 'a', 'r'}), "Zm9vYmFy");
}

TEST(ReportImagesTest, ThumbnailsAndBoxesAsJpegDataUris) {
  const std::string path = WriteBmp("plain.bmp");
  StatusOr<std::string> thumb = ThumbnailDataUri(path, 16);
  ASSERT_TRUE(thumb.ok()) << thumb.status().message();
  EXPECT_EQ(thumb.value().rfind("data:image/jpeg;base64,/9j/", 0), 0u);  // a JPEG's first bytes
  DrawnBox box;
  box.ymin = 0.1f;
  box.xmin = 0.1f;
  box.ymax = 0.9f;
  box.xmax = 0.6f;
  box.label = "person 0.91";
  box.kind = DrawnBox::kFalsePositive;
  StatusOr<std::string> drawn = DrawBoxesDataUri(path, {box}, 200);
  ASSERT_TRUE(drawn.ok());
  EXPECT_NE(drawn.value(), ThumbnailDataUri(path, 200).value());
  const StatusOr<std::string> missing = ThumbnailDataUri(path + ".none", 16);
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(missing.status().message().find("plain.bmp.none"), std::string::npos);
}

}  // namespace
}  // namespace touchstone
