#include "evaluation/object_detection.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "runtime/kernels/kernel_util.h"

namespace touchstone {
namespace {

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string DescribeOutputs(Interpreter* interpreter) {
  std::string text;
  for (size_t i = 0; i < interpreter->outputs().size(); ++i) {
    const TfLiteTensor* t = interpreter->output_tensor(i);
    text += (i ? "; " : "") + std::to_string(i) + ": '" + t->name + "' " + TfLiteTypeGetName(t->type);
  }
  return text;
}

}  // namespace

StatusOr<DetectionOutputs> ResolveDetectionOutputs(Interpreter* interpreter, const std::string& spec) {
  const int num_outputs = static_cast<int>(interpreter->outputs().size());
  DetectionOutputs outputs;
  if (spec.empty()) {
    if (num_outputs != 4) {
      return UsageError("the model has " + std::to_string(num_outputs) +
                        " outputs, not SSD's four; name them with --output_tensors=boxes,classes,scores,count (outputs: " +
                        DescribeOutputs(interpreter) + ")");
    }
    return outputs;
  }
  std::vector<std::string> items;
  std::stringstream in(spec);
  std::string item;
  while (std::getline(in, item, ',')) items.push_back(item);
  if (items.size() != 4) return UsageError("--output_tensors needs four items: boxes,classes,scores,count");
  int* slots[4] = {&outputs.boxes, &outputs.classes, &outputs.scores, &outputs.count};
  for (int k = 0; k < 4; ++k) {
    int found = -1;
    for (int i = 0; i < num_outputs; ++i) {
      if (items[k] == interpreter->output_tensor(i)->name) found = i;
    }
    char* end = nullptr;
    const long position = std::strtol(items[k].c_str(), &end, 10);
    if (found < 0 && !items[k].empty() && *end == '\0' && position >= 0 && position < num_outputs) {
      found = static_cast<int>(position);
    }
    if (found < 0) {
      return UsageError("--output_tensors: no output '" + items[k] + "' (outputs: " + DescribeOutputs(interpreter) + ")");
    }
    *slots[k] = found;
  }
  return outputs;
}

StatusOr<DetectionRun> DetectImage(const std::string& path, const DetectionConfig& config, Interpreter* interpreter) {
  DetectionRun run;
  const int64_t start = NowMicros();
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidInputError(path + ": cannot read image");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  StatusOr<RgbImage> image = DecodeImage(bytes, path);
  if (!image.ok()) return image.status();
  StatusOr<std::vector<uint8_t>> tensor = PreprocessImage(image.value(), config.preprocessing);
  if (!tensor.ok()) return tensor.status();
  TfLiteTensor* input = interpreter->input_tensor(0);
  if (input->bytes != tensor.value().size()) {
    return InvalidInputError(path + ": preprocessed to " + std::to_string(tensor.value().size()) +
                             " bytes; the input needs " + std::to_string(input->bytes));
  }
  std::memcpy(input->data.raw, tensor.value().data(), tensor.value().size());
  run.preprocessing_us = NowMicros() - start;
  const int64_t invoke_start = NowMicros();
  TS_RETURN_IF_ERROR(interpreter->Invoke());
  run.inference_us = NowMicros() - invoke_start;

  const TfLiteTensor* boxes = interpreter->output_tensor(config.outputs.boxes);
  const TfLiteTensor* classes = interpreter->output_tensor(config.outputs.classes);
  const TfLiteTensor* scores = interpreter->output_tensor(config.outputs.scores);
  const TfLiteTensor* count = interpreter->output_tensor(config.outputs.count);
  for (const TfLiteTensor* t : {boxes, classes, scores, count}) {
    if (t->type != kTfLiteFloat32) {
      return InvalidInputError(std::string("detection output '") + t->name + "' has type " + TfLiteTypeGetName(t->type) +
                               "; boxes, classes, scores and count must be float32");
    }
  }
  const int64_t capacity = tflite::NumElements(scores);
  if (tflite::NumElements(count) < 1 || tflite::NumElements(classes) < capacity ||
      tflite::NumElements(boxes) < 4 * capacity) {
    return InvalidInputError("detection outputs have inconsistent sizes (boxes " + std::to_string(tflite::NumElements(boxes)) +
                             ", classes " + std::to_string(tflite::NumElements(classes)) + ", scores " +
                             std::to_string(capacity) + ")");
  }
  const float raw_count = tflite::GetTensorData<float>(count)[0];
  const int64_t n = raw_count < 0 ? 0 : std::min<int64_t>(static_cast<int64_t>(raw_count), capacity);
  const float* b = tflite::GetTensorData<float>(boxes);
  for (int64_t i = 0; i < n; ++i) {
    TfliteBox box;
    box.ymin = b[4 * i];
    box.xmin = b[4 * i + 1];
    box.ymax = b[4 * i + 2];
    box.xmax = b[4 * i + 3];
    box.class_id = static_cast<int>(tflite::GetTensorData<float>(classes)[i]) + config.class_offset;
    box.score = tflite::GetTensorData<float>(scores)[i];
    run.detections.push_back(box);
  }
  return run;
}

}  // namespace touchstone
