// Writes .tflite files: tests build small graphs with it, and the README's demo builds its default
// model with it. The output is an ordinary TFLite flatbuffer (identifier TFL3, schema version 3).
#ifndef TOUCHSTONE_RUNTIME_MODEL_BUILDER_H_
#define TOUCHSTONE_RUNTIME_MODEL_BUILDER_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "runtime/c/common.h"
#include "runtime/schema/schema_generated.h"

namespace touchstone {

class ModelBuilder {
 public:
  ModelBuilder();

  // Tensors of the current subgraph. Returns the tensor index within that subgraph.
  int AddTensor(TfLiteType type, const std::vector<int>& shape, const std::string& name = "");
  // A constant tensor whose bytes live in its own buffer.
  int AddConstTensor(TfLiteType type, const std::vector<int>& shape, const void* data, size_t bytes,
                     const std::string& name = "");
  template <typename T>
  int AddConstTensor(TfLiteType type, const std::vector<int>& shape, const std::vector<T>& values,
                     const std::string& name = "") {
    return AddConstTensor(type, shape, values.data(), values.size() * sizeof(T), name);
  }
  // Affine quantization; one scale/zero point per tensor, or per channel along quantized_dimension.
  void SetQuantization(int tensor, const std::vector<float>& scales, const std::vector<int64_t>& zero_points,
                       int quantized_dimension = 0);
  void SetShapeSignature(int tensor, const std::vector<int>& shape_signature);
  void SetVariable(int tensor, bool is_variable);

  // Options tables are built directly on this builder, e.g.
  //   b.AddOperator(kTfLiteBuiltinConv2d, {in, w, bias}, {out}, fb::BuiltinOptions::Conv2DOptions,
  //                 fb::CreateConv2DOptions(b.fbb(), fb::Padding::SAME, 1, 1).Union());
  flatbuffers::FlatBufferBuilder& fbb() { return fbb_; }
  int AddOperator(int builtin_code, const std::vector<int>& inputs, const std::vector<int>& outputs,
                  fb::BuiltinOptions options_type = fb::BuiltinOptions::NONE, flatbuffers::Offset<void> options = 0,
                  int version = 1);
  // The intermediate tensors of operator `op` (e.g. an integer LSTM's gate and hidden scales).
  void SetIntermediates(int op, const std::vector<int>& intermediates);
  int AddCustomOperator(const std::string& custom_code, const std::vector<int>& inputs, const std::vector<int>& outputs,
                        const std::vector<uint8_t>& custom_options = {});
  void SetInputs(const std::vector<int>& inputs);
  void SetOutputs(const std::vector<int>& outputs);

  // Subgraph 0 exists from the start; AddSubgraph makes a new one current and returns its index.
  int AddSubgraph(const std::string& name = "");
  void SetCurrentSubgraph(int index);
  int current_subgraph() const { return current_; }

  // A signature over subgraph `subgraph_index`: (name in the signature, tensor index) pairs.
  void AddSignature(const std::string& key, int subgraph_index, const std::vector<std::pair<std::string, int>>& inputs,
                    const std::vector<std::pair<std::string, int>>& outputs);

  void SetDescription(const std::string& description) { description_ = description; }

  // Serializes the model. The builder may not be used after Finish.
  std::vector<uint8_t> Finish();

 private:
  struct TensorSpec {
    TfLiteType type;
    std::vector<int> shape;
    std::vector<int> shape_signature;
    std::string name;
    uint32_t buffer = 0;
    std::vector<float> scales;
    std::vector<int64_t> zero_points;
    int quantized_dimension = 0;
    bool is_variable = false;
  };
  struct OperatorSpec {
    uint32_t opcode_index;
    std::vector<int> inputs;
    std::vector<int> outputs;
    fb::BuiltinOptions options_type;
    flatbuffers::Offset<void> options;
    std::vector<uint8_t> custom_options;
    std::vector<int> intermediates;
  };
  struct SubgraphSpec {
    std::string name;
    std::vector<TensorSpec> tensors;
    std::vector<OperatorSpec> operators;
    std::vector<int> inputs;
    std::vector<int> outputs;
  };
  struct SignatureSpec {
    std::string key;
    int subgraph_index;
    std::vector<std::pair<std::string, int>> inputs;
    std::vector<std::pair<std::string, int>> outputs;
  };
  struct OpcodeSpec {
    int builtin_code;
    std::string custom_code;
    int version;
  };

  uint32_t OpcodeIndex(int builtin_code, const std::string& custom_code, int version);

  flatbuffers::FlatBufferBuilder fbb_;
  std::vector<std::vector<uint8_t>> buffers_;  // buffer 0 is the empty sentinel
  std::vector<OpcodeSpec> opcodes_;
  std::vector<SubgraphSpec> subgraphs_;
  std::vector<SignatureSpec> signatures_;
  std::string description_ = "Touchstone ModelBuilder";
  int current_ = 0;
};

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_MODEL_BUILDER_H_
