// Input tensors for a benchmark run, as TFLite's benchmark_model makes them: shapes from
// --input_layer/--input_layer_shape, values from files (--input_layer_value_files, raw bytes of the
// tensor's type) or random (mt19937, fixed default seed, per-type ranges, --input_layer_value_range).
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
  std::vector<std::string> layer_names;            // --input_layer (comma separated)
  std::vector<std::vector<int>> layer_shapes;      // --input_layer_shape ("1,224,224,3:1,10")
  std::map<std::string, std::pair<int, int>> value_ranges;  // --input_layer_value_range
  std::map<std::string, std::string> value_files;  // --input_layer_value_files
};

// Parses the four flags' texts. Errors name the flag and the bad item (StatusCode::kUsage).
StatusOr<InputSpec> ParseInputSpec(const std::string& input_layer, const std::string& input_layer_shape,
                                   const std::string& value_range, const std::string& value_files);

// Splits "a:b,c::d:e" on ',' and then on the first single ':' ('::' stands for a literal ':').
StatusOr<std::map<std::string, std::string>> ParseNameValueList(const std::string& text,
                                                                const std::string& flag);

// Resizes the named inputs of the interpreter to the given shapes (before AllocateTensors).
Status ApplyInputShapes(const InputSpec& spec, Interpreter* interpreter);

// The bytes of every input in input order: from its file where one is named, else random.
StatusOr<std::vector<std::vector<uint8_t>>> MakeInputData(const InputSpec& spec,
                                                          Interpreter* interpreter);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_MODEL_INPUTS_H_
