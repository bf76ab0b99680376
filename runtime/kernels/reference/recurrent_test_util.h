// Model building shared by the quantized LSTM and the SVDF tests (lstm_quantized_test.cc,
// svdf_ops_test.cc). The integer LSTM reads its gate scales from the operator's
// intermediate tensors, which ModelBuilder cannot write, so these models are written with the
// schema's builders directly. Their expected outputs are what TensorFlow Lite computed for the same
// models and inputs (its 2.14.1 golden run for lstm_quantized.bin's first step; its WebAssembly
// build, shared/oracle, for the rest, except where a test says otherwise): integer results are only
// specified by TFLite's rounding. The hybrid float results agree with TFLite's to ~1e-7 (the
// WebAssembly build's exp and tanh differ from glibc's in the last bit).
#ifndef TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_RECURRENT_TEST_UTIL_H_
#define TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_RECURRENT_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/model.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace recurrent_test {

inline fb::TensorType SchemaType(TfLiteType type) {
  switch (type) {
    case kTfLiteFloat32:
      return fb::TensorType::FLOAT32;
    case kTfLiteInt32:
      return fb::TensorType::INT32;
    case kTfLiteInt16:
      return fb::TensorType::INT16;
    case kTfLiteInt8:
      return fb::TensorType::INT8;
    case kTfLiteUInt8:
      return fb::TensorType::UINT8;
    default:
      return fb::TensorType::FLOAT32;
  }
}

class RawModel {
 public:
  RawModel() { buffers_.push_back(fb::CreateBufferDirect(fbb_)); }  // buffer 0: no data

  flatbuffers::FlatBufferBuilder& fbb() { return fbb_; }

  // A tensor; `scale` 0 means not quantized.
  int AddTensor(TfLiteType type, const std::vector<int>& shape, float scale = 0.0f, int64_t zero_point = 0,
                bool is_variable = false, const void* data = nullptr, size_t bytes = 0) {
    uint32_t buffer = 0;
    if (data != nullptr) {
      const auto* begin = static_cast<const uint8_t*>(data);
      const std::vector<uint8_t> contents(begin, begin + bytes);
      buffers_.push_back(fb::CreateBufferDirect(fbb_, &contents));
      buffer = static_cast<uint32_t>(buffers_.size() - 1);
    }
    flatbuffers::Offset<fb::QuantizationParameters> quantization = 0;
    if (scale != 0.0f) {
      const std::vector<float> scales = {scale};
      const std::vector<int64_t> zero_points = {zero_point};
      quantization = fb::CreateQuantizationParametersDirect(fbb_, nullptr, nullptr, &scales, &zero_points);
    }
    const std::string name = "t" + std::to_string(tensors_.size());
    tensors_.push_back(
        fb::CreateTensorDirect(fbb_, &shape, SchemaType(type), buffer, name.c_str(), quantization, is_variable));
    return static_cast<int>(tensors_.size() - 1);
  }
  template <typename T>
  int AddConst(TfLiteType type, const std::vector<int>& shape, const std::vector<T>& values, float scale = 0.0f) {
    return AddTensor(type, shape, scale, 0, false, values.data(), values.size() * sizeof(T));
  }
  int AddInput(TfLiteType type, const std::vector<int>& shape, float scale = 0.0f, int64_t zero_point = 0) {
    inputs_.push_back(AddTensor(type, shape, scale, zero_point));
    return inputs_.back();
  }
  int AddOutput(TfLiteType type, float scale = 0.0f, int64_t zero_point = 0) {
    outputs_.push_back(AddTensor(type, {}, scale, zero_point));
    return outputs_.back();
  }
  int AddState(TfLiteType type, const std::vector<int>& shape, float scale = 0.0f, int64_t zero_point = 0) {
    return AddTensor(type, shape, scale, zero_point, /*is_variable=*/true);
  }

  void AddOp(fb::BuiltinOperator op, const std::vector<int>& inputs, const std::vector<int>& outputs,
             const std::vector<int>& intermediates, fb::BuiltinOptions options_type,
             flatbuffers::Offset<void> options) {
    uint32_t opcode = 0;
    while (opcode < opcodes_.size() && opcodes_[opcode] != op) ++opcode;
    if (opcode == opcodes_.size()) opcodes_.push_back(op);
    operators_.push_back(fb::CreateOperatorDirect(fbb_, opcode, &inputs, &outputs, options_type, options, nullptr,
                                                  fb::CustomOptionsFormat::FLEXBUFFERS, nullptr,
                                                  intermediates.empty() ? nullptr : &intermediates));
  }

  // Serializes, loads, creates the reference interpreter and allocates tensors.
  Status Build() {
    std::vector<flatbuffers::Offset<fb::OperatorCode>> codes;
    for (fb::BuiltinOperator op : opcodes_) {
      codes.push_back(fb::CreateOperatorCode(fbb_, static_cast<int8_t>(op), 0, 1, op));
    }
    const std::vector<flatbuffers::Offset<fb::SubGraph>> subgraphs = {
        fb::CreateSubGraphDirect(fbb_, &tensors_, &inputs_, &outputs_, &operators_)};
    fbb_.Finish(fb::CreateModelDirect(fbb_, 3, &codes, &subgraphs, "recurrent_test", &buffers_), "TFL3");
    const std::vector<uint8_t> bytes(fbb_.GetBufferPointer(), fbb_.GetBufferPointer() + fbb_.GetSize());
    TS_ASSIGN_OR_RETURN(model_, Model::FromBuffer(bytes, "recurrent_test"));
    InterpreterOptions options;
    options.kernel_set = KernelSet::kReference;
    TS_ASSIGN_OR_RETURN(interpreter_, Interpreter::Create(model_, options));
    return interpreter_->AllocateTensors();
  }

  template <typename T>
  void SetInput(int position, const std::vector<T>& values) {
    TfLiteTensor* t = interpreter_->input_tensor(position);
    ASSERT_EQ(t->bytes, values.size() * sizeof(T));
    std::memcpy(t->data.raw, values.data(), t->bytes);
  }
  Status Invoke() { return interpreter_->Invoke(); }
  template <typename T>
  std::vector<T> GetOutput(int position) {
    return testing::TensorValues<T>(interpreter_->output_tensor(position));
  }
  std::vector<int> GetOutputShape(int position) { return ShapeOf(interpreter_->output_tensor(position)); }

 private:
  flatbuffers::FlatBufferBuilder fbb_;
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers_;
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors_;
  std::vector<flatbuffers::Offset<fb::Operator>> operators_;
  std::vector<fb::BuiltinOperator> opcodes_;
  std::vector<int> inputs_;
  std::vector<int> outputs_;
  std::shared_ptr<const Model> model_;
  std::unique_ptr<Interpreter> interpreter_;
};

// Deterministic pseudo-random values in [lo, hi] (a linear congruential sequence), for weights.
template <typename T>
std::vector<T> Pattern(int count, int lo, int hi, uint32_t seed) {
  std::vector<T> values(count);
  uint32_t state = seed * 2654435761u + 1;
  for (T& value : values) {
    state = state * 1664525u + 1013904223u;
    value = static_cast<T>(lo + static_cast<int>((state >> 8) % static_cast<uint32_t>(hi - lo + 1)));
  }
  return values;
}

inline std::vector<float> FloatPattern(int count, float step, uint32_t seed) {
  std::vector<float> values;
  for (int v : Pattern<int>(count, -9, 9, seed)) values.push_back(v * step);
  return values;
}

inline void ExpectClose(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-6f) << "element " << i;
  }
}

}  // namespace recurrent_test
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_RECURRENT_TEST_UTIL_H_
