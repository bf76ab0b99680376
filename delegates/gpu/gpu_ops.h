// What the GPU delegate computes, independent of Vulkan: which nodes it takes (types, shapes and
// options it supports), and how each one becomes compute dispatches over device values.
//
// A partition is planned in its kernel's Prepare, node by node in plan order: each op reads its
// inputs' shapes, sets its outputs' shapes, and emits dispatches (a shader, the values bound to it,
// its push constants, how many work items). Values are the partition's tensors as device buffers, plus
// temporaries; RESHAPE-like ops alias their input instead of copying it, and DEQUANTIZE of a constant
// becomes a constant value (folded at init). Every device value holds float numbers (float32, or
// float16 in reduced precision): quantized tensors hold their real values, kept on their quantization
// grid by each op's epilogue.
#ifndef TOUCHSTONE_DELEGATES_GPU_GPU_OPS_H_
#define TOUCHSTONE_DELEGATES_GPU_GPU_OPS_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "delegates/gpu/shader_library.h"
#include "runtime/c/common.h"
#include "runtime/status.h"

namespace touchstone {
namespace gpu {

constexpr int kMaxRank = 6;
constexpr int kMaxInputBindings = 5;

struct OpSettings {
  // Quantized tensors (int8, uint8, int16 activations; quantized constant weights) are taken.
  bool enable_quant = true;
};

// Whether the delegate takes `node`; when not, *why says what it lacks (for logs and tests).
bool IsNodeSupported(TfLiteContext* context, const TfLiteNode* node, const TfLiteRegistration* registration,
                     const OpSettings& settings, std::string* why);

// The op codes the delegate knows at all (some only with some types, shapes or options).
const std::vector<int>& SupportedBuiltinCodes();

// A value of the partition on the device.
struct Value {
  enum class Kind { kInternal, kInput, kConstant, kTemporary };
  Kind kind = Kind::kInternal;
  int tensor = -1;         // interpreter tensor, -1 for temporaries
  bool is_output = false;  // a partition output (read back after each run)
  std::vector<int> shape;
  int alias_of = -1;                             // shares the storage of this value (same elements, other shape)
  const std::vector<float>* constant = nullptr;  // kConstant: the data (as float)
  // Quantization grid of a quantized tensor (real value = (q - zero_point) * scale): dispatches
  // writing the value round to it; q_scale 0 for float tensors and temporaries.
  float q_scale = 0.0f;
  float q_lo = 0.0f;  // q_min - zero_point
  float q_hi = 0.0f;  // q_max - zero_point
};

struct Dispatch {
  ShaderId shader = ShaderId::kCopy;
  int output = -1;                                                   // binding 0
  std::array<int, kMaxInputBindings> inputs = {-1, -1, -1, -1, -1};  // bindings 1..5; -1: unused
  std::vector<uint32_t> push;
  uint64_t work_items = 0;
  int node_index = -1;
  std::string op_name;
};

struct Plan {
  std::vector<Value> values;
  std::vector<Dispatch> dispatches;
  std::map<int, int> tensor_values;  // tensor index -> value id
};

// Constants as floats, kept by the kernel across Prepare calls (weights are dequantized once).
using ConstantCache = std::map<int, std::unique_ptr<std::vector<float>>>;

// Plans the nodes of one partition.
class Planner {
 public:
  Planner(TfLiteContext* context, const std::set<int>& partition_outputs, ConstantCache* constants, Plan* plan)
      : context_(context), partition_outputs_(partition_outputs), constants_(constants), plan_(plan) {}

  // Emits the node's dispatches; errors name the node and what is wrong.
  Status PlanNode(int node_index, const TfLiteNode* node, const TfLiteRegistration* registration);

  // -- for the op planners --
  TfLiteContext* context() const { return context_; }
  const TfLiteTensor& tensor(int index) const { return context_->tensors[index]; }
  // The value of an input tensor: planned before, a constant, or a partition input.
  StatusOr<int> InputValue(int tensor);
  // Defines the value of an output tensor with this shape.
  int OutputValue(int tensor, const std::vector<int>& shape);
  // Defines an output tensor as a constant computed now (folded DEQUANTIZE).
  int ConstantOutput(int tensor, std::vector<float> data);
  // Defines an output tensor as another shape of `source` (no copy), when their grids agree.
  int AliasOutput(int tensor, int source, const std::vector<int>& shape);
  int Temporary(const std::vector<int>& shape);
  const Value& value(int id) const { return plan_->values[id]; }
  // A copy: planning adds values, which moves the others.
  std::vector<int> shape(int id) const { return plan_->values[id].shape; }
  void Emit(Dispatch dispatch);
  int node_index() const { return node_index_; }
  const std::string& op_name() const { return op_name_; }

 private:
  TfLiteContext* context_;
  const std::set<int>& partition_outputs_;
  ConstantCache* constants_;
  Plan* plan_;
  int node_index_ = -1;
  std::string op_name_;
};

// A tensor's elements as float: float32 as is, float16 widened, quantized types dequantized (per
// tensor or per channel). Errors for other types.
StatusOr<std::vector<float>> TensorAsFloat(const TfLiteTensor& tensor);

// The quantization of a quantized activation tensor (one scale): real = (q - zero_point) * scale.
struct QuantGrid {
  float scale = 0.0f;
  int32_t zero_point = 0;
  int32_t q_min = 0;
  int32_t q_max = 0;
};
// False for float tensors.
bool ActivationGrid(const TfLiteTensor& tensor, QuantGrid* grid);

}  // namespace gpu
}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_GPU_GPU_OPS_H_
