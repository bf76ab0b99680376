#include "datasets/detection_proto.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/shared_dir.h"

namespace touchstone {
namespace {

void Varint(std::vector<uint8_t>* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}
void Key(std::vector<uint8_t>* out, int field, int wire) { Varint(out, static_cast<uint64_t>(field << 3 | wire)); }
void Float(std::vector<uint8_t>* out, int field, float v) {
  Key(out, field, 5);
  uint8_t b[4];
  std::memcpy(b, &v, 4);
  out->insert(out->end(), b, b + 4);
}
void Message(std::vector<uint8_t>* out, int field, const std::vector<uint8_t>& body) {
  Key(out, field, 2);
  Varint(out, body.size());
  out->insert(out->end(), body.begin(), body.end());
}

// One image "a.jpg" (id 7) with one object of class `class_id`, plus fields the reader does not know.
std::vector<uint8_t> OneImage(int32_t class_id) {
  std::vector<uint8_t> box, object, result, truth;
  Float(&box, 1, 0.25f);
  Float(&box, 2, 0.75f);
  Float(&box, 3, 0.125f);
  Float(&box, 4, 0.5f);
  Key(&object, 1, 0);
  Varint(&object, static_cast<uint64_t>(static_cast<int64_t>(class_id)));  // negative: 10 bytes
  Message(&object, 2, box);
  Key(&object, 9, 1);  // an unknown fixed64 field
  object.insert(object.end(), 8, 0);
  Message(&result, 1, object);
  Message(&result, 2, std::vector<uint8_t>{'a', '.', 'j', 'p', 'g'});
  Key(&result, 3, 0);
  Varint(&result, 7);
  Message(&result, 15, {1, 2, 3});  // an unknown length-delimited field
  Message(&truth, 1, result);
  return truth;
}

TEST(DetectionProtoTest, ReadsTheFieldsRunEvalReads) {
  auto read = ParseDetectionGroundTruthProto(OneImage(17), "gt.pb");
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_EQ(read.value().size(), 1u);
  const ProtoDetectionResult& r = read.value()[0];
  EXPECT_EQ(r.image_name, "a.jpg");
  EXPECT_EQ(r.image_id, 7);
  ASSERT_EQ(r.objects.size(), 1u);
  EXPECT_EQ(r.objects[0].class_id, 17);
  EXPECT_EQ(r.objects[0].top, 0.25f);
  EXPECT_EQ(r.objects[0].bottom, 0.75f);
  EXPECT_EQ(r.objects[0].left, 0.125f);
  EXPECT_EQ(r.objects[0].right, 0.5f);
  read = ParseDetectionGroundTruthProto(OneImage(-3), "gt.pb");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read.value()[0].objects[0].class_id, -3);
  EXPECT_TRUE(ParseDetectionGroundTruthProto({}, "empty.pb").value().empty());
}

TEST(DetectionProtoTest, MalformedDataIsAnErrorNeverACrash) {
  const std::vector<uint8_t> valid = OneImage(5);
  int refused = 0;
  for (size_t n = 1; n < valid.size(); ++n) {
    auto read = ParseDetectionGroundTruthProto(std::vector<uint8_t>(valid.begin(), valid.begin() + n), "cut.pb");
    if (!read.ok()) {
      ++refused;
      EXPECT_EQ(read.status().code(), StatusCode::kInvalidInput);
      EXPECT_EQ(read.status().message().rfind("cut.pb: not a valid ObjectDetectionGroundTruth proto", 0), 0u);
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_FALSE(ParseDetectionGroundTruthProto({0x0b, 0x00}, "group.pb").ok());       // wire type 3
  EXPECT_FALSE(ParseDetectionGroundTruthProto({0x0a, 0x7f, 0x00}, "long.pb").ok());  // length past the end
  EXPECT_FALSE(ParseDetectionGroundTruthProto(std::vector<uint8_t>(12, 0xff), "varint.pb").ok());
  EXPECT_FALSE(ReadDetectionGroundTruthProto("/nonexistent/gt.pb").ok());
}

// The shared fixture: the .pb TFLite's preprocess_coco_minival.py wrote, against its protoc --decode text.
TEST(DetectionProtoTest, SharedGroundTruthEqualsItsTextForm) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  auto read = ReadDetectionGroundTruthProto(shared + "/data/coco/ground_truth_shared.pb");
  ASSERT_TRUE(read.ok()) << read.status().message();
  std::ifstream text(shared + "/data/coco/ground_truth_shared.pbtxt");
  std::vector<std::string> names;
  std::vector<long> ids, classes;
  std::vector<float> values;
  std::string key;
  while (text >> key) {
    std::string value;
    if (key == "image_name:") {
      text >> value;
      names.push_back(value.substr(1, value.size() - 2));
    } else if (key == "image_id:") {
      text >> value;
      ids.push_back(std::strtol(value.c_str(), nullptr, 10));
    } else if (key == "class_id:") {
      text >> value;
      classes.push_back(std::strtol(value.c_str(), nullptr, 10));
    } else if (key.rfind("normalized_", 0) == 0) {
      text >> value;
      values.push_back(std::strtof(value.c_str(), nullptr));
    }
  }
  ASSERT_EQ(read.value().size(), 7u);
  ASSERT_EQ(names.size(), 7u);
  size_t object = 0;
  for (size_t i = 0; i < read.value().size(); ++i) {
    const ProtoDetectionResult& r = read.value()[i];
    EXPECT_EQ(r.image_name, names[i]);
    EXPECT_EQ(r.image_id, ids[i]);
    for (const ProtoObject& o : r.objects) {
      ASSERT_LT(object, classes.size());
      EXPECT_EQ(o.class_id, classes[object]);
      EXPECT_EQ(o.top, values[4 * object]);
      EXPECT_EQ(o.bottom, values[4 * object + 1]);
      EXPECT_EQ(o.left, values[4 * object + 2]);
      EXPECT_EQ(o.right, values[4 * object + 3]);
      ++object;
    }
  }
  EXPECT_EQ(object, 45u);
  EXPECT_EQ(object, classes.size());
}

}  // namespace
}  // namespace touchstone
