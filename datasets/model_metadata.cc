#include "datasets/model_metadata.h"

#include <cmath>
#include <string>

#include "datasets/metadata_schema_generated.h"

namespace touchstone {

StatusOr<MetadataNormalization> ParseInputNormalization(const std::vector<uint8_t>& bytes, int input_index,
                                                        const std::string& name) {
  const std::string where = name + ": " + kTfLiteMetadataName;
  // The bytes are a copy in a vector, so the verifier's alignment checks hold whatever the model's layout.
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (bytes.size() < 8 || !metadata::ModelMetadataBufferHasIdentifier(bytes.data()) ||
      !metadata::VerifyModelMetadataBuffer(verifier)) {
    return InvalidInputError(where + " is not valid TFLite metadata (identifier M001, metadata_schema.fbs)");
  }
  const metadata::ModelMetadata* model = metadata::GetModelMetadata(bytes.data());
  const auto* subgraphs = model->subgraph_metadata();
  if (subgraphs == nullptr || subgraphs->size() == 0 || subgraphs->Get(0) == nullptr) {
    return InvalidInputError(where + " has no subgraph metadata");
  }
  const auto* inputs = subgraphs->Get(0)->input_tensor_metadata();
  if (inputs == nullptr || input_index < 0 || static_cast<size_t>(input_index) >= inputs->size() ||
      inputs->Get(input_index) == nullptr) {
    return InvalidInputError(where + " describes no input " + std::to_string(input_index));
  }
  const metadata::TensorMetadata* tensor = inputs->Get(input_index);
  const std::string tensor_name = tensor->name() != nullptr ? " ('" + tensor->name()->str() + "')" : "";
  const metadata::NormalizationOptions* options = nullptr;
  if (tensor->process_units() != nullptr) {
    for (const metadata::ProcessUnit* unit : *tensor->process_units()) {
      if (unit != nullptr && unit->options_as_NormalizationOptions() != nullptr) {
        options = unit->options_as_NormalizationOptions();
        break;
      }
    }
  }
  if (options == nullptr) {
    return InvalidInputError(where + ": input " + std::to_string(input_index) + tensor_name +
                             " has no NormalizationOptions");
  }
  MetadataNormalization normalization;
  if (options->mean() != nullptr) normalization.mean.assign(options->mean()->begin(), options->mean()->end());
  if (options->std() != nullptr) normalization.std.assign(options->std()->begin(), options->std()->end());
  const size_t m = normalization.mean.size(), s = normalization.std.size();
  if (m == 0 || s == 0 || (m != s && m != 1 && s != 1)) {
    return InvalidInputError(where + ": input " + std::to_string(input_index) + tensor_name + " has " +
                             std::to_string(m) + " mean and " + std::to_string(s) + " std values");
  }
  for (float v : normalization.mean) {
    if (!std::isfinite(v)) return InvalidInputError(where + ": a mean value is not finite");
  }
  for (float v : normalization.std) {
    if (!std::isfinite(v) || v == 0.0f) return InvalidInputError(where + ": a std value is 0 or not finite");
  }
  return normalization;
}

StatusOr<MetadataNormalization> ReadInputNormalization(const Model& model, int input_index) {
  const auto* entries = model.fb()->metadata();
  if (entries != nullptr) {
    for (const fb::Metadata* entry : *entries) {
      if (entry == nullptr || entry->name() == nullptr || entry->name()->str() != kTfLiteMetadataName) continue;
      size_t bytes = 0;
      const uint8_t* data = model.BufferData(entry->buffer(), &bytes);
      if (data == nullptr)
        return InvalidInputError(model.name() + ": " + kTfLiteMetadataName + " names an empty buffer");
      return ParseInputNormalization(std::vector<uint8_t>(data, data + bytes), input_index, model.name());
    }
  }
  return InvalidInputError(model.name() + ": the model has no " + kTfLiteMetadataName);
}

}  // namespace touchstone
