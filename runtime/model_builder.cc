#include "runtime/model_builder.h"

#include <algorithm>
#include <utility>

namespace touchstone {

namespace {

// The schema type of each C API type, indexed by TfLiteType. kTfLiteNoType and values past the
// table come out as an out-of-range schema type, which loaders reject.
constexpr fb::TensorType kNoSchemaType = static_cast<fb::TensorType>(127);
using TT = fb::TensorType;
constexpr TT kSchemaTypes[] = {kNoSchemaType, TT::FLOAT32, TT::INT32,      TT::UINT8,     TT::INT64,
                               TT::STRING,    TT::BOOL,    TT::INT16,      TT::COMPLEX64, TT::INT8,
                               TT::FLOAT16,   TT::FLOAT64, TT::COMPLEX128, TT::UINT64,    TT::RESOURCE,
                               TT::VARIANT,   TT::UINT32,  TT::UINT16,     TT::INT4};
static_assert(sizeof(kSchemaTypes) / sizeof(kSchemaTypes[0]) == kTfLiteInt4 + 1, "one schema type per TfLiteType");

fb::TensorType SchemaType(TfLiteType type) {
  const int t = static_cast<int>(type);
  return t >= 0 && t <= kTfLiteInt4 ? kSchemaTypes[t] : kNoSchemaType;
}

// The only schema version TFLite reads.
constexpr uint32_t kSchemaVersion = 3;

template <typename T>
flatbuffers::Offset<flatbuffers::Vector<T>> VectorOrNull(flatbuffers::FlatBufferBuilder& fbb,
                                                         const std::vector<T>& values) {
  return values.empty() ? 0 : fbb.CreateVector(values);
}

flatbuffers::Offset<flatbuffers::String> StringOrNull(flatbuffers::FlatBufferBuilder& fbb, const std::string& s) {
  return s.empty() ? 0 : fbb.CreateString(s);
}

}  // namespace

ModelBuilder::ModelBuilder() {
  buffers_.emplace_back();  // buffer 0: the empty sentinel
  subgraphs_.emplace_back();
}

int ModelBuilder::AddTensor(TfLiteType type, const std::vector<int>& shape, const std::string& name) {
  TensorSpec spec;
  spec.type = type;
  spec.shape = shape;
  spec.name = name;
  auto& tensors = subgraphs_[current_].tensors;
  tensors.push_back(std::move(spec));
  return static_cast<int>(tensors.size()) - 1;
}

int ModelBuilder::AddConstTensor(TfLiteType type, const std::vector<int>& shape, const void* data, size_t bytes,
                                 const std::string& name) {
  const int tensor = AddTensor(type, shape, name);
  const uint8_t* begin = static_cast<const uint8_t*>(data);
  buffers_.emplace_back(begin, begin + (data != nullptr ? bytes : 0));
  subgraphs_[current_].tensors[tensor].buffer = static_cast<uint32_t>(buffers_.size() - 1);
  return tensor;
}

void ModelBuilder::SetQuantization(int tensor, const std::vector<float>& scales,
                                   const std::vector<int64_t>& zero_points, int quantized_dimension) {
  TensorSpec& spec = subgraphs_[current_].tensors[tensor];
  spec.scales = scales;
  spec.zero_points = zero_points;
  spec.quantized_dimension = quantized_dimension;
}

void ModelBuilder::SetShapeSignature(int tensor, const std::vector<int>& shape_signature) {
  subgraphs_[current_].tensors[tensor].shape_signature = shape_signature;
}

void ModelBuilder::SetVariable(int tensor, bool is_variable) {
  subgraphs_[current_].tensors[tensor].is_variable = is_variable;
}

uint32_t ModelBuilder::OpcodeIndex(int builtin_code, const std::string& custom_code, int version) {
  for (size_t i = 0; i < opcodes_.size(); ++i) {
    const OpcodeSpec& c = opcodes_[i];
    if (c.builtin_code == builtin_code && c.custom_code == custom_code && c.version == version) {
      return static_cast<uint32_t>(i);
    }
  }
  opcodes_.push_back({builtin_code, custom_code, version});
  return static_cast<uint32_t>(opcodes_.size() - 1);
}

int ModelBuilder::AddOperator(int builtin_code, const std::vector<int>& inputs, const std::vector<int>& outputs,
                              fb::BuiltinOptions options_type, flatbuffers::Offset<void> options, int version) {
  auto& ops = subgraphs_[current_].operators;
  ops.push_back({OpcodeIndex(builtin_code, "", version), inputs, outputs, options_type, options, {}});
  return static_cast<int>(ops.size()) - 1;
}

void ModelBuilder::SetIntermediates(int op, const std::vector<int>& intermediates) {
  subgraphs_[current_].operators[op].intermediates = intermediates;
}

int ModelBuilder::AddCustomOperator(const std::string& custom_code, const std::vector<int>& inputs,
                                    const std::vector<int>& outputs, const std::vector<uint8_t>& custom_options) {
  const uint32_t opcode = OpcodeIndex(static_cast<int>(fb::BuiltinOperator::CUSTOM), custom_code, /*version=*/1);
  auto& ops = subgraphs_[current_].operators;
  ops.push_back({opcode, inputs, outputs, fb::BuiltinOptions::NONE, 0, custom_options});
  return static_cast<int>(ops.size()) - 1;
}

void ModelBuilder::SetInputs(const std::vector<int>& inputs) { subgraphs_[current_].inputs = inputs; }

void ModelBuilder::SetOutputs(const std::vector<int>& outputs) { subgraphs_[current_].outputs = outputs; }

int ModelBuilder::AddSubgraph(const std::string& name) {
  subgraphs_.emplace_back();
  subgraphs_.back().name = name;
  current_ = static_cast<int>(subgraphs_.size()) - 1;
  return current_;
}

void ModelBuilder::SetCurrentSubgraph(int index) { current_ = index; }

void ModelBuilder::AddSignature(const std::string& key, int subgraph_index,
                                const std::vector<std::pair<std::string, int>>& inputs,
                                const std::vector<std::pair<std::string, int>>& outputs) {
  signatures_.push_back({key, subgraph_index, inputs, outputs});
}

std::vector<uint8_t> ModelBuilder::Finish() {
  flatbuffers::FlatBufferBuilder& fbb = fbb_;

  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  for (const std::vector<uint8_t>& data : buffers_) {
    flatbuffers::Offset<flatbuffers::Vector<uint8_t>> vec = 0;
    if (!data.empty()) {
      fbb.ForceVectorAlignment(data.size(), sizeof(uint8_t), 16);
      vec = fbb.CreateVector(data);
    }
    buffers.push_back(fb::CreateBuffer(fbb, vec));
  }

  std::vector<flatbuffers::Offset<fb::OperatorCode>> opcodes;
  for (const OpcodeSpec& c : opcodes_) {
    const int8_t deprecated = static_cast<int8_t>(
        std::min(c.builtin_code, static_cast<int>(fb::BuiltinOperator::PLACEHOLDER_FOR_GREATER_OP_CODES)));
    opcodes.push_back(fb::CreateOperatorCode(fbb, deprecated, StringOrNull(fbb, c.custom_code), c.version,
                                             static_cast<fb::BuiltinOperator>(c.builtin_code)));
  }

  std::vector<flatbuffers::Offset<fb::SubGraph>> subgraphs;
  for (const SubgraphSpec& sg : subgraphs_) {
    std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
    for (const TensorSpec& t : sg.tensors) {
      flatbuffers::Offset<fb::QuantizationParameters> quant = 0;
      if (!t.scales.empty() || !t.zero_points.empty()) {
        quant = fb::CreateQuantizationParameters(fbb, /*min=*/0, /*max=*/0, VectorOrNull(fbb, t.scales),
                                                 VectorOrNull(fbb, t.zero_points), fb::QuantizationDetails::NONE, 0,
                                                 t.quantized_dimension);
      }
      tensors.push_back(fb::CreateTensor(fbb, fbb.CreateVector(t.shape), SchemaType(t.type), t.buffer,
                                         fbb.CreateString(t.name), quant, t.is_variable,
                                         /*sparsity=*/0, VectorOrNull(fbb, t.shape_signature),
                                         /*has_rank=*/true));
    }
    std::vector<flatbuffers::Offset<fb::Operator>> ops;
    for (const OperatorSpec& op : sg.operators) {
      ops.push_back(fb::CreateOperator(fbb, op.opcode_index, fbb.CreateVector(op.inputs), fbb.CreateVector(op.outputs),
                                       op.options_type, op.options, VectorOrNull(fbb, op.custom_options),
                                       fb::CustomOptionsFormat::FLEXBUFFERS,
                                       /*mutating_variable_inputs=*/0, VectorOrNull(fbb, op.intermediates)));
    }
    subgraphs.push_back(fb::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(sg.inputs),
                                           fbb.CreateVector(sg.outputs), fbb.CreateVector(ops),
                                           fbb.CreateString(sg.name)));
  }

  auto tensor_maps = [&fbb](const std::vector<std::pair<std::string, int>>& pairs) {
    std::vector<flatbuffers::Offset<fb::TensorMap>> maps;
    for (const auto& p : pairs) {
      maps.push_back(fb::CreateTensorMap(fbb, fbb.CreateString(p.first), static_cast<uint32_t>(p.second)));
    }
    return fbb.CreateVector(maps);
  };
  std::vector<flatbuffers::Offset<fb::SignatureDef>> signatures;
  for (const SignatureSpec& s : signatures_) {
    const auto inputs = tensor_maps(s.inputs);
    const auto outputs = tensor_maps(s.outputs);
    signatures.push_back(
        fb::CreateSignatureDef(fbb, inputs, outputs, fbb.CreateString(s.key), static_cast<uint32_t>(s.subgraph_index)));
  }

  const auto model = fb::CreateModel(fbb, kSchemaVersion, fbb.CreateVector(opcodes), fbb.CreateVector(subgraphs),
                                     fbb.CreateString(description_), fbb.CreateVector(buffers), /*metadata_buffer=*/0,
                                     /*metadata=*/0, signatures.empty() ? 0 : fbb.CreateVector(signatures));
  fbb.Finish(model, fb::ModelIdentifier());
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace touchstone
