// A one-op (or few-op) model built in memory, loaded and run through the real loader and interpreter,
// so kernel tests exercise exactly the path a .tflite file takes. Used by every kernel set's tests.
#ifndef TOUCHSTONE_RUNTIME_TESTING_OP_TEST_H_
#define TOUCHSTONE_RUNTIME_TESTING_OP_TEST_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "runtime/interpreter.h"
#include "runtime/model.h"
#include "runtime/model_builder.h"
#include "runtime/status.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace testing {

// A tensor's elements as T, and its shape.
template <typename T>
std::vector<T> TensorValues(const TfLiteTensor* t) {
  const T* data = reinterpret_cast<const T*>(t->data.raw);
  return std::vector<T>(data, data + t->bytes / sizeof(T));
}

// Reproducible test data: `n` values drawn uniformly from [lo, hi] by a generator seeded with `seed`.
inline std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> values(n);
  for (float& v : values) v = dist(rng);
  return values;
}
template <typename T>
std::vector<T> RandomInts(size_t n, uint32_t seed, int lo, int hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> values(n);
  for (T& v : values) v = static_cast<T>(dist(rng));
  return values;
}

class OpTest {
 public:
  explicit OpTest(KernelSet kernel_set = KernelSet::kReference) : kernel_set_(kernel_set) {}

  ModelBuilder& builder() { return builder_; }
  flatbuffers::FlatBufferBuilder& fbb() { return builder_.fbb(); }

  // A graph input, in the order they are added.
  int AddInput(TfLiteType type, const std::vector<int>& shape, const std::string& name = "") {
    const int t = builder_.AddTensor(type, shape, name.empty() ? "in" + std::to_string(inputs_.size()) : name);
    inputs_.push_back(t);
    return t;
  }
  // A graph output; its shape in the file may be anything, Prepare sets the real one.
  int AddOutput(TfLiteType type, const std::vector<int>& shape = {}, const std::string& name = "") {
    const int t = builder_.AddTensor(type, shape, name.empty() ? "out" + std::to_string(outputs_.size()) : name);
    outputs_.push_back(t);
    return t;
  }
  template <typename T>
  int AddConst(TfLiteType type, const std::vector<int>& shape, const std::vector<T>& values) {
    return builder_.AddConstTensor(type, shape, values);
  }
  int AddIntermediate(TfLiteType type, const std::vector<int>& shape = {}) {
    return builder_.AddTensor(type, shape, "t" + std::to_string(next_tmp_++));
  }
  int AddOp(int builtin_code, const std::vector<int>& inputs, const std::vector<int>& outputs,
            fb::BuiltinOptions options_type = fb::BuiltinOptions::NONE, flatbuffers::Offset<void> options = 0,
            int version = 1) {
    return builder_.AddOperator(builtin_code, inputs, outputs, options_type, options, version);
  }

  // Serializes, loads, creates the interpreter and allocates tensors. An error is returned as is
  // (tests of refusals check it).
  Status Build() {
    builder_.SetInputs(inputs_);
    builder_.SetOutputs(outputs_);
    TS_ASSIGN_OR_RETURN(model_, Model::FromBuffer(builder_.Finish(), "op_test"));
    InterpreterOptions options = options_;
    options.kernel_set = kernel_set_;
    TS_ASSIGN_OR_RETURN(interpreter_, Interpreter::Create(model_, options));
    return interpreter_->AllocateTensors();
  }

  // Changes input `position`'s shape; call AllocateTensors() afterwards.
  Status ResizeInput(int position, const std::vector<int>& shape) {
    return interpreter_->ResizeInputTensor(interpreter_->inputs()[position], shape);
  }
  Status AllocateTensors() { return interpreter_->AllocateTensors(); }

  template <typename T>
  void SetInput(int position, const std::vector<T>& values) {
    TfLiteTensor* t = interpreter_->input_tensor(position);
    if (!values.empty()) std::memcpy(t->data.raw, values.data(), values.size() * sizeof(T));
  }
  Status Invoke() { return interpreter_->Invoke(); }
  // Build(), input 0 set to `input0`, Invoke(): a one-input test's run; the first error is returned.
  template <typename T>
  Status BuildAndInvoke(const std::vector<T>& input0) {
    TS_RETURN_IF_ERROR(Build());
    SetInput(0, input0);
    return Invoke();
  }

  template <typename T>
  std::vector<T> GetOutput(int position) {
    return TensorValues<T>(interpreter_->output_tensor(position));
  }
  std::vector<int> GetOutputShape(int position) { return ShapeOf(interpreter_->output_tensor(position)); }
  Interpreter* interpreter() { return interpreter_.get(); }
  // Options Build() creates the interpreter with (the kernel set is the constructor's).
  InterpreterOptions* options() { return &options_; }

 private:
  KernelSet kernel_set_;
  InterpreterOptions options_;
  ModelBuilder builder_;
  std::vector<int> inputs_;
  std::vector<int> outputs_;
  int next_tmp_ = 0;
  std::shared_ptr<const Model> model_;
  std::unique_ptr<Interpreter> interpreter_;
};

}  // namespace testing
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_TESTING_OP_TEST_H_
