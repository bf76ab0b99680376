#include "evaluation/object_detection.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace {

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string NameOf(const TfLiteTensor* t) { return t->name != nullptr ? t->name : ""; }

std::string DescribeOutputs(Interpreter* interpreter) {
  std::string text;
  for (size_t i = 0; i < interpreter->outputs().size(); ++i) {
    const TfLiteTensor* t = interpreter->output_tensor(i);
    text += (i ? "; " : "") + std::to_string(i) + ": '" + NameOf(t) + "' " + TfLiteTypeGetName(t->type) + " " +
            ShapeString(t);
  }
  return text;
}

// The four slots from a rule mapping an output to a slot (0 boxes, 1 classes, 2 scores, 3 count) or -1;
// true when every slot got exactly one output.
template <typename Rule>
bool MapBy(Interpreter* interpreter, Rule rule, DetectionOutputs* outputs) {
  int slot_of[4] = {-1, -1, -1, -1};
  for (int i = 0; i < 4; ++i) {
    const int slot = rule(interpreter->output_tensor(i));
    if (slot < 0 || slot > 3 || slot_of[slot] >= 0) return false;
    slot_of[slot] = i;
  }
  outputs->boxes = slot_of[0];
  outputs->classes = slot_of[1];
  outputs->scores = slot_of[2];
  outputs->count = slot_of[3];
  return true;
}

bool ShapeKnown(const TfLiteTensor* t) { return t->dims != nullptr && t->dims->size > 0; }

}  // namespace

StatusOr<DetectionOutputs> ResolveDetectionOutputs(Interpreter* interpreter, const std::string& spec) {
  const int num_outputs = static_cast<int>(interpreter->outputs().size());
  DetectionOutputs outputs;
  if (!spec.empty()) {
    std::vector<std::string> items;
    std::stringstream in(spec);
    std::string item;
    while (std::getline(in, item, ',')) items.push_back(item);
    if (items.size() != 4 || spec.back() == ',') {
      return UsageError("--output_tensors needs four items: boxes,classes,scores,count (outputs: " +
                        DescribeOutputs(interpreter) + ")");
    }
    int* slots[4] = {&outputs.boxes, &outputs.classes, &outputs.scores, &outputs.count};
    for (int k = 0; k < 4; ++k) {
      int found = -1;
      for (int i = 0; i < num_outputs; ++i) {
        if (items[k] == NameOf(interpreter->output_tensor(i))) found = i;
      }
      int position = -1;
      if (found < 0 && absl::SimpleAtoi(items[k], &position) && position >= 0 && position < num_outputs) {
        found = position;
      }
      if (found < 0) {
        return UsageError("--output_tensors: no output '" + items[k] + "' (outputs: " + DescribeOutputs(interpreter) +
                          ")");
      }
      for (int j = 0; j < k; ++j) {
        if (*slots[j] == found) return UsageError("--output_tensors: output " + std::to_string(found) + " named twice");
      }
      *slots[k] = found;
    }
    outputs.how = "flag";
    return outputs;
  }
  if (num_outputs != 4) {
    return InvalidInputError("the model has " + std::to_string(num_outputs) +
                             " outputs; a detector has four (boxes, classes, scores, count), named with "
                             "--output_tensors=boxes,classes,scores,count when there are more (outputs: " +
                             DescribeOutputs(interpreter) + ")");
  }
  // TFLite_Detection_PostProcess names its outputs "<name>", "<name>:1", "<name>:2", "<name>:3".
  auto by_suffix = [&](const TfLiteTensor* t) {
    const std::string name = NameOf(t);
    if (name.find("TFLite_Detection_PostProcess") == std::string::npos) return -1;
    const size_t colon = name.rfind(':');
    if (colon == std::string::npos) return 0;
    const std::string digits = name.substr(colon + 1);
    if (digits.size() != 1 || digits[0] < '1' || digits[0] > '3') return -1;
    return digits[0] - '0';
  };
  if (MapBy(interpreter, by_suffix, &outputs)) {
    outputs.how = "names";
    return outputs;
  }
  auto by_word = [](const TfLiteTensor* t) {
    const std::string name = absl::AsciiStrToLower(NameOf(t));
    const bool box = name.find("box") != std::string::npos, cls = name.find("class") != std::string::npos,
               score = name.find("score") != std::string::npos,
               count = name.find("num") != std::string::npos || name.find("count") != std::string::npos;
    if (box + cls + score + count != 1) return -1;
    return box ? 0 : cls ? 1 : score ? 2 : 3;
  };
  if (MapBy(interpreter, by_word, &outputs)) {
    outputs.how = "names";
    return outputs;
  }
  bool all_known = true;
  for (int i = 0; i < 4; ++i) all_known = all_known && ShapeKnown(interpreter->output_tensor(i));
  if (!all_known) {
    outputs.how = "order";  // SSD's order, as TFLite assumes
    return outputs;
  }
  int boxes = -1, count = -1, box_candidates = 0, count_candidates = 0;
  for (int i = 0; i < 4; ++i) {
    const TfLiteTensor* t = interpreter->output_tensor(i);
    const TfLiteIntArray* d = t->dims;
    if (d->size == 3 && d->data[0] == 1 && d->data[2] == 4) {
      boxes = i;
      ++box_candidates;
    } else if (tflite::NumElements(t) == 1) {
      count = i;
      ++count_candidates;
    }
  }
  if (box_candidates != 1 || count_candidates != 1) {
    return InvalidInputError(
        "cannot tell the detection outputs apart by shape (want one [1,N,4] boxes output and one "
        "single-element count output); name them with --output_tensors=boxes,classes,scores,count "
        "(outputs: " +
        DescribeOutputs(interpreter) + ")");
  }
  if (boxes != 0 || count != 3) {
    return InvalidInputError("boxes are output " + std::to_string(boxes) + " and count output " +
                             std::to_string(count) +
                             ", not where SSD has them, so classes and scores cannot be told apart; name them with "
                             "--output_tensors=boxes,classes,scores,count (outputs: " +
                             DescribeOutputs(interpreter) + ")");
  }
  outputs.how = "shapes";
  return outputs;
}

StatusOr<std::vector<TfliteBox>> ReadDetections(Interpreter* interpreter, const DetectionConfig& config) {
  const int num_outputs = static_cast<int>(interpreter->outputs().size());
  for (int index : {config.outputs.boxes, config.outputs.classes, config.outputs.scores, config.outputs.count}) {
    if (index < 0 || index >= num_outputs)
      return InvalidInputError("detection output " + std::to_string(index) + " does not exist");
  }
  const TfLiteTensor* boxes = interpreter->output_tensor(config.outputs.boxes);
  const TfLiteTensor* classes = interpreter->output_tensor(config.outputs.classes);
  const TfLiteTensor* scores = interpreter->output_tensor(config.outputs.scores);
  const TfLiteTensor* count = interpreter->output_tensor(config.outputs.count);
  for (const TfLiteTensor* t : {boxes, classes, scores, count}) {
    if (t->type != kTfLiteFloat32) {
      return InvalidInputError(
          "detection output '" + NameOf(t) + "' has type " + TfLiteTypeGetName(t->type) +
          "; boxes, classes, scores and count must be float32 (outputs: " + DescribeOutputs(interpreter) + ")");
    }
    if (t->data.raw == nullptr && tflite::NumElements(t) > 0) {
      return ExecutionError("detection output '" + NameOf(t) + "' has no data");
    }
  }
  const int64_t capacity = tflite::NumElements(scores);
  if (tflite::NumElements(count) < 1 || tflite::NumElements(classes) < capacity ||
      tflite::NumElements(boxes) < 4 * capacity) {
    return InvalidInputError("detection outputs have inconsistent sizes (boxes " + ShapeString(boxes) + ", classes " +
                             ShapeString(classes) + ", scores " + ShapeString(scores) + ", count " +
                             ShapeString(count) + ")");
  }
  const float raw_count = tflite::GetTensorData<float>(count)[0];
  const int64_t n = !(raw_count > 0)                            ? 0
                    : raw_count >= static_cast<float>(capacity) ? capacity
                                                                : static_cast<int64_t>(raw_count);
  const float* b = tflite::GetTensorData<float>(boxes);
  const float* c = tflite::GetTensorData<float>(classes);
  const float* s = tflite::GetTensorData<float>(scores);
  std::vector<TfliteBox> detections;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(c[i]) || std::fabs(c[i]) > 1e6f) {
      return InvalidInputError("detection output '" + NameOf(classes) + "' holds " + std::to_string(c[i]) +
                               ", not a class index");
    }
    TfliteBox box;
    box.ymin = b[4 * i];
    box.xmin = b[4 * i + 1];
    box.ymax = b[4 * i + 2];
    box.xmax = b[4 * i + 3];
    box.class_id = static_cast<int>(c[i]) + config.class_offset;
    box.score = s[i];
    detections.push_back(box);
  }
  return detections;
}

Status RunDetection(const std::vector<std::string>& paths, const DetectionConfig& config, Interpreter* interpreter,
                    DetectionResult* result, const std::function<void(int, int)>& progress) {
  const int64_t start_us = NowMicros();
  ImageInputConfig input;
  input.preprocessing = config.preprocessing;
  input.quantization = config.quantization;
  ImageTensorQueue queue(paths, input, std::max(config.num_preprocessing_threads, 0));
  result->detections.assign(paths.size(), {});
  for (size_t i = 0; i < paths.size(); ++i) {
    ImageTensorQueue::Item item = queue.Next();
    if (!item.status.ok()) return item.status;
    TfLiteTensor* tensor = interpreter->input_tensor(0);
    if (tensor->bytes != item.tensor.size()) {
      return InvalidInputError(paths[i] + ": preprocessed to " + std::to_string(item.tensor.size()) +
                               " bytes; the input needs " + std::to_string(tensor->bytes));
    }
    std::memcpy(tensor->data.raw, item.tensor.data(), item.tensor.size());
    result->preprocessing_us.Add(item.latency_us);
    const int64_t invoke_start = NowMicros();
    Status invoked = interpreter->Invoke();
    if (!invoked.ok()) return invoked.WithContext(paths[i]);
    result->inference_us.Add(NowMicros() - invoke_start);
    TS_ASSIGN_OR_RETURN(result->detections[i], ReadDetections(interpreter, config));
    if (progress) progress(static_cast<int>(i + 1), static_cast<int>(paths.size()));
  }
  result->wall_seconds = static_cast<double>(NowMicros() - start_us) / 1e6;
  return Status::Ok();
}

}  // namespace touchstone
