#include "datasets/detection_proto.h"

#include <cstring>
#include <fstream>
#include <iterator>

namespace touchstone {
namespace {

// A bounded reader over one message's bytes.
class Reader {
 public:
  Reader() = default;
  Reader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  bool done() const { return p_ >= end_; }

  bool Varint(uint64_t* value) {
    *value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return false;
      const uint8_t byte = *p_++;
      *value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;  // longer than 10 bytes
  }
  bool Fixed32(uint32_t* value) {
    if (end_ - p_ < 4) return false;
    std::memcpy(value, p_, 4);  // little-endian, as on every machine Touchstone builds for
    p_ += 4;
    return true;
  }
  // A length-delimited field: its bytes as a reader of their own.
  bool Bytes(Reader* sub) {
    uint64_t length;
    if (!Varint(&length) || length > static_cast<uint64_t>(end_ - p_)) return false;
    *sub = Reader(p_, static_cast<size_t>(length));
    p_ += length;
    return true;
  }
  std::string Rest() const { return std::string(reinterpret_cast<const char*>(p_), static_cast<size_t>(end_ - p_)); }
  // Skips a field of `wire_type` (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32; groups are refused).
  bool Skip(uint32_t wire_type) {
    uint64_t ignored;
    uint32_t ignored32;
    Reader sub;
    switch (wire_type) {
      case 0:
        return Varint(&ignored);
      case 1:
        if (end_ - p_ < 8) return false;
        p_ += 8;
        return true;
      case 2:
        return Bytes(&sub);
      case 5:
        return Fixed32(&ignored32);
      default:
        return false;
    }
  }

 private:
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
};

// Calls field(number, wire_type, reader) for each field; it returns 1 when it read the field, 0 to have
// it skipped, -1 when the field is malformed. False for malformed input.
template <typename Field>
bool ForEachField(Reader* reader, Field field) {
  while (!reader->done()) {
    uint64_t key;
    if (!reader->Varint(&key)) return false;
    const uint32_t number = static_cast<uint32_t>(key >> 3), wire_type = static_cast<uint32_t>(key & 7);
    if (number == 0) return false;
    const int read = field(number, wire_type, reader);
    if (read < 0 || (read == 0 && !reader->Skip(wire_type))) return false;
  }
  return true;
}

int ReadFloat(Reader* r, float* value) {
  uint32_t bits;
  if (!r->Fixed32(&bits)) return -1;
  std::memcpy(value, &bits, 4);
  return 1;
}

bool ParseBox(Reader* reader, ProtoObject* object) {
  return ForEachField(reader, [&](uint32_t number, uint32_t wire_type, Reader* r) {
    float* slot = number == 1   ? &object->top
                  : number == 2 ? &object->bottom
                  : number == 3 ? &object->left
                  : number == 4 ? &object->right
                                : nullptr;
    if (slot == nullptr || wire_type != 5) return 0;
    return ReadFloat(r, slot);
  });
}

bool ParseObject(Reader* reader, ProtoObject* object) {
  return ForEachField(reader, [&](uint32_t number, uint32_t wire_type, Reader* r) {
    if (number == 1 && wire_type == 0) {
      uint64_t v;
      if (!r->Varint(&v)) return -1;
      object->class_id = static_cast<int32_t>(static_cast<uint32_t>(v));  // int32 is sign-extended on the wire
      return 1;
    }
    if (number == 2 && wire_type == 2) {
      Reader sub;
      return r->Bytes(&sub) && ParseBox(&sub, object) ? 1 : -1;
    }
    if (number == 3 && wire_type == 5) return ReadFloat(r, &object->score);
    return 0;
  });
}

bool ParseResult(Reader* reader, ProtoDetectionResult* result) {
  return ForEachField(reader, [&](uint32_t number, uint32_t wire_type, Reader* r) {
    Reader sub;
    if (number == 1 && wire_type == 2) {
      ProtoObject object;
      if (!r->Bytes(&sub) || !ParseObject(&sub, &object)) return -1;
      result->objects.push_back(object);
      return 1;
    }
    if (number == 2 && wire_type == 2) {
      if (!r->Bytes(&sub)) return -1;
      result->image_name = sub.Rest();
      return 1;
    }
    if (number == 3 && wire_type == 0) {
      uint64_t v;
      if (!r->Varint(&v)) return -1;
      result->image_id = static_cast<int64_t>(v);
      return 1;
    }
    return 0;
  });
}

}  // namespace

StatusOr<std::vector<ProtoDetectionResult>> ParseDetectionGroundTruthProto(const std::vector<uint8_t>& bytes,
                                                                           const std::string& name) {
  std::vector<ProtoDetectionResult> results;
  Reader reader(bytes.data(), bytes.size());
  const bool ok = ForEachField(&reader, [&](uint32_t number, uint32_t wire_type, Reader* r) {
    if (number != 1 || wire_type != 2) return 0;
    Reader sub;
    ProtoDetectionResult result;
    if (!r->Bytes(&sub) || !ParseResult(&sub, &result)) return -1;
    results.push_back(std::move(result));
    return 1;
  });
  if (!ok) {
    return InvalidInputError(name +
                             ": not a valid ObjectDetectionGroundTruth proto (malformed protobuf wire data after " +
                             std::to_string(results.size()) + " detection_results)");
  }
  return results;
}

StatusOr<std::vector<ProtoDetectionResult>> ReadDetectionGroundTruthProto(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidInputError(path + ": cannot read");
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return ParseDetectionGroundTruthProto(bytes, path);
}

}  // namespace touchstone
