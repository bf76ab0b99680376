#include "evaluation/model_inputs.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

#include "runtime/kernels/kernel_util.h"

namespace touchstone {
namespace {

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  if (text.empty()) return parts;
  std::string current;
  for (char c : text) {
    if (c == sep) {
      parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  parts.push_back(current);
  return parts;
}

bool ParseInt(const std::string& text, int* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (*end != '\0' || v < INT32_MIN || v > INT32_MAX) return false;
  *out = static_cast<int>(v);
  return true;
}

int FindInput(Interpreter* interpreter, const std::string& name) {
  for (size_t i = 0; i < interpreter->inputs().size(); ++i) {
    if (name == interpreter->input_tensor(i)->name) return static_cast<int>(i);
  }
  return -1;
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

StatusOr<std::map<std::string, std::string>> ParseNameValueList(const std::string& text,
                                                                const std::string& flag) {
  std::map<std::string, std::string> result;
  for (const std::string& item : Split(text, ',')) {
    // The first ':' not part of '::' separates name from value.
    size_t split = std::string::npos;
    for (size_t i = 0; i < item.size(); ++i) {
      if (item[i] != ':') continue;
      if (i + 1 < item.size() && item[i + 1] == ':') {
        ++i;
        continue;
      }
      split = i;
      break;
    }
    if (split == std::string::npos) {
      return UsageError("--" + flag + ": item '" + item + "' is not of the form name:value");
    }
    std::string name;
    for (size_t i = 0; i < split; ++i) {
      name += item[i];
      if (item[i] == ':' && i + 1 < split && item[i + 1] == ':') ++i;
    }
    result[name] = item.substr(split + 1);
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
      if (!ParseInt(dim_text, &dim) || dim < 0) {
        return UsageError("--input_layer_shape: '" + shape_text +
                          "' is not a list of non-negative dimensions (-1 is not allowed)");
      }
      shape.push_back(dim);
    }
    spec.layer_shapes.push_back(shape);
  }
  if (!spec.layer_shapes.empty() && spec.layer_shapes.size() != spec.layer_names.size()) {
    return UsageError("--input_layer names " + std::to_string(spec.layer_names.size()) +
                      " inputs but --input_layer_shape gives " +
                      std::to_string(spec.layer_shapes.size()) + " shapes");
  }
  for (const std::string& item : Split(value_range, ':')) {
    const std::vector<std::string> parts = Split(item, ',');
    int low = 0, high = 0;
    if (parts.size() != 3 || !ParseInt(parts[1], &low) || !ParseInt(parts[2], &high) || low > high) {
      return UsageError("--input_layer_value_range: '" + item + "' is not name,low,high with low <= high");
    }
    spec.value_ranges[parts[0]] = {low, high};
  }
  StatusOr<std::map<std::string, std::string>> files = ParseNameValueList(value_files, "input_layer_value_files");
  if (!files.ok()) return files.status();
  spec.value_files = files.value();
  return spec;
}

Status ApplyInputShapes(const InputSpec& spec, Interpreter* interpreter) {
  for (size_t i = 0; i < spec.layer_shapes.size(); ++i) {
    const int position = FindInput(interpreter, spec.layer_names[i]);
    if (position < 0) {
      return UsageError("--input_layer: the model has no input named '" + spec.layer_names[i] + "'");
    }
    TS_RETURN_IF_ERROR(interpreter->ResizeInputTensor(interpreter->inputs()[position], spec.layer_shapes[i]));
  }
  return Status::Ok();
}

StatusOr<std::vector<std::vector<uint8_t>>> MakeInputData(const InputSpec& spec,
                                                          Interpreter* interpreter) {
  for (const auto& entry : spec.value_files) {
    if (FindInput(interpreter, entry.first) < 0) {
      return UsageError("--input_layer_value_files: the model has no input named '" + entry.first + "'");
    }
  }
  for (const auto& entry : spec.value_ranges) {
    if (FindInput(interpreter, entry.first) < 0) {
      return UsageError("--input_layer_value_range: the model has no input named '" + entry.first + "'");
    }
  }
  std::mt19937 engine;  // default seed, as TFLite's benchmark
  std::vector<std::vector<uint8_t>> data;
  for (size_t i = 0; i < interpreter->inputs().size(); ++i) {
    const TfLiteTensor* t = interpreter->input_tensor(i);
    std::vector<uint8_t> bytes(t->bytes);
    auto file = spec.value_files.find(t->name);
    if (file != spec.value_files.end()) {
      std::ifstream in(file->second, std::ios::binary);
      if (!in) return InvalidInputError(file->second + ": cannot read input file for '" + t->name + "'");
      std::vector<uint8_t> content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (content.size() != t->bytes) {
        return InvalidInputError(file->second + ": has " + std::to_string(content.size()) +
                                 " bytes but input '" + t->name + "' needs " + std::to_string(t->bytes));
      }
      data.push_back(std::move(content));
      continue;
    }
    auto range = spec.value_ranges.find(t->name);
    const bool has_range = range != spec.value_ranges.end();
    auto ints = [&](int low, int high) {
      return std::uniform_int_distribution<int64_t>(has_range ? range->second.first : low,
                                                    has_range ? range->second.second : high);
    };
    switch (t->type) {
      case kTfLiteFloat32:
        FillRandom<float>(&engine,
                          std::uniform_real_distribution<float>(
                              has_range ? static_cast<float>(range->second.first) : -0.5f,
                              has_range ? static_cast<float>(range->second.second) : 0.5f),
                          &bytes);
        break;
      case kTfLiteInt32: FillRandom<int32_t>(&engine, ints(0, 99), &bytes); break;
      case kTfLiteInt64: FillRandom<int64_t>(&engine, ints(0, 99), &bytes); break;
      case kTfLiteUInt8: FillRandom<uint8_t>(&engine, ints(0, 254), &bytes); break;
      case kTfLiteInt8: FillRandom<int8_t>(&engine, ints(-127, 127), &bytes); break;
      case kTfLiteBool: FillRandom<uint8_t>(&engine, ints(0, 1), &bytes); break;
      case kTfLiteInt16:
        // TFLite's benchmark leaves int16 inputs at zero unless a range is given.
        if (has_range) FillRandom<int16_t>(&engine, ints(0, 0), &bytes);
        break;
      default:
        break;  // other types stay zero
    }
    data.push_back(std::move(bytes));
  }
  return data;
}

}  // namespace touchstone
