// coco_eval: detection accuracy of a .tflite detector on COCO-style data, as two numbers people use:
// TFLite run_eval's average precision (to compare with old results) and the 12 official COCO
// metrics. It reads COCO instances JSON; it can also score an existing results JSON without a model.
// It measures accuracy and per-image latency, not throughput.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets/coco_json.h"
#include "datasets/imagenet_folder.h"
#include "evaluation/coco_metrics.h"
#include "evaluation/image_classification.h"
#include "evaluation/latency_stats.h"
#include "evaluation/object_detection.h"
#include "runtime/interpreter.h"
#include "runtime/model.h"
#include "tools/common/flags.h"
#include "tools/common/output_file.h"

namespace touchstone {
namespace {

struct CocoFlags {
  std::string model_file;
  std::string model_output_labels;
  std::string ground_truth_images_path;
  std::string ground_truth_json;
  std::string ground_truth_proto;
  std::string output_file_path;
  std::string detections_json;
  std::string write_detections;
  std::string metric = "both";
  std::string image_ids;
  std::string output_tensors;
  std::string delegate;
  int32_t num_images = 0;
  int32_t num_interpreter_threads = 1;
  int32_t class_offset = 1;
  bool debug_mode = false;
  bool use_reference_kernels = false;
};

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string Printed(double v) {
  std::ostringstream out;
  out << static_cast<float>(v);
  return out.str();
}

// The images to evaluate: those of the ground truth that have annotations (as TFLite's
// preprocess_coco_minival.py keeps them), in file-name order, optionally narrowed.
StatusOr<std::vector<CocoImage>> SelectImages(const CocoDataset& gt, const CocoFlags& flags) {
  std::set<int64_t> annotated;
  for (const CocoBox& b : gt.annotations) annotated.insert(b.image_id);
  std::set<int64_t> wanted;
  if (!flags.image_ids.empty()) {
    std::stringstream in(flags.image_ids);
    std::string item;
    while (std::getline(in, item, ',')) {
      char* end = nullptr;
      const long long id = std::strtoll(item.c_str(), &end, 10);
      if (item.empty() || *end != '\0') return UsageError("--image_ids: '" + item + "' is not an image id");
      wanted.insert(id);
    }
  }
  std::vector<CocoImage> images;
  for (const CocoImage& image : gt.images) {
    if (!annotated.count(image.id)) continue;
    if (!wanted.empty() && !wanted.count(image.id)) continue;
    images.push_back(image);
  }
  for (int64_t id : wanted) {
    if (std::none_of(images.begin(), images.end(), [&](const CocoImage& i) { return i.id == id; })) {
      return UsageError("--image_ids: image " + std::to_string(id) + " is not an annotated image of the ground truth");
    }
  }
  std::sort(images.begin(), images.end(), [](const CocoImage& a, const CocoImage& b) { return a.file_name < b.file_name; });
  if (flags.num_images > 0 && static_cast<int>(images.size()) > flags.num_images) images.resize(flags.num_images);
  if (images.empty()) return InvalidInputError(flags.ground_truth_json + ": no annotated images to evaluate");
  return images;
}

// TFLite's ground truth: boxes normalised in double then stored as float, boxes past an edge dropped.
std::vector<std::vector<TfliteBox>> TfliteGroundTruth(const CocoDataset& gt, const std::vector<CocoImage>& images) {
  std::map<int64_t, size_t> index;
  for (size_t i = 0; i < images.size(); ++i) index[images[i].id] = i;
  std::vector<std::vector<TfliteBox>> truth(images.size());
  for (const CocoBox& a : gt.annotations) {
    auto it = index.find(a.image_id);
    if (it == index.end()) continue;
    const CocoImage& im = images[it->second];
    if (im.width <= 0 || im.height <= 0 || a.x + a.w > im.width || a.y + a.h > im.height) continue;
    TfliteBox b;
    b.ymin = static_cast<float>(a.y / im.height);
    b.xmin = static_cast<float>(a.x / im.width);
    b.ymax = static_cast<float>((a.y + a.h) / im.height);
    b.xmax = static_cast<float>((a.x + a.w) / im.width);
    b.class_id = static_cast<int>(a.category_id);
    truth[it->second].push_back(b);
  }
  return truth;
}

Status Run(const CocoFlags& flags) {
  if (!flags.ground_truth_proto.empty()) {
    return UsageError("--ground_truth_proto: binary protobuf ground truth is not read; pass the COCO instances JSON "
                      "with --ground_truth_json");
  }
  if (flags.ground_truth_json.empty()) return UsageError("--ground_truth_json is required (COCO instances JSON)");
  if (flags.metric != "tflite" && flags.metric != "coco" && flags.metric != "both") {
    return UsageError("--metric=" + flags.metric + ": expected tflite, coco or both");
  }
  if (!flags.delegate.empty()) return UsageError("--delegate=" + flags.delegate + ": no such delegate is available yet");
  StatusOr<CocoDataset> gt = ReadCocoInstances(flags.ground_truth_json);
  if (!gt.ok()) return gt.status();
  StatusOr<std::vector<CocoImage>> selected = SelectImages(gt.value(), flags);
  if (!selected.ok()) return selected.status();
  const std::vector<CocoImage>& images = selected.value();
  std::map<int64_t, size_t> index;
  for (size_t i = 0; i < images.size(); ++i) index[images[i].id] = i;

  std::vector<std::vector<TfliteBox>> predicted(images.size());
  std::vector<CocoBox> detections;
  LatencyStats preprocessing_us, inference_us;
  if (!flags.detections_json.empty()) {
    StatusOr<std::vector<CocoBox>> read = ReadCocoResults(flags.detections_json, gt.value());
    if (!read.ok()) return read.status();
    for (const CocoBox& d : read.value()) {
      auto it = index.find(d.image_id);
      if (it == index.end()) continue;
      detections.push_back(d);
      const CocoImage& im = images[it->second];
      TfliteBox b;
      b.xmin = static_cast<float>(d.x / im.width);
      b.ymin = static_cast<float>(d.y / im.height);
      b.xmax = static_cast<float>((d.x + d.w) / im.width);
      b.ymax = static_cast<float>((d.y + d.h) / im.height);
      b.class_id = static_cast<int>(d.category_id);
      b.score = static_cast<float>(d.score);
      predicted[it->second].push_back(b);
    }
  } else {
    for (const auto& required : {std::make_pair("model_file", flags.model_file),
                                 std::make_pair("ground_truth_images_path", flags.ground_truth_images_path),
                                 std::make_pair("model_output_labels", flags.model_output_labels)}) {
      if (required.second.empty()) return UsageError(std::string("--") + required.first + " is required");
    }
    StatusOr<std::vector<std::string>> labels = ReadLines(flags.model_output_labels);
    if (!labels.ok()) return labels.status();
    StatusOr<std::shared_ptr<const Model>> model = Model::FromFile(flags.model_file);
    if (!model.ok()) return model.status();
    InterpreterOptions options;
    options.kernel_set = flags.use_reference_kernels ? KernelSet::kReference : KernelSet::kOptimized;
    options.num_threads = flags.num_interpreter_threads;
    StatusOr<std::unique_ptr<Interpreter>> interpreter = Interpreter::Create(model.value(), options);
    if (!interpreter.ok()) return interpreter.status();
    Interpreter* interp = interpreter.value().get();
    TS_RETURN_IF_ERROR(interp->AllocateTensors());
    if (interp->inputs().size() != 1) return InvalidInputError(flags.model_file + ": a detector needs one image input");
    DetectionConfig config;
    StatusOr<PreprocessingConfig> preprocessing = PreprocessingForModel(*interp->input_tensor(0));
    if (!preprocessing.ok()) return preprocessing.status();
    config.preprocessing = preprocessing.value();
    config.preprocessing.crop_fraction = 0.0f;
    StatusOr<DetectionOutputs> outputs = ResolveDetectionOutputs(interp, flags.output_tensors);
    if (!outputs.ok()) return outputs.status();
    config.outputs = outputs.value();
    config.class_offset = flags.class_offset;
    for (size_t i = 0; i < images.size(); ++i) {
      const std::string path = flags.ground_truth_images_path + "/" + images[i].file_name;
      if (!FileExists(path)) return InvalidInputError(path + ": image of ground-truth id " + std::to_string(images[i].id) + " is missing");
      StatusOr<DetectionRun> run = DetectImage(path, config, interp);
      if (!run.ok()) return run.status();
      preprocessing_us.Add(run.value().preprocessing_us);
      inference_us.Add(run.value().inference_us);
      for (const TfliteBox& b : run.value().detections) {
        if (b.class_id < 0 || b.class_id >= static_cast<int>(labels.value().size())) {
          return InvalidInputError(flags.model_output_labels + ": the model predicted class " + std::to_string(b.class_id) +
                                   " but the label file has " + std::to_string(labels.value().size()) + " lines");
        }
        CocoBox d;
        d.image_id = images[i].id;
        d.category_id = b.class_id;
        d.x = static_cast<double>(b.xmin) * images[i].width;
        d.y = static_cast<double>(b.ymin) * images[i].height;
        d.w = static_cast<double>(b.xmax - b.xmin) * images[i].width;
        d.h = static_cast<double>(b.ymax - b.ymin) * images[i].height;
        d.area = d.w * d.h;
        d.score = b.score;
        detections.push_back(d);
      }
      predicted[i] = run.value().detections;
      if (flags.debug_mode) {
        std::cout << "Image: " << images[i].file_name << std::endl;
        for (size_t k = 0; k < predicted[i].size(); ++k) {
          const TfliteBox& b = predicted[i][k];
          std::cout << "Object [" << k << "]\n  Score: " << b.score << "\n  Class-ID: " << b.class_id
                    << "\n  Bounding Box:\n    Normalized Top: " << b.ymin << "\n    Normalized Bottom: " << b.ymax
                    << "\n    Normalized Left: " << b.xmin << "\n    Normalized Right: " << b.xmax << std::endl;
        }
      }
    }
    std::cout << "Num evaluation runs: " << images.size() << std::endl;
    std::cout << "Preprocessing latency: avg=" << preprocessing_us.mean_us() << "(us), std_dev="
              << static_cast<int64_t>(preprocessing_us.stddev_us()) << "(us)" << std::endl;
    std::cout << "Inference latency: avg=" << inference_us.mean_us() << "(us), std_dev="
              << static_cast<int64_t>(inference_us.stddev_us()) << "(us)" << std::endl;
  }

  nlohmann::json report;
  if (flags.metric != "coco") {
    const TfliteApResult ap = EvaluateTfliteAp(TfliteGroundTruth(gt.value(), images), predicted);
    for (size_t i = 0; i < ap.average_precision.size(); ++i) {
      std::cout << "Average Precision [IOU Threshold=" << Printed(ap.iou_thresholds[i]) << "]: " << Printed(ap.average_precision[i])
                << std::endl;
      report["tflite"]["average_precision"].push_back({{"iou_threshold", ap.iou_thresholds[i]}, {"ap", ap.average_precision[i]}});
    }
    std::cout << "Overall mAP: " << Printed(ap.overall_map) << std::endl;
    report["tflite"]["overall_map"] = ap.overall_map;
  }
  if (flags.metric != "tflite") {
    std::vector<int64_t> image_ids, category_ids;
    for (const CocoImage& im : images) image_ids.push_back(im.id);
    for (const auto& c : gt.value().categories) category_ids.push_back(c.first);
    std::vector<CocoBox> truth;
    for (const CocoBox& a : gt.value().annotations) {
      if (index.count(a.image_id)) truth.push_back(a);
    }
    const CocoMetrics metrics = EvaluateCoco(truth, detections, image_ids, category_ids);
    for (int i = 0; i < 12; ++i) {
      char line[160];
      std::snprintf(line, sizeof(line), " %s = %0.3f", CocoMetrics::Label(i), metrics.values[i]);
      std::cout << line << std::endl;
      report["coco"][CocoMetrics::Label(i)] = metrics.values[i];
    }
  }
  if (!flags.write_detections.empty()) {
    nlohmann::json results = nlohmann::json::array();
    for (const CocoBox& d : detections) {
      results.push_back({{"image_id", d.image_id}, {"category_id", d.category_id}, {"bbox", {d.x, d.y, d.w, d.h}}, {"score", d.score}});
    }
    TS_RETURN_IF_ERROR(WriteFileAtomically(flags.write_detections, results.dump() + "\n", "write_detections"));
  }
  if (!flags.output_file_path.empty()) {
    report["num_images"] = images.size();
    report["model_file"] = flags.model_file;
    report["ground_truth_json"] = flags.ground_truth_json;
    report["inference_latency_us"] = {{"avg", inference_us.mean_us()}, {"std_dev", inference_us.stddev_us()}};
    TS_RETURN_IF_ERROR(WriteFileAtomically(flags.output_file_path, report.dump(1) + "\n", "output_file_path"));
  }
  return Status::Ok();
}

int Main(int argc, char** argv) {
  CocoFlags flags;
  FlagTable table;
  table.AddString("model_file", &flags.model_file, "the .tflite detector");
  table.AddString("model_output_labels", &flags.model_output_labels, "label file; its line count bounds the class ids");
  table.AddString("ground_truth_images_path", &flags.ground_truth_images_path, "folder holding the images of the ground truth");
  table.AddString("ground_truth_json", &flags.ground_truth_json, "COCO instances JSON (images, annotations, categories)");
  table.AddString("ground_truth_proto", &flags.ground_truth_proto, "TFLite's binary proto ground truth (not read: use --ground_truth_json)");
  table.AddString("output_file_path", &flags.output_file_path, "write a JSON report with every metric here");
  table.AddString("detections_json", &flags.detections_json, "score this COCO results JSON instead of running a model");
  table.AddString("write_detections", &flags.write_detections, "write the model's detections as a COCO results JSON");
  table.AddString("metric", &flags.metric, "tflite, coco or both");
  table.AddString("image_ids", &flags.image_ids, "comma-separated image ids to evaluate (default: all annotated)");
  table.AddString("output_tensors", &flags.output_tensors, "boxes,classes,scores,count outputs by name or index");
  table.AddString("delegate", &flags.delegate, "delegate to apply by name");
  table.AddInt("num_images", &flags.num_images, "evaluate the first N images (0: all)");
  table.AddInt("num_interpreter_threads", &flags.num_interpreter_threads, "interpreter threads");
  table.AddInt("class_offset", &flags.class_offset, "class id = class output + offset");
  table.AddBool("debug_mode", &flags.debug_mode, "print every image's detections");
  table.AddBool("use_reference_kernels", &flags.use_reference_kernels, "run the reference kernels");
  bool help = false;
  Status parsed = table.Parse(argc, argv, &help, nullptr);
  if (help) {
    std::cout << table.Usage("coco_eval");
    return 0;
  }
  if (!parsed.ok()) return ReportFailure(parsed);
  Status status = Run(flags);
  if (!status.ok()) return ReportFailure(status);
  return 0;
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
