// A .tflite file, mapped and verified. Loading runs the FlatBuffers verifier and then the checks the
// verifier cannot make (indices in range, buffers inside the file, sizes free of overflow, operator
// codes resolvable), so that everything built on a Model may trust its structure. Constant weights
// stay in the mapping (zero copy).
#ifndef TOUCHSTONE_RUNTIME_MODEL_H_
#define TOUCHSTONE_RUNTIME_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/schema/schema_generated.h"
#include "runtime/status.h"

namespace touchstone {

// Gives the whole pages of [data, data + bytes) back to the OS (madvise MADV_DONTNEED): a file
// mapping's pages are read from the page cache again when touched, anonymous pages come back as
// zeros. Only for bytes nothing reads any more. Returns the bytes given back.
size_t ReleaseWholePages(const void* data, size_t bytes);

// The only schema version TFLite (and so Touchstone) reads.
constexpr uint32_t kTfLiteSchemaVersion = 3;

// Converts a schema tensor type to the C API's; false for types the C API has no value for.
bool ConvertTensorType(fb::TensorType type, TfLiteType* out);

class Model {
 public:
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  // Maps and verifies a file. Errors name the file and the defect (StatusCode::kInvalidInput).
  static StatusOr<std::shared_ptr<const Model>> FromFile(const std::string& path);
  // Verifies bytes already in memory (the model keeps them).
  static StatusOr<std::shared_ptr<const Model>> FromBuffer(std::vector<uint8_t> bytes, const std::string& name);

  const fb::Model* fb() const { return model_; }
  const std::string& name() const { return name_; }
  size_t file_bytes() const { return size_; }
  const uint8_t* file_data() const { return data_; }

  // The builtin operator code of operator_codes[index] (the larger of the deprecated byte field and
  // the int32 field, as TFLite resolves it).
  int BuiltinCode(uint32_t opcode_index) const;
  // A constant buffer's bytes; size 0 and null for buffers without data.
  const uint8_t* BufferData(uint32_t buffer_index, size_t* bytes) const;
  // Bytes of all constant buffers (the weights).
  size_t weights_bytes() const { return weights_bytes_; }
  // Unmaps the whole pages of [data, data + bytes) when they lie in the mapped file (madvise
  // MADV_DONTNEED on a private read-only mapping: the page cache keeps them, a later read maps the
  // same bytes again); returns the bytes unmapped, 0 for a model kept in memory.
  size_t ReleasePages(const void* data, size_t bytes) const;

 private:
  Model() = default;
  Status Verify();
  // Verify's parts that need the file or the opcode table (the others are free functions).
  Status VerifyFlatbuffer();
  Status VerifyBuffers();
  Status VerifyOperatorCodes();

  std::string name_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;  // munmap on destruction when set
  std::vector<uint8_t> owned_;
  const fb::Model* model_ = nullptr;
  size_t weights_bytes_ = 0;
};

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_MODEL_H_
