// Reading TensorFlow Lite model metadata: the flatbuffer (metadata_schema.fbs, file identifier "M001")
// a .tflite file keeps in the buffer its `metadata` entry "TFLITE_METADATA" names. Only what the
// evaluation tools use is read: the NormalizationOptions (mean, std) of a subgraph input.
#ifndef TOUCHSTONE_DATASETS_MODEL_METADATA_H_
#define TOUCHSTONE_DATASETS_MODEL_METADATA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/model.h"
#include "runtime/status.h"

namespace touchstone {

// The name of the model's metadata entry that holds TFLite metadata.
constexpr const char kTfLiteMetadataName[] = "TFLITE_METADATA";

// Per-channel normalisation (x - mean) / std; one value stands for every channel.
struct MetadataNormalization {
  std::vector<float> mean;
  std::vector<float> std;
};

// The NormalizationOptions of input `input_index` of subgraph 0 (the first such process unit).
// Errors (kInvalidInput, naming the model): no TFLITE_METADATA entry, a buffer that is not valid
// metadata (fails the FlatBuffers verifier or lacks the "M001" identifier), no metadata for that
// input, no NormalizationOptions there, or values that cannot normalise (an empty list, lists of
// different lengths other than one value against many, a non-finite value, a std of 0).
StatusOr<MetadataNormalization> ReadInputNormalization(const Model& model, int input_index);

// The same from a metadata flatbuffer alone (`name` labels errors).
StatusOr<MetadataNormalization> ParseInputNormalization(const std::vector<uint8_t>& bytes, int input_index,
                                                        const std::string& name);

}  // namespace touchstone

#endif  // TOUCHSTONE_DATASETS_MODEL_METADATA_H_
