// The custom op "TFLite_Detection_PostProcess" (SSD box decoding and non-max suppression),
// computing what TensorFlow Lite 2.14.1's tensorflow/lite/kernels/detection_postprocess.cc computes
// with one thread:
// - box encodings [1, boxes, >=4] (y, x, h, w per anchor, then ignored keypoints) are decoded
//   against anchors [boxes, 4] (y, x, h, w) in double precision and rounded to float corners
//   (ymin, xmin, ymax, xmax);
// - class predictions [1, boxes, classes (+1 background)] are scores; uint8 inputs are dequantized
//   first, and uint8 box encodings imply uint8 anchors;
// - fast NMS (use_regular_nms false) suppresses on each box's best class score and reports up to
//   max_classes_per_detection classes per kept box; regular NMS suppresses per class and keeps the
//   best max_detections over all classes;
// - outputs are float32: boxes [1, N, 4], classes [1, N], scores [1, N] (N = max_detections *
//   max_classes_per_detection) and num_detections [1].
// Candidate order follows TFLite's: a stable sort by decreasing score (ties keep box order), the
// first maximum for a box's best class, std::partial_sort for its top classes, and in regular NMS a
// merge in which a later class's detection goes before an earlier class's detection of equal
// score. Rows TFLite leaves unwritten (fewer detections than N) are zero here.
// The options are a flexbuffer map in the node's custom data; a file may carry anything there, so
// they are verified, type-checked and range-checked before use.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "flatbuffers/flexbuffers.h"
#include "runtime/c/common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

constexpr int kBoxEncodings = 0;
constexpr int kClassPredictions = 1;
constexpr int kAnchors = 2;
constexpr int kDetectionBoxes = 0;
constexpr int kDetectionClasses = 1;
constexpr int kDetectionScores = 2;
constexpr int kNumDetections = 3;
constexpr int kNumCoords = 4;
// TFLite's default when the file has no detections_per_class.
constexpr int kDefaultDetectionsPerClass = 100;

struct CenterSize {
  float y;
  float x;
  float h;
  float w;
};

struct BoxCorners {
  float ymin;
  float xmin;
  float ymax;
  float xmax;
};
static_assert(sizeof(BoxCorners) == sizeof(float) * kNumCoords, "BoxCorners is 4 packed floats");

struct Options {
  int max_detections = 0;
  int max_classes_per_detection = 0;
  int detections_per_class = kDefaultDetectionsPerClass;
  bool use_regular_nms = false;
  float nms_score_threshold = 0.f;
  float nms_iou_threshold = 0.f;
  int num_classes = 0;
  CenterSize scales{};
};

// One detection of regular NMS, before it is written out.
struct Detection {
  int box;
  int class_index;
  float score;
};

struct OpData {
  Options options;
  // Set by Init when the custom options cannot be used; Prepare reports it.
  std::string options_error;

  // Scratch, sized in Prepare.
  std::vector<BoxCorners> decoded_boxes;
  // Class predictions dequantized, when they are uint8: allocated at Prepare but not zeroed (Eval
  // writes every value before reading it; zeroing coco_ssd's 1917 x 91 was a third of its Init).
  std::unique_ptr<float[]> dequantized_scores;
  size_t dequantized_count = 0;
  std::vector<float> candidate_scores;  // one score per box: its best class, or one class
  std::vector<int> candidates;          // boxes above the score threshold, best first
  std::vector<uint8_t> active;          // per candidate: not yet selected nor suppressed
  std::vector<int> selected;            // boxes NMS kept, best first
  std::vector<int> top_classes;         // fast NMS: each box's best classes, best first
  std::vector<int> class_order;         // fast NMS: one box's classes, for partial_sort
  std::vector<Detection> detections;    // regular NMS: the best detections so far
  std::vector<Detection> merge_buffer;
};

// Reads typed values out of the options map, keeping the first problem as a one-line message.
class OptionReader {
 public:
  explicit OptionReader(const flexbuffers::Map& map) : map_(map) {}

  const std::string& error() const { return error_; }

  // An int32 option; absent options take `fallback` when `optional`, else are an error.
  int Int(const char* key, bool optional = false, int fallback = 0) {
    const flexbuffers::Reference value = map_[key];
    if (value.IsNull()) return Missing(key, optional, fallback);
    int64_t number = 0;
    if (value.IsInt()) {
      number = value.AsInt64();
    } else if (value.IsUInt()) {
      const uint64_t unsigned_number = value.AsUInt64();
      number = unsigned_number > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())
                   ? int64_t{std::numeric_limits<int32_t>::max()} + 1
                   : static_cast<int64_t>(unsigned_number);
    } else {
      return Fail(key, "must be an integer", fallback);
    }
    if (number < std::numeric_limits<int32_t>::min() || number > std::numeric_limits<int32_t>::max()) {
      return Fail(key, "is out of the int32 range", fallback);
    }
    return static_cast<int>(number);
  }

  // A float option; integers are accepted and converted, as flexbuffers' AsFloat does.
  float Float(const char* key) {
    const flexbuffers::Reference value = map_[key];
    if (value.IsNull()) return Missing(key, /*optional=*/false, 0.f);
    if (!value.IsNumeric()) return Fail(key, "must be a number", 0.f);
    return value.AsFloat();
  }

  // A boolean option; integers count as true when nonzero, as flexbuffers' AsBool does.
  bool Bool(const char* key, bool fallback) {
    const flexbuffers::Reference value = map_[key];
    if (value.IsNull()) return fallback;
    if (!value.IsBool() && !value.IsIntOrUint()) return Fail(key, "must be a boolean", fallback);
    return value.AsBool();
  }

 private:
  template <typename T>
  T Missing(const char* key, bool optional, T fallback) {
    if (!optional) Fail(key, "is missing", fallback);
    return fallback;
  }
  template <typename T>
  T Fail(const char* key, const char* problem, T fallback) {
    if (error_.empty()) error_ = std::string("custom option '") + key + "' " + problem;
    return fallback;
  }

  const flexbuffers::Map& map_;
  std::string error_;
};

// Parses the flexbuffer options into *options; returns an error message, empty on success.
std::string ParseOptions(const char* buffer, size_t length, Options* options) {
  if (buffer == nullptr || length == 0) return "custom options (a flexbuffer map) are missing";
  const auto* bytes = reinterpret_cast<const uint8_t*>(buffer);
  if (!flexbuffers::VerifyBuffer(bytes, length)) {
    return "custom options are not a valid flexbuffer";
  }
  const flexbuffers::Reference root = flexbuffers::GetRoot(bytes, length);
  if (!root.IsMap()) return "custom options are not a flexbuffer map";
  const flexbuffers::Map map = root.AsMap();
  OptionReader read(map);
  options->max_detections = read.Int("max_detections");
  options->max_classes_per_detection = read.Int("max_classes_per_detection");
  options->detections_per_class = read.Int("detections_per_class", /*optional=*/true, kDefaultDetectionsPerClass);
  options->use_regular_nms = read.Bool("use_regular_nms", false);
  options->nms_score_threshold = read.Float("nms_score_threshold");
  options->nms_iou_threshold = read.Float("nms_iou_threshold");
  options->num_classes = read.Int("num_classes");
  options->scales.y = read.Float("y_scale");
  options->scales.x = read.Float("x_scale");
  options->scales.h = read.Float("h_scale");
  options->scales.w = read.Float("w_scale");
  return read.error();
}

void* Init(TfLiteContext* /*context*/, const char* buffer, size_t length) {
  auto* op_data = new OpData;
  op_data->options_error = ParseOptions(buffer, length, &op_data->options);
  return op_data;
}

// Option values TFLite refuses when it runs, and values for which it would read or write out of
// bounds or divide by zero.
TfLiteStatus CheckOptions(TfLiteContext* context, const Options& options) {
  if (options.max_detections < 0) {
    TF_LITE_KERNEL_LOG(context, "custom option 'max_detections' is %d; it must be at least 0", options.max_detections);
    return kTfLiteError;
  }
  if (options.max_classes_per_detection < 1) {
    TF_LITE_KERNEL_LOG(context, "custom option 'max_classes_per_detection' is %d; it must be at least 1",
                       options.max_classes_per_detection);
    return kTfLiteError;
  }
  if (int64_t{options.max_detections} * options.max_classes_per_detection > std::numeric_limits<int32_t>::max()) {
    TF_LITE_KERNEL_LOG(context,
                       "custom options 'max_detections' * 'max_classes_per_detection' (%d * %d) "
                       "overflow int32",
                       options.max_detections, options.max_classes_per_detection);
    return kTfLiteError;
  }
  if (options.use_regular_nms && std::min(options.detections_per_class, options.max_detections) < 1) {
    TF_LITE_KERNEL_LOG(context,
                       "regular NMS needs custom options 'detections_per_class' (%d) and "
                       "'max_detections' (%d) of at least 1",
                       options.detections_per_class, options.max_detections);
    return kTfLiteError;
  }
  if (options.num_classes < 1) {
    TF_LITE_KERNEL_LOG(context, "custom option 'num_classes' is %d; it must be at least 1", options.num_classes);
    return kTfLiteError;
  }
  if (!(options.nms_iou_threshold > 0.f && options.nms_iou_threshold <= 1.f)) {
    TF_LITE_KERNEL_LOG(context, "custom option 'nms_iou_threshold' is %g; it must be in (0, 1]",
                       static_cast<double>(options.nms_iou_threshold));
    return kTfLiteError;
  }
  const struct {
    const char* name;
    float value;
  } scales[] = {{"y_scale", options.scales.y},
                {"x_scale", options.scales.x},
                {"h_scale", options.scales.h},
                {"w_scale", options.scales.w}};
  for (const auto& scale : scales) {
    if (!std::isfinite(scale.value) || scale.value == 0.f) {
      TF_LITE_KERNEL_LOG(context, "custom option '%s' is %g; it must be finite and nonzero", scale.name,
                         static_cast<double>(scale.value));
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

TfLiteStatus CheckInputType(TfLiteContext* context, const TfLiteTensor* tensor, const char* name) {
  if (tensor->type == kTfLiteFloat32) return kTfLiteOk;
  if (tensor->type == kTfLiteUInt8) {
    // With a zero point in [0, 255], (q - zero_point) is exact in float, as in TFLite's integer
    // subtraction.
    if (tensor->params.zero_point < 0 || tensor->params.zero_point > 255) {
      TF_LITE_KERNEL_LOG(context, "%s has zero point %d; a UINT8 zero point must be in [0, 255]", name,
                         tensor->params.zero_point);
      return kTfLiteError;
    }
    return kTfLiteOk;
  }
  // TFLite 2.14.1 refuses the other types too (its Eval has no case for them).
  TF_LITE_KERNEL_LOG(context, "%s has type %s; TFLite_Detection_PostProcess takes FLOAT32 or UINT8", name,
                     TfLiteTypeGetName(tensor->type));
  return kTfLiteError;
}

TfLiteStatus ResizeFloatOutput(TfLiteContext* context, TfLiteNode* node, int index, std::initializer_list<int> dims) {
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, index, &output));
  // TFLite sets the outputs' type whatever the file says.
  output->type = kTfLiteFloat32;
  return context->ResizeTensor(context, output, tflite::CreateIntArray(dims));
}

TfLiteStatus GetInputs(TfLiteContext* context, TfLiteNode* node, const TfLiteTensor** box_encodings,
                       const TfLiteTensor** class_predictions, const TfLiteTensor** anchors) {
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, kBoxEncodings, box_encodings));
  TF_LITE_ENSURE_OK(context, tflite::GetInputSafe(context, node, kClassPredictions, class_predictions));
  return tflite::GetInputSafe(context, node, kAnchors, anchors);
}

TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node) {
  auto* op_data = static_cast<OpData*>(node->user_data);
  if (!op_data->options_error.empty()) {
    TF_LITE_KERNEL_LOG(context, "%s", op_data->options_error.c_str());
    return kTfLiteError;
  }
  const Options& options = op_data->options;
  TF_LITE_ENSURE_OK(context, CheckOptions(context, options));

  if (tflite::NumInputs(node) != 3 || tflite::NumOutputs(node) != 4) {
    TF_LITE_KERNEL_LOG(context, "takes 3 inputs and 4 outputs, not %d and %d", tflite::NumInputs(node),
                       tflite::NumOutputs(node));
    return kTfLiteError;
  }
  const TfLiteTensor* box_encodings;
  const TfLiteTensor* class_predictions;
  const TfLiteTensor* anchors;
  TF_LITE_ENSURE_OK(context, GetInputs(context, node, &box_encodings, &class_predictions, &anchors));

  TF_LITE_ENSURE_OK(context, CheckInputType(context, box_encodings, "input 0 (box encodings)"));
  TF_LITE_ENSURE_OK(context, CheckInputType(context, class_predictions, "input 1 (class predictions)"));
  TF_LITE_ENSURE_OK(context, CheckInputType(context, anchors, "input 2 (anchors)"));
  // TFLite reads anchors as uint8 whenever the box encodings are uint8, and requires float anchors
  // with float encodings.
  if (anchors->type != box_encodings->type) {
    TF_LITE_KERNEL_LOG(context, "input 2 (anchors) has type %s; with %s box encodings it must be %s",
                       TfLiteTypeGetName(anchors->type), TfLiteTypeGetName(box_encodings->type),
                       TfLiteTypeGetName(box_encodings->type));
    return kTfLiteError;
  }

  const TfLiteIntArray* box_dims = box_encodings->dims;
  if (box_dims->size != 3 || box_dims->data[0] != 1 || box_dims->data[2] < kNumCoords) {
    TF_LITE_KERNEL_LOG(context, "input 0 (box encodings) must have shape [1, boxes, >=4]");
    return kTfLiteError;
  }
  const int num_boxes = box_dims->data[1];
  const TfLiteIntArray* class_dims = class_predictions->dims;
  if (class_dims->size != 3 || class_dims->data[0] != 1 || class_dims->data[1] != num_boxes) {
    TF_LITE_KERNEL_LOG(context, "input 1 (class predictions) must have shape [1, %d, classes]", num_boxes);
    return kTfLiteError;
  }
  const int label_offset = class_dims->data[2] - options.num_classes;
  if (label_offset != 0 && label_offset != 1) {
    TF_LITE_KERNEL_LOG(context,
                       "input 1 (class predictions) has %d classes; with num_classes %d it must "
                       "have %d or %d (with a background class)",
                       class_dims->data[2], options.num_classes, options.num_classes, options.num_classes + 1);
    return kTfLiteError;
  }
  if (anchors->dims->size != 2 || anchors->dims->data[0] != num_boxes || anchors->dims->data[1] != kNumCoords) {
    TF_LITE_KERNEL_LOG(context, "input 2 (anchors) must have shape [%d, 4]", num_boxes);
    return kTfLiteError;
  }

  const int num_detected_boxes = options.max_detections * options.max_classes_per_detection;
  TF_LITE_ENSURE_OK(context, ResizeFloatOutput(context, node, kDetectionBoxes, {1, num_detected_boxes, kNumCoords}));
  TF_LITE_ENSURE_OK(context, ResizeFloatOutput(context, node, kDetectionClasses, {1, num_detected_boxes}));
  TF_LITE_ENSURE_OK(context, ResizeFloatOutput(context, node, kDetectionScores, {1, num_detected_boxes}));
  TF_LITE_ENSURE_OK(context, ResizeFloatOutput(context, node, kNumDetections, {1}));

  op_data->decoded_boxes.resize(num_boxes);
  const size_t dequantized_count =
      class_predictions->type == kTfLiteUInt8 ? static_cast<size_t>(tflite::NumElements(class_predictions)) : 0;
  if (dequantized_count != op_data->dequantized_count) {
    op_data->dequantized_scores.reset(dequantized_count > 0 ? new float[dequantized_count] : nullptr);
    op_data->dequantized_count = dequantized_count;
  }
  op_data->candidate_scores.resize(num_boxes);
  op_data->candidates.reserve(num_boxes);
  op_data->active.reserve(num_boxes);
  if (options.use_regular_nms) {
    const int per_class = std::min(options.detections_per_class, options.max_detections);
    op_data->selected.reserve(per_class);
    op_data->detections.resize(static_cast<size_t>(options.max_detections) + per_class);
    op_data->merge_buffer.resize(op_data->detections.size());
  } else {
    const int classes_per_box = std::min(options.max_classes_per_detection, options.num_classes);
    op_data->selected.reserve(std::min(options.max_detections, num_boxes));
    op_data->top_classes.resize(static_cast<size_t>(num_boxes) * classes_per_box);
    op_data->class_order.resize(classes_per_box > 1 ? options.num_classes : 0);
  }
  return kTfLiteOk;
}

// Decodes every box against its anchor, with TFLite's double-precision arithmetic.
template <typename T>
void DecodeBoxes(const TfLiteTensor* box_encodings, const TfLiteTensor* anchors, const CenterSize& scales,
                 std::vector<BoxCorners>* decoded) {
  const T* encoding_data = tflite::GetTensorData<T>(box_encodings);
  const T* anchor_data = tflite::GetTensorData<T>(anchors);
  const int encoding_stride = box_encodings->dims->data[2];
  // Quantized values become (q - zero_point) * scale in float, as TFLite's Dequantizer.
  auto value = [](const TfLiteTensor* tensor, T q) -> float {
    if (std::is_same<T, float>::value) return static_cast<float>(q);
    return (static_cast<float>(q) - static_cast<float>(tensor->params.zero_point)) * tensor->params.scale;
  };
  for (size_t i = 0; i < decoded->size(); ++i) {
    const T* encoding = encoding_data + i * encoding_stride;
    const T* anchor_values = anchor_data + i * kNumCoords;
    const CenterSize box{value(box_encodings, encoding[0]), value(box_encodings, encoding[1]),
                         value(box_encodings, encoding[2]), value(box_encodings, encoding[3])};
    const CenterSize anchor{value(anchors, anchor_values[0]), value(anchors, anchor_values[1]),
                            value(anchors, anchor_values[2]), value(anchors, anchor_values[3])};
    const float y_center =
        static_cast<float>(static_cast<double>(box.y) / static_cast<double>(scales.y) * static_cast<double>(anchor.h) +
                           static_cast<double>(anchor.y));
    const float x_center =
        static_cast<float>(static_cast<double>(box.x) / static_cast<double>(scales.x) * static_cast<double>(anchor.w) +
                           static_cast<double>(anchor.x));
    const float half_h = static_cast<float>(0.5 * std::exp(static_cast<double>(box.h) / static_cast<double>(scales.h)) *
                                            static_cast<double>(anchor.h));
    const float half_w = static_cast<float>(0.5 * std::exp(static_cast<double>(box.w) / static_cast<double>(scales.w)) *
                                            static_cast<double>(anchor.w));
    (*decoded)[i] = {y_center - half_h, x_center - half_w, y_center + half_h, x_center + half_w};
  }
}

// Intersection over union in float, exactly as TFLite computes it; empty boxes overlap nothing.
float IntersectionOverUnion(const BoxCorners& a, const BoxCorners& b) {
  const float area_a = (a.ymax - a.ymin) * (a.xmax - a.xmin);
  const float area_b = (b.ymax - b.ymin) * (b.xmax - b.xmin);
  if (area_a <= 0 || area_b <= 0) return 0.f;
  const float intersection_ymin = std::max<float>(a.ymin, b.ymin);
  const float intersection_xmin = std::max<float>(a.xmin, b.xmin);
  const float intersection_ymax = std::min<float>(a.ymax, b.ymax);
  const float intersection_xmax = std::min<float>(a.xmax, b.xmax);
  const float intersection_area = std::max<float>(intersection_ymax - intersection_ymin, 0.f) *
                                  std::max<float>(intersection_xmax - intersection_xmin, 0.f);
  return intersection_area / (area_a + area_b - intersection_area);
}

// Greedy NMS over one score per box (op_data->candidate_scores): the boxes at or above the score
// threshold, best first (a stable sort, so equal scores keep box order), each dropping the later
// ones it overlaps by more than the IoU threshold, until max_detections are kept. Leaves the kept
// boxes in op_data->selected, best first.
void NonMaxSuppressionSingleClass(OpData* op_data, int max_detections) {
  const std::vector<float>& scores = op_data->candidate_scores;
  const float score_threshold = op_data->options.nms_score_threshold;
  const float iou_threshold = op_data->options.nms_iou_threshold;
  std::vector<int>& candidates = op_data->candidates;
  candidates.clear();
  for (size_t box = 0; box < scores.size(); ++box) {
    if (scores[box] >= score_threshold) candidates.push_back(static_cast<int>(box));
  }
  std::stable_sort(candidates.begin(), candidates.end(), [&scores](int a, int b) { return scores[a] > scores[b]; });

  std::vector<uint8_t>& active = op_data->active;
  active.assign(candidates.size(), 1);
  std::vector<int>& selected = op_data->selected;
  selected.clear();
  const std::vector<BoxCorners>& boxes = op_data->decoded_boxes;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (static_cast<int>(selected.size()) >= max_detections) break;
    if (!active[i]) continue;
    selected.push_back(candidates[i]);
    for (size_t j = i + 1; j < candidates.size(); ++j) {
      if (active[j] && IntersectionOverUnion(boxes[candidates[i]], boxes[candidates[j]]) > iou_threshold) {
        active[j] = 0;
      }
    }
  }
}

struct Outputs {
  BoxCorners* boxes;
  float* classes;
  float* scores;
  float* num_detections;
};

// Fast NMS: each box competes with its best class score; each kept box reports its best
// min(max_classes_per_detection, num_classes) classes.
void FastNonMaxSuppression(OpData* op_data, const float* scores, int num_classes_with_background, const Outputs& out) {
  const Options& options = op_data->options;
  const int num_boxes = static_cast<int>(op_data->decoded_boxes.size());
  const int num_classes = options.num_classes;
  const int label_offset = num_classes_with_background - num_classes;
  const int classes_per_box = std::min(options.max_classes_per_detection, num_classes);
  for (int box = 0; box < num_boxes; ++box) {
    const float* box_scores = scores + static_cast<size_t>(box) * num_classes_with_background + label_offset;
    int* top = op_data->top_classes.data() + static_cast<size_t>(box) * classes_per_box;
    if (classes_per_box == 1) {
      // The first of equal maxima, as TFLite's ArgMaxVector. Written without a branch on the
      // comparison (same comparisons, NaN included): score rows are noise to a branch predictor,
      // and the branchy loop took 0.65 ms of the SSD's 1917 x 90 scores.
      int best = 0;
      float best_score = box_scores[0];
      for (int c = 1; c < num_classes; ++c) {
        const float score = box_scores[c];
        const bool better = score > best_score;
        best = better ? c : best;
        best_score = better ? score : best_score;
      }
      top[0] = best;
    } else {
      // std::partial_sort as TFLite calls it, so that equal scores come out in the same order.
      std::vector<int>& order = op_data->class_order;
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + classes_per_box, order.end(),
                        [box_scores](int a, int b) { return box_scores[a] > box_scores[b]; });
      std::copy(order.begin(), order.begin() + classes_per_box, top);
    }
    op_data->candidate_scores[box] = box_scores[top[0]];
  }

  NonMaxSuppressionSingleClass(op_data, options.max_detections);
  const std::vector<int>& selected = op_data->selected;
  for (size_t row = 0; row < selected.size(); ++row) {
    const int box = selected[row];
    const float* box_scores = scores + static_cast<size_t>(box) * num_classes_with_background + label_offset;
    const int* top = op_data->top_classes.data() + static_cast<size_t>(box) * classes_per_box;
    for (int c = 0; c < classes_per_box; ++c) {
      const size_t slot = row * options.max_classes_per_detection + c;
      out.boxes[slot] = op_data->decoded_boxes[box];
      out.classes[slot] = static_cast<float>(top[c]);
      out.scores[slot] = box_scores[top[c]];
    }
  }
  *out.num_detections = static_cast<float>(selected.size());
}

// Regular NMS: NMS per class (up to detections_per_class boxes each), the classes' detections
// merged class by class into one list sorted by decreasing score and cut to max_detections.
void RegularNonMaxSuppression(OpData* op_data, const float* scores, int num_classes_with_background,
                              const Outputs& out) {
  const Options& options = op_data->options;
  const int num_boxes = static_cast<int>(op_data->decoded_boxes.size());
  const int label_offset = num_classes_with_background - options.num_classes;
  const int per_class = std::min(options.detections_per_class, options.max_detections);
  std::vector<Detection>& detections = op_data->detections;
  int num_detections = 0;
  for (int c = 0; c < options.num_classes; ++c) {
    for (int box = 0; box < num_boxes; ++box) {
      op_data->candidate_scores[box] =
          scores[static_cast<size_t>(box) * num_classes_with_background + c + label_offset];
    }
    NonMaxSuppressionSingleClass(op_data, per_class);
    if (op_data->selected.empty()) continue;
    // The class's detections go after the list, then both are merged. TFLite std::inplace_merge's
    // them with the comparator `a.score >= b.score`, which with libstdc++ puts a new detection
    // before a listed one of equal score; std::merge takes from its first range on ties, so the
    // new detections are passed first.
    auto listed_end = detections.begin() + num_detections;
    auto fresh_end = listed_end;
    for (int box : op_data->selected) *fresh_end++ = {box, c, op_data->candidate_scores[box]};
    std::merge(listed_end, fresh_end, detections.begin(), listed_end, op_data->merge_buffer.begin(),
               [](const Detection& a, const Detection& b) { return a.score > b.score; });
    num_detections = std::min(static_cast<int>(fresh_end - detections.begin()), options.max_detections);
    std::copy(op_data->merge_buffer.begin(), op_data->merge_buffer.begin() + num_detections, detections.begin());
  }
  for (int row = 0; row < num_detections; ++row) {
    out.boxes[row] = op_data->decoded_boxes[detections[row].box];
    out.classes[row] = static_cast<float>(detections[row].class_index);
    out.scores[row] = detections[row].score;
  }
  *out.num_detections = static_cast<float>(num_detections);
}

TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node) {
  auto* op_data = static_cast<OpData*>(node->user_data);
  const TfLiteTensor* box_encodings;
  const TfLiteTensor* class_predictions;
  const TfLiteTensor* anchors;
  TF_LITE_ENSURE_OK(context, GetInputs(context, node, &box_encodings, &class_predictions, &anchors));
  TfLiteTensor* outputs[4];
  for (int i = 0; i < 4; ++i) {
    TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, i, &outputs[i]));
  }

  if (box_encodings->type == kTfLiteUInt8) {
    DecodeBoxes<uint8_t>(box_encodings, anchors, op_data->options.scales, &op_data->decoded_boxes);
  } else {
    DecodeBoxes<float>(box_encodings, anchors, op_data->options.scales, &op_data->decoded_boxes);
  }
  // TFLite refuses inverted boxes (NaN corners pass, as there).
  for (size_t i = 0; i < op_data->decoded_boxes.size(); ++i) {
    const BoxCorners& box = op_data->decoded_boxes[i];
    if (box.ymin > box.ymax || box.xmin > box.xmax) {
      TF_LITE_KERNEL_LOG(context,
                         "box %zu decodes to ymin %g, xmin %g, ymax %g, xmax %g: a minimum exceeds "
                         "its maximum (negative anchor size?)",
                         i, static_cast<double>(box.ymin), static_cast<double>(box.xmin), static_cast<double>(box.ymax),
                         static_cast<double>(box.xmax));
      return kTfLiteError;
    }
  }

  const float* scores = tflite::GetTensorData<float>(class_predictions);
  if (class_predictions->type == kTfLiteUInt8) {
    const uint8_t* quantized = tflite::GetTensorData<uint8_t>(class_predictions);
    const float zero_point = static_cast<float>(class_predictions->params.zero_point);
    const float scale = class_predictions->params.scale;
    float* dequantized = op_data->dequantized_scores.get();
    for (size_t i = 0; i < op_data->dequantized_count; ++i) {
      dequantized[i] = (static_cast<float>(quantized[i]) - zero_point) * scale;
    }
    scores = dequantized;
  }

  // Rows without a detection are zero (TFLite leaves what the memory held).
  for (TfLiteTensor* output : outputs) {
    if (output->bytes > 0) std::memset(output->data.raw, 0, output->bytes);
  }
  const Outputs out{reinterpret_cast<BoxCorners*>(outputs[kDetectionBoxes]->data.raw),
                    tflite::GetTensorData<float>(outputs[kDetectionClasses]),
                    tflite::GetTensorData<float>(outputs[kDetectionScores]),
                    tflite::GetTensorData<float>(outputs[kNumDetections])};
  const int num_classes_with_background = class_predictions->dims->data[2];
  if (op_data->options.use_regular_nms) {
    RegularNonMaxSuppression(op_data, scores, num_classes_with_background, out);
  } else {
    FastNonMaxSuppression(op_data, scores, num_classes_with_background, out);
  }
  return kTfLiteOk;
}

}  // namespace

TS_REGISTER(DETECTION_POSTPROCESS, Init, DeleteNodeData<OpData>, Prepare, Eval)

}  // namespace reference
}  // namespace touchstone
