// Input tensors for a benchmark run, as TFLite's benchmark_model makes them: shapes from
// --input_layer/--input_layer_shape, values from files (--input_layer_value_files, raw bytes of the
// tensor's type) or random (one mt19937 with its default seed, drawn through the inputs in order, with
// TFLite's per-type ranges: float32/float64/complex64 U[-0.5,0.5], int32/uint32/int64 [0,99], uint8
// [0,254], int8 [-127,127], bool {0,1}, int16 zeros; --input_layer_value_range replaces the range of an
// input, int16 included).
//
// Inputs are named by tensor name, or, when a signature is benchmarked, also by the signature's name
// for them. TFLite matches --input_layer to the model's inputs by position and only warns when the
// names differ; Touchstone matches by name and refuses a name the model lacks (docs/benchmark_model.md).
#ifndef TOUCHSTONE_EVALUATION_MODEL_INPUTS_H_
#define TOUCHSTONE_EVALUATION_MODEL_INPUTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/interpreter.h"
#include "runtime/status.h"

namespace touchstone {

struct InputSpec {
  std::vector<std::string> layer_names;                     // --input_layer (comma separated)
  std::vector<std::vector<int>> layer_shapes;               // --input_layer_shape ("1,224,224,3:1,10")
  std::map<std::string, std::pair<int, int>> value_ranges;  // --input_layer_value_range
  std::map<std::string, std::string> value_files;           // --input_layer_value_files
};

// Parses the four flags' texts. Errors name the flag and the bad item (StatusCode::kUsage).
StatusOr<InputSpec> ParseInputSpec(const std::string& input_layer, const std::string& input_layer_shape,
                                   const std::string& value_range, const std::string& value_files);

// Splits "a:b,c::d:e" on ',' and then on the one single ':' of each item ('::' stands for a literal
// ':', in the name and in the value alike, as TFLite's SplitInputLayerNameAndValueFile does).
StatusOr<std::map<std::string, std::string>> ParseNameValueList(const std::string& text, const std::string& flag);

// The tensors a benchmark feeds: a subgraph's inputs, and other names for them (a signature's).
struct InputTarget {
  Subgraph* subgraph = nullptr;
  std::map<std::string, int> aliases;  // another name -> tensor index in `subgraph`
};

// The target for the interpreter's primary subgraph, without aliases.
InputTarget PrimaryInputs(Interpreter* interpreter);

// Resizes the named inputs to the given shapes (before AllocateTensors). A name the target lacks is a
// usage error naming the flag.
Status ApplyInputShapes(const InputSpec& spec, const InputTarget& target);
Status ApplyInputShapes(const InputSpec& spec, Interpreter* interpreter);

// The bytes of every input of the target in input order: from its file where one is named, else
// random. A file of the wrong size, or an unreadable one, is an input error naming the file.
StatusOr<std::vector<std::vector<uint8_t>>> MakeInputData(const InputSpec& spec, const InputTarget& target);
StatusOr<std::vector<std::vector<uint8_t>>> MakeInputData(const InputSpec& spec, Interpreter* interpreter);

// Copies the bytes made by MakeInputData into the target's input tensors (before each run).
void CopyInputData(const std::vector<std::vector<uint8_t>>& data, const InputTarget& target);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_MODEL_INPUTS_H_
