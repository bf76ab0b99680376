// Translating TFLite nodes into an XNNPACK subgraph (internal to the XNNPACK delegate).
//
// One GraphTranslator per delegated partition (or per support query). Each op has one visitor used
// twice: first to check a node (types, quantization, static weights, and that every tensor's shape
// is what the op computes from its inputs, so XNNPACK is never handed shapes that disagree), then, with
// an xnn_subgraph_t, to define it. Checking and defining cannot drift apart.
#ifndef TOUCHSTONE_DELEGATES_XNNPACK_XNNPACK_GRAPH_H_
#define TOUCHSTONE_DELEGATES_XNNPACK_XNNPACK_GRAPH_H_

#include <xnnpack.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "delegates/xnnpack/xnnpack_delegate.h"
#include "runtime/c/common.h"
#include "runtime/status.h"

namespace touchstone {
namespace xnnpack {

// What the delegate learns about a subgraph before looking at its nodes one by one.
struct GraphInfo {
  // Tensors computed by a DEQUANTIZE of a constant (float16, int8 or uint8 weights): output -> input.
  // The delegate folds them into float32 constants, as TFLite's XNNPACK delegate does.
  std::map<int, int> quasi_static;
  // Tensors whose shape may change at run time: computed from data (a RESHAPE to a computed shape, a
  // SLICE with computed bounds, WHERE, control flow, ...), or downstream of such a tensor. The shapes
  // the file gives them cannot be trusted, so the delegate leaves their nodes alone (static shapes only).
  std::set<int> maybe_dynamic;
};

// Analyses `context`'s execution plan.
GraphInfo AnalyzeGraph(TfLiteContext* context);

class GraphTranslator {
 public:
  // `extra` (may be null): its declined_float_builtins are ops whose float32 nodes Check refuses
  // (they stay on the interpreter's kernels; the provider's --xnnpack_fp32=auto), node by node where
  // its cpu_kernel_state tells.
  GraphTranslator(TfLiteContext* context, uint32_t flags, const GraphInfo* info,
                  const XnnpackExtraOptions* extra = nullptr);

  // Check mode: whether the node can be defined, else why (why_not()).
  bool Check(int node_index, const TfLiteNode* node, const TfLiteRegistration* registration);
  // Whether Check would refuse the node for its int8 or uint8 output 0 alone, the flags leaving
  // that type off (every Visit checks output 0 as data, which refuses it): a delegate asking about
  // each node of an 8-bit graph skips composing reasons nobody reads. why_not() stays unset.
  bool RefusesEightBitOutput(const TfLiteNode* node) const;
  // A DEQUANTIZE of computed int8 or uint8 data this delegate takes: the float rule does not keep it
  // on the optimized kernels, where it would split the 8-bit partition that produces its input.
  bool DequantizesTakenEightBit(const TfLiteNode* node, const TfLiteRegistration* registration) const;

  // Define mode: Check must have accepted every node first (it also notes which constants need a
  // padded copy). external_inputs / external_outputs are tensor indices (the partition's boundary);
  // constants and folded weights among them become static values instead.
  bool BeginDefine(xnn_subgraph_t subgraph, const std::set<int>& external_inputs,
                   const std::set<int>& external_outputs);
  // XNNPACK's external value ids: the partition's boundary tensors (Boundary) numbered 0, 1, ... in
  // tensor order; the subgraph is created with that many, so its value table is sized by the
  // partition, not by the model's tensors.
  static std::set<int> Boundary(const std::set<int>& external_inputs, const std::set<int>& external_outputs);
  uint32_t ExternalId(int tensor) const { return external_ids_.at(tensor); }
  bool Define(int node_index, const TfLiteNode* node, const TfLiteRegistration* registration);

  const std::string& why_not() const { return why_; }
  // Whether a value was defined for `tensor`.
  bool HasValue(int tensor) const { return values_.count(tensor) != 0; }
  // Number of XNNPACK nodes defined so far.
  int nodes_defined() const { return nodes_defined_; }
  // The float32 data of a folded weight tensor (with XNN_EXTRA_BYTES of slack after it); null for
  // other tensors. For partition outputs the kernel fills from it.
  const std::vector<float>* FoldedData(int tensor);
  bool IsFolded(int tensor) const { return info_->quasi_static.count(tensor) != 0; }

 private:
  enum class Mode { kCheck, kDefine };

  Status Visit(int node_index, const TfLiteNode* node, const TfLiteRegistration* registration);
  // A refusal (check mode) or a failed definition, with the reason why_not() reports.
  Status Fail(const std::string& message);
  // Keeps the reason of a refusal for why_not(); true when the node was taken.
  bool Taken(const Status& status);
  Status XnnOk(enum xnn_status status, const char* what);

  const TfLiteTensor& Tensor(int index) const { return context_->tensors[index]; }
  std::string Name(int index) const;
  std::vector<int> Dims(int index) const;
  bool IsStatic(int index) const;

  // Type and quantization checks on a tensor a node reads or writes as data.
  Status CheckData(int index, bool allow_float, bool allow_quantized, const char* role);
  bool QuantizedAllowed(TfLiteType type) const;
  Status PerTensorQuant(int index, float* scale, int32_t* zero_point);
  Status SameQuantization(int a, int b);
  // A data input and an output of one type and (quantized) one scale and zero point.
  Status CheckSameTypeData(int input, int output, bool allow_quantized);

  // A weighted op's (convolution, fully connected) tensors and the type it computes in.
  struct WeightedTensors {
    int input, filter, bias, output;  // bias: -1 when the node has none
    TfLiteType type;
  };
  // What a weighted op takes as filter and bias; the refusals keep each op's wording.
  struct FilterRules {
    const char* float_refusal;        // a float op's filter is neither float32 nor folded
    int per_channel_dimension;        // the filter dimension per-channel scales run along; -1: none taken
    const char* per_channel_refusal;  // with per_channel_dimension -1: why a per-channel filter is refused
    bool bias_shape_with_type;        // a quantized bias's shape is refused with its type ("int32 [n]")
  };
  // Reads the tensors (the filter is input 1) and checks the input and output as data of one type.
  Status CheckWeightedTensors(const TfLiteNode* node, int input_slot, int bias_slot, WeightedTensors* tensors);
  // The filter's and bias's types and quantization, the requantization and bias scales, the bias shape.
  Status CheckWeights(const WeightedTensors& tensors, int out_channels, const FilterRules& rules);
  // Per-channel filter scales positive and normal, zero points 0; the smallest and largest scale.
  Status CheckChannelScales(const TfLiteAffineQuantization* quantization, float* scale_min, float* scale_max);
  // CONV_2D's and DEPTHWISE_CONV_2D's strides, dilations, padding and fused activation (their options
  // name them alike), and the output shape they give.
  template <typename ConvParams>
  Status CheckConvWindow(const ConvParams& params, const std::vector<int>& in, int kh, int kw, int out_channels,
                         const std::vector<int>& out, float* lo, float* hi);

  // Values. `packed`: the op copies (packs) the data when the runtime is created, so a constant may be
  // used in place; otherwise XNNPACK reads it at every run, possibly XNN_EXTRA_BYTES past its end, so
  // it gets a padded copy.
  void UseStatic(int index, bool packed);
  StatusOr<uint32_t> Value(int index, bool packed = false);
  StatusOr<uint32_t> BiasValue(int bias, int input, int filter, int out_channels, TfLiteType float_or_quant);
  StatusOr<uint32_t> ZeroBias(int out_channels, int input, int filter, bool quantized);
  StatusOr<uint32_t> InternalValue(int like_tensor, const std::vector<size_t>& dims);
  StatusOr<uint32_t> ReshapedStatic(int index, const std::vector<size_t>& dims);
  // The bias value of a quantized weighted op: int32 at input scale times filter scale(s).
  StatusOr<uint32_t> QuantizedBias(const void* data, int out_channels, int input, int filter, const char* what);
  const void* StaticData(int index, bool packed);
  Status MarkProduced(int index);
  // Define mode: the values of a weighted op's tensors (a zero bias when it has none), its output
  // marked produced.
  struct WeightedValues {
    uint32_t input, filter, bias, output;
  };
  StatusOr<WeightedValues> DefineWeightedValues(const WeightedTensors& tensors, int out_channels);
  // Define mode: the values of a node's data input and of its output, marked produced.
  Status InputOutputValues(int input, int output, uint32_t* input_value, uint32_t* output_value);
  // Counts a node XNNPACK defined; the failure names `what`.
  Status Defined(enum xnn_status status, const char* what);

  // Op visitors.
  Status VisitBinary(int op, const TfLiteNode* node, const void* params);
  Status VisitConv2D(const TfLiteNode* node, const void* params);
  Status VisitDepthwiseConv2D(const TfLiteNode* node, const void* params);
  Status VisitFullyConnected(const TfLiteNode* node, const void* params);
  Status VisitTransposeConv(const TfLiteNode* node, const void* params);
  Status VisitPool(int op, const TfLiteNode* node, const void* params);
  Status VisitMean(const TfLiteNode* node, const void* params);
  Status VisitUnary(int op, const TfLiteNode* node, const void* params);
  Status VisitClamp(const TfLiteNode* node, float lo, float hi);
  Status VisitSoftmax(const TfLiteNode* node, const void* params);
  Status VisitLogistic(const TfLiteNode* node);
  Status VisitPrelu(const TfLiteNode* node);
  Status VisitPad(int op, const TfLiteNode* node);
  Status VisitReshape(int op, const TfLiteNode* node);
  Status VisitResizeBilinear(const TfLiteNode* node, const void* params);
  Status VisitDepthToSpace(const TfLiteNode* node, const void* params);
  Status VisitQuantize(const TfLiteNode* node);
  Status VisitDequantize(const TfLiteNode* node);

  // Requantization scale input_scale * filter_scale / output_scale, as XNNPACK accepts it; and a
  // per-tensor bias scale close to input_scale * filter_scale, as the reference kernels demand.
  // filter_scale_min/max: the filter's smallest and largest scale (CheckChannelScales, or its one
  // per-tensor scale).
  Status CheckRequantization(int input, int filter, int output, float filter_scale_min, float filter_scale_max);
  Status CheckBiasScale(int input, int filter, int bias, int output);

  TfLiteContext* context_;
  uint32_t flags_;
  const GraphInfo* info_;
  const XnnpackExtraOptions* extra_;
  Mode mode_ = Mode::kCheck;
  std::string why_;

  // Check mode notes constants read unpacked (they get padded copies in define mode).
  std::set<int> unpacked_constants_;

  // Define mode.
  xnn_subgraph_t subgraph_ = nullptr;
  std::set<int> external_inputs_;
  std::set<int> external_outputs_;
  std::map<int, uint32_t> external_ids_;  // boundary tensor -> XNNPACK external value id
  std::map<int, uint32_t> values_;
  std::set<int> produced_;
  int nodes_defined_ = 0;
  // Storage whose lifetime must cover the runtime's: padded copies, folded weights, zero biases,
  // per-channel scales.
  std::vector<std::unique_ptr<uint8_t[]>> buffers_;
  std::map<int, std::vector<float>> folded_;
  std::vector<std::unique_ptr<std::vector<float>>> scales_;
};

}  // namespace xnnpack
}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_XNNPACK_XNNPACK_GRAPH_H_
