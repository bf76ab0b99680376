// Fuzz target: a .tflite file through everything benchmark_model does with it: load and verify,
// build the interpreter, AllocateTensors, random inputs as benchmark_model makes them, Invoke. Bounds
// (as a tool's flags would set them) keep memory and loops finite: a model asking for more must be
// refused with an error, never crash, hang or be OOM-killed.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "evaluation/model_inputs.h"
#include "runtime/interpreter.h"
#include "runtime/model.h"

namespace {

// Bounds for one input: tensors (arena + dynamic) and WHILE iterations. 4 MiB keeps one execution
// (coverage-instrumented reference kernels under ASan) well inside libFuzzer's timeout: a few shared
// models of that size already take seconds; models above it exercise the refusal instead.
constexpr uint64_t kMaxTensorBytes = uint64_t{4} << 20;
constexpr int64_t kMaxLoopIterations = 1000;

void Run(const std::shared_ptr<const touchstone::Model>& model, touchstone::KernelSet kernels) {
  touchstone::InterpreterOptions options;
  options.kernel_set = kernels;
  options.max_tensor_bytes = kMaxTensorBytes;
  options.max_loop_iterations = kMaxLoopIterations;
  auto interpreter = touchstone::Interpreter::Create(model, options);
  if (!interpreter.ok()) return;
  touchstone::Interpreter* interp = interpreter.value().get();
  if (!interp->AllocateTensors().ok()) return;
  auto inputs = touchstone::MakeInputData(touchstone::InputSpec(), interp);
  if (!inputs.ok()) return;
  for (size_t i = 0; i < inputs.value().size() && i < interp->inputs().size(); ++i) {
    TfLiteTensor* t = interp->input_tensor(i);
    const std::vector<uint8_t>& bytes = inputs.value()[i];
    if (t->data.raw != nullptr && !bytes.empty() && bytes.size() == t->bytes)
      std::memcpy(t->data.raw, bytes.data(), bytes.size());
  }
  if (!interp->Invoke().ok()) return;
  // A second Invoke: state carried between runs (variables, dynamic tensors) must stay sound.
  (void)interp->Invoke();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto model = touchstone::Model::FromBuffer(std::vector<uint8_t>(data, data + size), "fuzz.tflite");
  if (!model.ok()) return 0;
  // Both kernel sets: the reference kernels (the CPU reference delegates are judged against) and the
  // optimized ones (benchmark_model's default).
  Run(model.value(), touchstone::KernelSet::kReference);
  Run(model.value(), touchstone::KernelSet::kOptimized);
  return 0;
}
