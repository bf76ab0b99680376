#include "evaluation/model_inputs.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace {

// The items of a flag's list: none for an empty flag, else every piece between separators, empty ones too
// (which the callers refuse).
std::vector<std::string> Split(const std::string& text, char sep) {
  if (text.empty()) return {};
  return absl::StrSplit(text, sep);
}

// The tensor index of the target's input called `name` (its tensor name or an alias); -1 if none.
int FindInput(const InputTarget& target, const std::string& name) {
  auto alias = target.aliases.find(name);
  if (alias != target.aliases.end()) return alias->second;
  for (int index : target.subgraph->inputs()) {
    if (index < 0) continue;
    const char* tensor_name = target.subgraph->tensor(index)->name;
    if (tensor_name != nullptr && name == tensor_name) return index;
  }
  return -1;
}

// " (its inputs: a, b)" for error messages.
std::string InputNames(const InputTarget& target) {
  std::string names;
  for (int index : target.subgraph->inputs()) {
    if (index < 0) continue;
    const char* n = target.subgraph->tensor(index)->name;
    names += (names.empty() ? "" : ", ") + std::string(n != nullptr ? n : "");
  }
  for (const auto& alias : target.aliases) names += (names.empty() ? "" : ", ") + alias.first;
  return " (its inputs: " + (names.empty() ? std::string("none") : names) + ")";
}

template <typename T, typename Dist>
void FillRandom(std::mt19937* engine, Dist dist, std::vector<uint8_t>* bytes) {
  const size_t count = bytes->size() / sizeof(T);
  for (size_t i = 0; i < count; ++i) {
    const T v = static_cast<T>(dist(*engine));
    std::memcpy(bytes->data() + i * sizeof(T), &v, sizeof(T));
  }
}

}  // namespace

StatusOr<std::map<std::string, std::string>> ParseNameValueList(const std::string& text, const std::string& flag) {
  std::map<std::string, std::string> result;
  for (const std::string& item : Split(text, ',')) {
    // Exactly one ':' that is not part of '::' separates name from value.
    size_t split = std::string::npos;
    int delimiters = 0;
    for (size_t i = 0; i + 1 < item.size(); ++i) {
      if (item[i] != ':') continue;
      if (item[i + 1] == ':') {
        ++i;
        continue;
      }
      if (delimiters++ == 0) split = i;
    }
    if (delimiters != 1) {
      return UsageError("--" + flag + ": item '" + item + "' is not of the form name:value" +
                        (delimiters > 1 ? " (more than one ':'; write a ':' inside a name or path as '::')" : ""));
    }
    auto unescape = [](const std::string& part) {
      std::string out;
      for (size_t i = 0; i < part.size(); ++i) {
        out += part[i];
        if (part[i] == ':' && i + 1 < part.size() && part[i + 1] == ':') ++i;
      }
      return out;
    };
    const std::string name = unescape(item.substr(0, split));
    if (name.empty()) return UsageError("--" + flag + ": item '" + item + "' has an empty name");
    result[name] = unescape(item.substr(split + 1));
  }
  return result;
}

StatusOr<InputSpec> ParseInputSpec(const std::string& input_layer, const std::string& input_layer_shape,
                                   const std::string& value_range, const std::string& value_files) {
  InputSpec spec;
  spec.layer_names = Split(input_layer, ',');
  for (const std::string& shape_text : Split(input_layer_shape, ':')) {
    std::vector<int> shape;
    for (const std::string& dim_text : Split(shape_text, ',')) {
      int dim = 0;
      if (!absl::SimpleAtoi(dim_text, &dim) || dim < 0) {
        return UsageError("--input_layer_shape: '" + shape_text +
                          "' is not a list of non-negative dimensions (-1 is not allowed)");
      }
      shape.push_back(dim);
    }
    spec.layer_shapes.push_back(shape);
  }
  if (!spec.layer_shapes.empty() && spec.layer_shapes.size() != spec.layer_names.size()) {
    return UsageError("--input_layer names " + std::to_string(spec.layer_names.size()) +
                      " inputs but --input_layer_shape gives " + std::to_string(spec.layer_shapes.size()) + " shapes");
  }
  for (const std::string& item : Split(value_range, ':')) {
    const std::vector<std::string> parts = Split(item, ',');
    int low = 0, high = 0;
    if (parts.size() != 3 || !absl::SimpleAtoi(parts[1], &low) || !absl::SimpleAtoi(parts[2], &high) || low > high) {
      return UsageError("--input_layer_value_range: '" + item + "' is not name,low,high with low <= high");
    }
    spec.value_ranges[parts[0]] = {low, high};
  }
  TS_ASSIGN_OR_RETURN(spec.value_files, ParseNameValueList(value_files, "input_layer_value_files"));
  return spec;
}

InputTarget PrimaryInputs(Interpreter* interpreter) {
  InputTarget target;
  target.subgraph = interpreter->primary();
  return target;
}

Status ApplyInputShapes(const InputSpec& spec, const InputTarget& target) {
  for (size_t i = 0; i < spec.layer_shapes.size(); ++i) {
    const int tensor = FindInput(target, spec.layer_names[i]);
    if (tensor < 0) {
      return UsageError("--input_layer: the model has no input named '" + spec.layer_names[i] + "'" +
                        InputNames(target));
    }
    const TfLiteTensor* t = target.subgraph->tensor(tensor);
    const size_t rank = t->dims != nullptr ? static_cast<size_t>(t->dims->size) : 0;
    if (t->type != kTfLiteString && rank != spec.layer_shapes[i].size()) {
      // As TFLite's benchmark ("Input tensor #i should have N dimensions!").
      return UsageError("--input_layer_shape: input '" + spec.layer_names[i] + "' has " + std::to_string(rank) +
                        " dimensions " + ShapeString(t) + ", the shape given has " +
                        std::to_string(spec.layer_shapes[i].size()));
    }
    TS_RETURN_IF_ERROR(target.subgraph->ResizeInputTensor(tensor, spec.layer_shapes[i]));
  }
  return Status::Ok();
}

Status ApplyInputShapes(const InputSpec& spec, Interpreter* interpreter) {
  return ApplyInputShapes(spec, PrimaryInputs(interpreter));
}

StatusOr<std::vector<std::vector<uint8_t>>> MakeInputData(const InputSpec& spec, const InputTarget& target) {
  for (const auto& entry : spec.value_files) {
    if (FindInput(target, entry.first) < 0) {
      return UsageError("--input_layer_value_files: the model has no input named '" + entry.first + "'" +
                        InputNames(target));
    }
  }
  for (const auto& entry : spec.value_ranges) {
    if (FindInput(target, entry.first) < 0) {
      return UsageError("--input_layer_value_range: the model has no input named '" + entry.first + "'" +
                        InputNames(target));
    }
  }
  // Files and ranges by tensor index (a signature's name and the tensor's name reach the same input).
  std::map<int, std::string> files;
  for (const auto& entry : spec.value_files) files[FindInput(target, entry.first)] = entry.second;
  std::map<int, std::pair<int, int>> ranges;
  for (const auto& entry : spec.value_ranges) ranges[FindInput(target, entry.first)] = entry.second;

  std::mt19937 engine;  // default seed, as TFLite's benchmark; one engine through all inputs
  std::vector<std::vector<uint8_t>> data;
  Subgraph* subgraph = target.subgraph;
  for (int index : subgraph->inputs()) {
    if (index < 0) {
      data.emplace_back();
      continue;
    }
    const TfLiteTensor* t = subgraph->tensor(index);
    const std::string name = t->name != nullptr ? t->name : "";
    std::vector<uint8_t> bytes(t->bytes);
    auto file = files.find(index);
    if (file != files.end()) {
      std::ifstream in(file->second, std::ios::binary);
      if (!in) return InvalidInputError(file->second + ": cannot read input file for '" + name + "'");
      std::vector<uint8_t> content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (content.size() != t->bytes) {
        return InvalidInputError(file->second + ": has " + std::to_string(content.size()) + " bytes but input '" +
                                 name + "' needs " + std::to_string(t->bytes) + " (" + TfLiteTypeGetName(t->type) +
                                 ", shape " + ShapeString(t) + ")");
      }
      data.push_back(std::move(content));
      continue;
    }
    auto range = ranges.find(index);
    const bool has_range = range != ranges.end();
    const double low = has_range ? range->second.first : 0.0;
    const double high = has_range ? range->second.second : 0.0;
    auto pick = [&](double default_low, double default_high, double* lo, double* hi) {
      *lo = has_range ? low : default_low;
      *hi = has_range ? high : default_high;
    };
    double lo = 0, hi = 0;
    switch (t->type) {
      case kTfLiteFloat32:
        pick(-0.5, 0.5, &lo, &hi);
        FillRandom<float>(
            &engine, std::uniform_real_distribution<float>(static_cast<float>(lo), static_cast<float>(hi)), &bytes);
        break;
      case kTfLiteFloat64:
        pick(-0.5, 0.5, &lo, &hi);
        FillRandom<double>(&engine, std::uniform_real_distribution<double>(lo, hi), &bytes);
        break;
      case kTfLiteComplex64:
        // Real and imaginary parts, one draw each.
        pick(-0.5, 0.5, &lo, &hi);
        FillRandom<float>(
            &engine, std::uniform_real_distribution<float>(static_cast<float>(lo), static_cast<float>(hi)), &bytes);
        break;
      case kTfLiteInt32:
        pick(0, 99, &lo, &hi);
        FillRandom<int32_t>(&engine,
                            std::uniform_int_distribution<int32_t>(static_cast<int32_t>(lo), static_cast<int32_t>(hi)),
                            &bytes);
        break;
      case kTfLiteUInt32:
        pick(0, 99, &lo, &hi);
        FillRandom<uint32_t>(
            &engine, std::uniform_int_distribution<uint32_t>(static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)),
            &bytes);
        break;
      case kTfLiteInt64:
        pick(0, 99, &lo, &hi);
        FillRandom<int64_t>(&engine,
                            std::uniform_int_distribution<int64_t>(static_cast<int64_t>(lo), static_cast<int64_t>(hi)),
                            &bytes);
        break;
      case kTfLiteUInt8:
        pick(0, 254, &lo, &hi);
        FillRandom<uint8_t>(
            &engine, std::uniform_int_distribution<uint32_t>(static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)),
            &bytes);
        break;
      case kTfLiteInt8:
        pick(-127, 127, &lo, &hi);
        FillRandom<int8_t>(&engine,
                           std::uniform_int_distribution<int32_t>(static_cast<int32_t>(lo), static_cast<int32_t>(hi)),
                           &bytes);
        break;
      case kTfLiteInt16:
        // TFLite has no default range for int16: without --input_layer_value_range its range is
        // [0, 0], so the values are zeros (it still draws them).
        pick(0, 0, &lo, &hi);
        FillRandom<int16_t>(&engine,
                            std::uniform_int_distribution<int16_t>(static_cast<int16_t>(lo), static_cast<int16_t>(hi)),
                            &bytes);
        break;
      case kTfLiteBool:
        // {0, 1} whatever the range, as TFLite.
        FillRandom<uint8_t>(&engine, std::uniform_int_distribution<uint32_t>(0, 1), &bytes);
        break;
      default:
        break;  // other types (float16, strings, ...) stay zero
    }
    data.push_back(std::move(bytes));
  }
  return data;
}

StatusOr<std::vector<std::vector<uint8_t>>> MakeInputData(const InputSpec& spec, Interpreter* interpreter) {
  return MakeInputData(spec, PrimaryInputs(interpreter));
}

void CopyInputData(const std::vector<std::vector<uint8_t>>& data, const InputTarget& target) {
  const std::vector<int>& inputs = target.subgraph->inputs();
  for (size_t i = 0; i < inputs.size() && i < data.size(); ++i) {
    if (inputs[i] < 0) continue;
    TfLiteTensor* t = target.subgraph->tensor(inputs[i]);
    const size_t bytes = std::min(data[i].size(), t->bytes);
    if (bytes > 0 && t->data.raw != nullptr) std::memcpy(t->data.raw, data[i].data(), bytes);
  }
}

}  // namespace touchstone
