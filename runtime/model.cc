#include "runtime/model.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>

#include "flatbuffers/flatbuffers.h"

namespace touchstone {

bool ConvertTensorType(fb::TensorType type, TfLiteType* out) {
  switch (type) {
    case fb::TensorType::FLOAT32:
      *out = kTfLiteFloat32;
      return true;
    case fb::TensorType::FLOAT16:
      *out = kTfLiteFloat16;
      return true;
    case fb::TensorType::INT32:
      *out = kTfLiteInt32;
      return true;
    case fb::TensorType::UINT8:
      *out = kTfLiteUInt8;
      return true;
    case fb::TensorType::INT64:
      *out = kTfLiteInt64;
      return true;
    case fb::TensorType::STRING:
      *out = kTfLiteString;
      return true;
    case fb::TensorType::BOOL:
      *out = kTfLiteBool;
      return true;
    case fb::TensorType::INT16:
      *out = kTfLiteInt16;
      return true;
    case fb::TensorType::COMPLEX64:
      *out = kTfLiteComplex64;
      return true;
    case fb::TensorType::INT8:
      *out = kTfLiteInt8;
      return true;
    case fb::TensorType::FLOAT64:
      *out = kTfLiteFloat64;
      return true;
    case fb::TensorType::COMPLEX128:
      *out = kTfLiteComplex128;
      return true;
    case fb::TensorType::UINT64:
      *out = kTfLiteUInt64;
      return true;
    case fb::TensorType::RESOURCE:
      *out = kTfLiteResource;
      return true;
    case fb::TensorType::VARIANT:
      *out = kTfLiteVariant;
      return true;
    case fb::TensorType::UINT32:
      *out = kTfLiteUInt32;
      return true;
    case fb::TensorType::UINT16:
      *out = kTfLiteUInt16;
      return true;
    case fb::TensorType::INT4:
      *out = kTfLiteInt4;
      return true;
    default:
      return false;
  }
}

Model::~Model() {
  if (mapping_ != nullptr) munmap(mapping_, size_);
}

StatusOr<std::shared_ptr<const Model>> Model::FromFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return InvalidInputError(path + ": cannot open model file: " + std::strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return InvalidInputError(path + ": not a regular file");
  }
  std::shared_ptr<Model> model(new Model());
  model->name_ = path;
  model->size_ = static_cast<size_t>(st.st_size);
  if (model->size_ > 0) {
    void* mapping = mmap(nullptr, model->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping == MAP_FAILED) {
      close(fd);
      return InvalidInputError(path + ": cannot map model file: " + std::strerror(errno));
    }
    model->mapping_ = mapping;
    model->data_ = static_cast<const uint8_t*>(mapping);
  }
  close(fd);
  Status status = model->Verify();
  if (!status.ok()) return status.WithContext(path);
  return std::shared_ptr<const Model>(std::move(model));
}

size_t ReleaseWholePages(const void* data, size_t bytes) {
  static const uintptr_t page_bytes = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first_page = (begin + page_bytes - 1) / page_bytes * page_bytes;
  const uintptr_t end_page = (begin + bytes) / page_bytes * page_bytes;
  if (data == nullptr || end_page <= first_page) return 0;
  if (madvise(reinterpret_cast<void*>(first_page), end_page - first_page, MADV_DONTNEED) != 0) return 0;
  return end_page - first_page;
}

size_t Model::ReleasePages(const void* data, size_t bytes) const {
  if (mapping_ == nullptr || bytes == 0) return 0;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t file_begin = reinterpret_cast<uintptr_t>(data_);
  if (begin < file_begin || begin - file_begin > size_ || bytes > size_ - (begin - file_begin)) return 0;
  return ReleaseWholePages(data, bytes);
}

StatusOr<std::shared_ptr<const Model>> Model::FromBuffer(std::vector<uint8_t> bytes, const std::string& name) {
  std::shared_ptr<Model> model(new Model());
  model->name_ = name;
  model->owned_ = std::move(bytes);
  model->data_ = model->owned_.data();
  model->size_ = model->owned_.size();
  Status status = model->Verify();
  if (!status.ok()) return status.WithContext(name);
  return std::shared_ptr<const Model>(std::move(model));
}

int Model::BuiltinCode(uint32_t opcode_index) const {
  const fb::OperatorCode* code = model_->operator_codes()->Get(opcode_index);
  const int deprecated = code->deprecated_builtin_code();
  const int current = static_cast<int>(code->builtin_code());
  return deprecated > current ? deprecated : current;
}

const uint8_t* Model::BufferData(uint32_t buffer_index, size_t* bytes) const {
  *bytes = 0;
  const auto* buffers = model_->buffers();
  if (buffers == nullptr || buffer_index >= buffers->size()) return nullptr;
  const fb::Buffer* buffer = buffers->Get(buffer_index);
  if (buffer == nullptr) return nullptr;
  if (buffer->offset() > 1) {  // data stored after the flatbuffer (models over 2 GiB)
    *bytes = buffer->size();
    return data_ + buffer->offset();
  }
  if (buffer->data() == nullptr || buffer->data()->size() == 0) return nullptr;
  *bytes = buffer->data()->size();
  return buffer->data()->data();
}

namespace {

Status Invalid(const std::string& message) { return InvalidInputError(message); }

std::string TensorLabel(int subgraph, int index, const fb::Tensor* tensor) {
  std::string label = "subgraph " + std::to_string(subgraph) + " tensor " + std::to_string(index);
  if (tensor != nullptr && tensor->name() != nullptr) label += " '" + tensor->name()->str() + "'";
  return label;
}

// Checks a list of tensor indices (-1 allowed where `allow_optional`). `what()` names the list in an
// error; it is called only then, so a valid model's load builds no strings.
template <typename What>
Status CheckIndices(const flatbuffers::Vector<int32_t>* indices, size_t num_tensors, bool allow_optional,
                    const What& what) {
  if (indices == nullptr) return Status::Ok();
  for (flatbuffers::uoffset_t i = 0; i < indices->size(); ++i) {
    const int32_t index = indices->Get(i);
    if ((index == -1 && allow_optional)) continue;
    if (index < 0 || static_cast<size_t>(index) >= num_tensors) {
      return Invalid(what() + " " + std::to_string(i) + " refers to tensor " + std::to_string(index) +
                     " but the subgraph has " + std::to_string(num_tensors) + " tensors");
    }
  }
  return Status::Ok();
}

// One tensor: its type, its buffer index, its shape (non-negative, element count and byte size free
// of overflow) and its quantization (zero points in the type's range, per-channel counts).
Status VerifyTensor(const fb::Tensor* tensor, int subgraph, int index, size_t num_buffers) {
  // Made only for an error: a label per tensor would cost a model Init tens of microseconds.
  const auto label = [&]() { return TensorLabel(subgraph, index, tensor); };
  TfLiteType type;
  if (!ConvertTensorType(tensor->type(), &type)) {
    return Invalid(label() + " has unsupported type " + std::to_string(static_cast<int>(tensor->type())));
  }
  if (tensor->buffer() >= num_buffers && !(tensor->buffer() == 0 && num_buffers == 0)) {
    return Invalid(label() + " refers to buffer " + std::to_string(tensor->buffer()) + " but the model has " +
                   std::to_string(num_buffers) + " buffers");
  }
  // Shapes: non-negative, element count and byte size free of overflow.
  uint64_t elements = 1;
  const auto* shape = tensor->shape();
  if (shape != nullptr) {
    if (shape->size() > 16) {
      return Invalid(label() + " has rank " + std::to_string(shape->size()) + " (at most 16)");
    }
    for (flatbuffers::uoffset_t d = 0; d < shape->size(); ++d) {
      const int32_t dim = shape->Get(d);
      if (dim < 0) {
        return Invalid(label() + " has negative dimension " + std::to_string(dim) + " at axis " + std::to_string(d));
      }
      if (dim != 0 && elements > (uint64_t{1} << 48) / static_cast<uint64_t>(dim)) {
        return Invalid(label() + " has a shape whose element count overflows");
      }
      elements *= static_cast<uint64_t>(dim);
    }
  }
  const auto* quant = tensor->quantization();
  if (quant != nullptr && quant->scale() != nullptr && quant->zero_point() != nullptr &&
      quant->zero_point()->size() != quant->scale()->size()) {
    return Invalid(label() + " has " + std::to_string(quant->zero_point()->size()) + " zero points for " +
                   std::to_string(quant->scale()->size()) + " scales");
  }
  if (quant != nullptr && quant->zero_point() != nullptr) {
    // Kernels compute in int32 with the zero point as an operand: one outside the type's range
    // overflows their sums (found by model_fuzzer: int8 weights with zero point 16777216).
    int64_t low = std::numeric_limits<int32_t>::min(), high = std::numeric_limits<int32_t>::max();
    switch (type) {
      case kTfLiteUInt8:
        low = 0, high = 255;
        break;
      case kTfLiteInt8:
        low = -128, high = 127;
        break;
      case kTfLiteInt16:
        low = -32768, high = 32767;
        break;
      case kTfLiteInt4:
        low = -8, high = 7;
        break;
      default:
        break;
    }
    // One pass without an exit per element (a per-channel model has tens of thousands): every
    // range above spans 2^k values, so v is inside iff v - low (mod 2^64) has no bit above k, and
    // the OR of all of them tells. The offender is looked for only when there is one.
    const int64_t* zero_points = quant->zero_point()->data();
    const flatbuffers::uoffset_t count = quant->zero_point()->size();
    const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);  // 2^k - 1
    uint64_t offsets = 0;
    for (flatbuffers::uoffset_t z = 0; z < count; ++z) {
      offsets |= static_cast<uint64_t>(zero_points[z]) - static_cast<uint64_t>(low);
    }
    const bool outside = (offsets & ~span) != 0;
    for (flatbuffers::uoffset_t z = 0; outside && z < count; ++z) {
      const int64_t zero_point = zero_points[z];
      if (zero_point < low || zero_point > high) {
        return Invalid(label() + " has zero point " + std::to_string(zero_point) + " outside " +
                       TfLiteTypeGetName(type) + "'s range [" + std::to_string(low) + ", " + std::to_string(high) +
                       "]");
      }
    }
  }
  if (quant != nullptr && quant->scale() != nullptr && quant->scale()->size() > 1) {
    const int rank = shape != nullptr ? static_cast<int>(shape->size()) : 0;
    const int qdim = quant->quantized_dimension();
    if (qdim < 0 || qdim >= rank) {
      return Invalid(label() + " has quantized_dimension " + std::to_string(qdim) + " outside [0, " +
                     std::to_string(rank) + ")");
    }
    if (quant->scale()->size() != static_cast<flatbuffers::uoffset_t>(shape->Get(qdim))) {
      return Invalid(label() + " has " + std::to_string(quant->scale()->size()) + " scales for " +
                     std::to_string(shape->Get(qdim)) + " channels");
    }
    if (quant->zero_point() != nullptr && quant->zero_point()->size() != quant->scale()->size()) {
      return Invalid(label() + " has " + std::to_string(quant->zero_point()->size()) + " zero points for " +
                     std::to_string(quant->scale()->size()) + " scales");
    }
  }
  return Status::Ok();
}

// A subgraph's operators: opcode indices, tensor indices, custom options inside the file.
Status VerifyOperators(const fb::SubGraph* subgraph, const std::string& where, size_t num_tensors, size_t num_opcodes,
                       size_t file_bytes) {
  const size_t num_operators = subgraph->operators() != nullptr ? subgraph->operators()->size() : 0;
  for (size_t o = 0; o < num_operators; ++o) {
    const fb::Operator* op = subgraph->operators()->Get(o);
    const auto op_where = [&]() { return where + " op " + std::to_string(o); };
    if (op->opcode_index() >= num_opcodes) {
      return Invalid(op_where() + " has opcode index " + std::to_string(op->opcode_index()) + " but the model has " +
                     std::to_string(num_opcodes) + " operator codes");
    }
    TS_RETURN_IF_ERROR(CheckIndices(op->inputs(), num_tensors, true, [&]() { return op_where() + " input"; }));
    TS_RETURN_IF_ERROR(CheckIndices(op->outputs(), num_tensors, true, [&]() { return op_where() + " output"; }));
    TS_RETURN_IF_ERROR(
        CheckIndices(op->intermediates(), num_tensors, false, [&]() { return op_where() + " intermediate"; }));
    if (op->large_custom_options_size() > 0) {
      const uint64_t offset = op->large_custom_options_offset();
      const uint64_t bytes = op->large_custom_options_size();
      if (offset > file_bytes || bytes > file_bytes - offset) {
        return Invalid(op_where() + " has custom options outside the file");
      }
    }
  }
  return Status::Ok();
}

// Signatures name existing subgraphs and tensors.
Status VerifySignatures(const fb::Model* model) {
  const int num_subgraphs = static_cast<int>(model->subgraphs()->size());
  if (model->signature_defs() != nullptr) {
    for (flatbuffers::uoffset_t i = 0; i < model->signature_defs()->size(); ++i) {
      const fb::SignatureDef* sig = model->signature_defs()->Get(i);
      if (sig->subgraph_index() >= static_cast<uint32_t>(num_subgraphs)) {
        return Invalid("signature " + std::to_string(i) + " refers to subgraph " +
                       std::to_string(sig->subgraph_index()) + " of " + std::to_string(num_subgraphs));
      }
      const fb::SubGraph* subgraph = model->subgraphs()->Get(sig->subgraph_index());
      const size_t num_tensors = subgraph->tensors() != nullptr ? subgraph->tensors()->size() : 0;
      for (const auto* list : {sig->inputs(), sig->outputs()}) {
        if (list == nullptr) continue;
        for (flatbuffers::uoffset_t k = 0; k < list->size(); ++k) {
          if (list->Get(k)->tensor_index() >= num_tensors) {
            return Invalid("signature " + std::to_string(i) + " maps to tensor " +
                           std::to_string(list->Get(k)->tensor_index()) + " outside subgraph " +
                           std::to_string(sig->subgraph_index()));
          }
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status Model::VerifyFlatbuffer() {
  if (size_ < 8) {
    return Invalid("not a valid TFLite model: file is " + std::to_string(size_) + " bytes");
  }
  if (!flatbuffers::BufferHasIdentifier(data_, fb::ModelIdentifier())) {
    char id[5] = {0};
    std::memcpy(id, data_ + 4, 4);
    for (char& c : id) {
      if (c != 0 && (c < 32 || c > 126)) c = '?';
    }
    return Invalid(std::string("not a valid TFLite model: file identifier is '") + id + "', expected 'TFL3'");
  }
  // The verifier sees at most the flatbuffer part; buffers beyond 2 GiB are checked below.
  const size_t verify_bytes = size_ < FLATBUFFERS_MAX_BUFFER_SIZE ? size_ : FLATBUFFERS_MAX_BUFFER_SIZE - 1;
  flatbuffers::Verifier verifier(data_, verify_bytes, /*max_depth=*/128, /*max_tables=*/10000000);
  if (!fb::VerifyModelBuffer(verifier)) {
    return Invalid("not a valid TFLite model: the flatbuffer failed verification (truncated or corrupt)");
  }
  model_ = fb::GetModel(data_);
  if (model_->version() != kTfLiteSchemaVersion) {
    return Invalid("schema version " + std::to_string(model_->version()) + " is not the supported version " +
                   std::to_string(kTfLiteSchemaVersion));
  }
  if (model_->subgraphs() == nullptr || model_->subgraphs()->size() == 0) {
    return Invalid("no subgraph in the model");
  }
  return Status::Ok();
}

// Buffers: external ones (offset > 1) must lie inside the file; counts the weights' bytes.
Status Model::VerifyBuffers() {
  const size_t num_buffers = model_->buffers() != nullptr ? model_->buffers()->size() : 0;
  weights_bytes_ = 0;
  for (size_t b = 0; b < num_buffers; ++b) {
    const fb::Buffer* buffer = model_->buffers()->Get(b);
    if (buffer == nullptr) continue;
    if (buffer->offset() > 1) {
      const uint64_t offset = buffer->offset();
      const uint64_t bytes = buffer->size();
      if (offset > size_ || bytes > size_ - offset) {
        return Invalid("buffer " + std::to_string(b) + " lies outside the file (offset " + std::to_string(offset) +
                       ", size " + std::to_string(bytes) + ", file " + std::to_string(size_) + " bytes)");
      }
      weights_bytes_ += bytes;
    } else if (buffer->data() != nullptr) {
      weights_bytes_ += buffer->data()->size();
    }
  }
  return Status::Ok();
}

Status Model::VerifyOperatorCodes() {
  const size_t num_opcodes = model_->operator_codes() != nullptr ? model_->operator_codes()->size() : 0;
  for (size_t c = 0; c < num_opcodes; ++c) {
    const fb::OperatorCode* code = model_->operator_codes()->Get(c);
    const int builtin = BuiltinCode(static_cast<uint32_t>(c));
    if (code->deprecated_builtin_code() < 0 || builtin < 0 || builtin > static_cast<int>(fb::BuiltinOperator::MAX)) {
      return Invalid("operator code " + std::to_string(c) + " has unknown builtin code " + std::to_string(builtin));
    }
    if (builtin == static_cast<int>(fb::BuiltinOperator::CUSTOM) && code->custom_code() == nullptr) {
      return Invalid("operator code " + std::to_string(c) + " is CUSTOM but has no custom_code");
    }
  }
  return Status::Ok();
}

Status Model::Verify() {
  TS_RETURN_IF_ERROR(VerifyFlatbuffer());
  TS_RETURN_IF_ERROR(VerifyBuffers());
  TS_RETURN_IF_ERROR(VerifyOperatorCodes());
  const size_t num_buffers = model_->buffers() != nullptr ? model_->buffers()->size() : 0;
  const size_t num_opcodes = model_->operator_codes() != nullptr ? model_->operator_codes()->size() : 0;
  const int num_subgraphs = static_cast<int>(model_->subgraphs()->size());
  for (int s = 0; s < num_subgraphs; ++s) {
    const fb::SubGraph* subgraph = model_->subgraphs()->Get(s);
    const std::string where = "subgraph " + std::to_string(s);
    const size_t num_tensors = subgraph->tensors() != nullptr ? subgraph->tensors()->size() : 0;
    for (size_t t = 0; t < num_tensors; ++t) {
      const fb::Tensor* tensor = subgraph->tensors()->Get(t);
      TS_RETURN_IF_ERROR(VerifyTensor(tensor, s, static_cast<int>(t), num_buffers));
    }
    TS_RETURN_IF_ERROR(VerifyOperators(subgraph, where, num_tensors, num_opcodes, size_));
    TS_RETURN_IF_ERROR(CheckIndices(subgraph->inputs(), num_tensors, false, [&]() { return where + " input"; }));
    TS_RETURN_IF_ERROR(CheckIndices(subgraph->outputs(), num_tensors, false, [&]() { return where + " output"; }));
  }
  return VerifySignatures(model_);
}
}  // namespace touchstone
