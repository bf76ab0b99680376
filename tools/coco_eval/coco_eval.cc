// coco_eval: detection accuracy of a .tflite detector on COCO-style data, as two numbers people use:
// TFLite run_eval's average precision (to compare with old results) and the 12 official COCO
// metrics. It reads COCO instances JSON; it can also score an existing results JSON without a model.
// It measures accuracy and per-image latency, not throughput. Delegates come from the provider registry.
// --baseline gates on mAP (either metric) against an earlier report (docs/gates.md).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets/coco_json.h"
#include "datasets/detection_proto.h"
#include "datasets/imagenet_folder.h"
#include "delegates/providers/apply_delegates.h"
#include "evaluation/coco_metrics.h"
#include "evaluation/detection_report.h"
#include "evaluation/image_classification.h"
#include "evaluation/latency_stats.h"
#include "evaluation/machine_info.h"
#include "evaluation/object_detection.h"
#include "evaluation/sha256.h"
#include "evaluation/shards.h"
#include "runtime/interpreter.h"
#include "runtime/model.h"
#include "tools/common/delegate_flags.h"
#include "tools/common/flags.h"
#include "tools/common/output_file.h"
#include "tools/common/tool_report.h"
#include "tools/common/eval_tool_support.h"
#include "tools/common/tool_runner.h"

namespace touchstone {
namespace {

using nlohmann::json;

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
  int32_t num_preprocessing_threads = 2;
  int32_t class_offset = 1;
  bool debug_mode = false;
  bool use_reference_kernels = false;
  std::string baseline;
  bool allow_config_change = false;
  float max_accuracy_drop_pct = 0.0f;
  int32_t shard_index = -1;
  int32_t num_shards = 0;
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

std::string ShapeText(const TfLiteTensor& t) {
  std::string shape = "[";
  for (int i = 0; t.dims != nullptr && i < t.dims->size; ++i) shape += (i ? "," : "") + std::to_string(t.dims->data[i]);
  return shape + "]";
}

// The sha256 of a file's bytes ("" when it cannot be read).
std::string FileSha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return Sha256Hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
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
  std::stable_sort(images.begin(), images.end(),
                   [](const CocoImage& a, const CocoImage& b) { return a.file_name < b.file_name; });
  if (flags.num_images > 0 && static_cast<int>(images.size()) > flags.num_images) images.resize(flags.num_images);
  if (images.empty()) return InvalidInputError(flags.ground_truth_json + ": no annotated images to evaluate");
  for (const CocoImage& image : images) {
    if (image.width <= 0 || image.height <= 0) {
      return InvalidInputError(flags.ground_truth_json + ": image " + std::to_string(image.id) +
                               " has no positive width and height");
    }
  }
  return images;
}

// Prints TFLite's lines and COCO's from the report.
void PrintReport(const json& report) {
  if (report.contains("num_evaluation_runs")) {
    std::cout << "Num evaluation runs: " << report["num_evaluation_runs"].get<int>() << std::endl;
    // TFLite's whole-microsecond figures.
    const json& latency = report["latency"];
    std::cout << "Preprocessing latency: avg=" << latency["preprocessing"]["tflite"]["avg"].get<double>()
              << "(us), std_dev=" << latency["preprocessing"]["tflite"]["std"].get<int64_t>() << "(us)" << std::endl;
    std::cout << "Inference latency: avg=" << latency["inference"]["tflite"]["avg"].get<double>() << "(us), std_dev="
              << latency["inference"]["tflite"]["std"].get<int64_t>() << "(us)" << std::endl;
  }
  if (!report["tflite"].is_null()) {
    for (const json& entry : report["tflite"]["average_precision"]) {
      std::cout << "Average Precision [IOU Threshold=" << Printed(entry["iou_threshold"].get<double>())
                << "]: " << Printed(entry["average_precision"].get<float>()) << std::endl;
    }
    std::cout << "Overall mAP: " << Printed(report["tflite"]["overall_map"].get<float>()) << std::endl;
  }
  if (!report["coco"].is_null()) {
    for (int i = 0; i < 12; ++i) {
      std::printf(" %s = %0.3f\n", CocoMetrics::Label(i), report["coco"][kCocoMetricNames[i]].get<double>());
    }
    std::fflush(stdout);
  }
}

// The exit code (the gate's, or 0) or an error.
StatusOr<int> Run(const CocoFlags& flags, const FlagTable& table, const DelegateFlagGroup& delegate_flags) {
  const bool proto = !flags.ground_truth_proto.empty();
  if (proto && !flags.ground_truth_json.empty()) {
    return UsageError("--ground_truth_json and --ground_truth_proto are two forms of the ground truth; give one");
  }
  if (!proto && flags.ground_truth_json.empty()) {
    return UsageError("--ground_truth_json is required (COCO instances JSON; or TFLite's --ground_truth_proto)");
  }
  if (flags.metric != "tflite" && flags.metric != "coco" && flags.metric != "both") {
    return UsageError("--metric=" + flags.metric + ": expected tflite, coco or both");
  }
  if (proto && flags.metric == "coco") {
    return UsageError("--metric=coco needs --ground_truth_json: TFLite's proto holds normalised boxes without image "
                      "sizes, areas or crowd flags");
  }
  if (proto && (!flags.detections_json.empty() || !flags.write_detections.empty() || !flags.image_ids.empty())) {
    return UsageError("--ground_truth_proto (TFLite's run_eval set-up) takes no --detections_json, --write_detections "
                      "or --image_ids; they need --ground_truth_json");
  }
  const bool run_model = flags.detections_json.empty();
  if (!run_model && (!flags.model_file.empty() || !flags.write_detections.empty())) {
    return UsageError("--detections_json scores an existing results file; it takes no --model_file or --write_detections");
  }
  if (run_model) {
    for (const auto& required : {std::make_pair("model_file", flags.model_file),
                                 std::make_pair("ground_truth_images_path", flags.ground_truth_images_path),
                                 std::make_pair("model_output_labels", flags.model_output_labels)}) {
      if (required.second.empty()) {
        return UsageError(std::string("--") + required.first + " is required (or --detections_json to score a results file)");
      }
    }
  }
  TS_ASSIGN_OR_RETURN(ShardSpec shard, ShardSpecFromFlags(flags.shard_index, flags.num_shards));
  if (shard.enabled()) {
    if (!run_model || proto) {
      return UsageError("--num_shards splits a model's run over the images of --ground_truth_json; it takes no "
                        "--detections_json or --ground_truth_proto");
    }
    if (!flags.baseline.empty()) {
      return UsageError("--baseline gates a whole run: merge the shard reports (merge_reports) and compare the "
                        "merged report (report_diff)");
    }
  }
  TS_RETURN_IF_ERROR(CheckOutputFileWritable(flags.output_file_path, "output_file_path"));
  TS_RETURN_IF_ERROR(CheckOutputFileWritable(flags.write_detections, "write_detections"));
  if (flags.max_accuracy_drop_pct < 0) return UsageError("--max_accuracy_drop_pct must not be negative");
  if (flags.baseline.empty() && flags.allow_config_change) {
    return UsageError("--allow_config_change needs --baseline=REPORT.json");
  }
  DetectionBaseline baseline;
  if (!flags.baseline.empty()) {
    TS_ASSIGN_OR_RETURN(std::string text, ReadBaselineText(flags.baseline));
    TS_ASSIGN_OR_RETURN(baseline, ParseDetectionReport(text, flags.baseline));
  }
  ReportEnvelope envelope{kDetectionReportSchema, kDetectionReportVersion, "coco_eval"};
  envelope.start_time = UtcTimestamp();
  envelope.machine = ReadMachineInfo();
  std::string config_change;
  // The configuration is complete before the model runs: a baseline made with another one is refused
  // before any image is evaluated.
  auto check_comparable = [&]() -> Status {
    CompleteEnvelope(table, delegate_flags, &envelope);
    if (flags.baseline.empty()) return Status::Ok();
    return CheckComparable(baseline.envelope, envelope, flags.baseline, flags.allow_config_change, &config_change);
  };
  // Declared before the interpreter, which holds kernels of these delegates and must go first.
  StatusOr<std::vector<ProvidedDelegate>> delegates = std::vector<ProvidedDelegate>();
  if (run_model) {
    delegates = delegate_flags.CreateDelegates(
        table, {flags.num_interpreter_threads, flags.delegate, flags.use_reference_kernels});
    if (!delegates.ok()) return delegates.status();
  } else if (!flags.delegate.empty()) {
    return UsageError("--delegate: no model runs with --detections_json");
  }
  // The images and TFLite's ground truth for each: from COCO JSON, the annotated images in file-name
  // order; from TFLite's proto, as run_eval: every file of the image folder in sorted order, its ground
  // truth found by file name (none when the proto lacks it).
  StatusOr<CocoDataset> gt = CocoDataset();
  std::vector<CocoImage> images;
  std::vector<std::vector<TfliteBox>> truth;
  if (proto) {
    TS_ASSIGN_OR_RETURN(std::vector<ProtoDetectionResult> read,
                        ReadDetectionGroundTruthProto(flags.ground_truth_proto));
    std::map<std::string, const ProtoDetectionResult*> by_name;
    for (const ProtoDetectionResult& r : read) by_name[r.image_name] = &r;  // the last one wins, as in run_eval
    TS_ASSIGN_OR_RETURN(std::vector<std::string> files, ListImageFiles(flags.ground_truth_images_path));
    for (const std::string& path : files) {
      if (flags.num_images > 0 && static_cast<int>(images.size()) >= flags.num_images) break;
      CocoImage image;
      image.file_name = path.substr(path.find_last_of('/') + 1);
      std::vector<TfliteBox> boxes;
      auto it = by_name.find(image.file_name);
      if (it != by_name.end()) {
        image.id = it->second->image_id;
        for (const ProtoObject& o : it->second->objects) {
          TfliteBox b;
          b.ymin = o.top;
          b.xmin = o.left;
          b.ymax = o.bottom;
          b.xmax = o.right;
          b.class_id = o.class_id;
          boxes.push_back(b);
        }
      }
      images.push_back(image);
      truth.push_back(boxes);
    }
    if (images.empty()) return InvalidInputError(flags.ground_truth_images_path + ": no images");
  } else {
    gt = ReadCocoInstances(flags.ground_truth_json);
    if (!gt.ok()) return gt.status();
    TS_ASSIGN_OR_RETURN(images, SelectImages(gt.value(), flags));
    truth = TfliteGroundTruth(gt.value(), images);
  }
  std::map<int64_t, size_t> index;
  for (size_t i = 0; i < images.size(); ++i) index[images[i].id] = i;

  const std::string truth_file = proto ? flags.ground_truth_proto : flags.ground_truth_json;
  envelope.config.settings = DetectionSettings(images, FileSha256(truth_file), flags.metric, flags.class_offset);
  // A shard evaluates its part of the images; the settings above name the whole list, as every shard's do.
  const ShardInfo part = ShardPart(shard, static_cast<int64_t>(images.size()), "images");
  if (part.present()) {
    envelope.shard = part;
    images = std::vector<CocoImage>(images.begin() + part.first, images.begin() + part.end);
    truth = std::vector<std::vector<TfliteBox>>(truth.begin() + part.first, truth.begin() + part.end);
    index.clear();
    for (size_t i = 0; i < images.size(); ++i) index[images[i].id] = i;
    std::cout << "Shard " << part.index << " of " << part.count << ": images " << part.first << " to " << part.end
              << " of " << part.total << " (merge the shard reports with merge_reports)" << std::endl;
  }
  json configuration = {
      {"ground_truth_json", flags.ground_truth_json}, {"ground_truth_proto", flags.ground_truth_proto},
      {"metric", flags.metric},                       {"image_ids", flags.image_ids},
      {"num_images", flags.num_images},
  };
  std::vector<std::vector<TfliteBox>> predicted(images.size());
  std::vector<CocoBox> detections;
  json measured;
  if (!run_model) {
    configuration["detections_json"] = flags.detections_json;
    // No model runs: the results file is what is scored.
    envelope.config.kernels = "none";
    envelope.config.inputs.push_back({"detections", "json", {}, "file sha256 " + FileSha256(flags.detections_json).substr(0, 12)});
    TS_RETURN_IF_ERROR(check_comparable());
    TS_ASSIGN_OR_RETURN(std::vector<CocoBox> read, ReadCocoResults(flags.detections_json, gt.value()));
    for (const CocoBox& d : read) {
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
    TS_ASSIGN_OR_RETURN(std::vector<std::string> labels, ReadLines(flags.model_output_labels));
    if (labels.empty()) return InvalidInputError(flags.model_output_labels + ": no labels");
    if (proto) {
      // As TFLite's AP stage: a ground-truth class id past the label file is an invalid class.
      for (size_t i = 0; i < images.size(); ++i) {
        for (const TfliteBox& b : truth[i]) {
          if (b.class_id < 0 || b.class_id >= static_cast<int>(labels.size())) {
            return InvalidInputError(flags.ground_truth_proto + ": class id " + std::to_string(b.class_id) + " of " +
                                     images[i].file_name + " is past the " + std::to_string(labels.size()) +
                                     " lines of " + flags.model_output_labels);
          }
        }
      }
    }
    std::vector<std::string> paths;
    for (const CocoImage& image : images) {
      const std::string path = flags.ground_truth_images_path + "/" + image.file_name;
      if (image.file_name.empty() || !FileExists(path)) {  // (the proto's images come from the folder)
        return InvalidInputError(path + ": image of ground-truth id " + std::to_string(image.id) + " is missing");
      }
      paths.push_back(path);
    }
    TS_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model, Model::FromFile(flags.model_file));
    InterpreterOptions options;
    options.kernel_set = flags.use_reference_kernels ? KernelSet::kReference : KernelSet::kOptimized;
    options.num_threads = flags.num_interpreter_threads;
    options.max_tensor_bytes = delegate_flags.max_tensor_bytes();
    options.allow_newer_op_versions = delegate_flags.allow_newer_op_versions();
    const std::shared_ptr<const Model>& loaded = model;
    std::vector<DelegateOutcome> outcomes;
    StatusOr<std::unique_ptr<Interpreter>> interpreter = BuildInterpreterWithDelegates(
        [&]() { return Interpreter::Create(loaded, options); }, delegates.value(), ApplyDelegatesOptions(), &outcomes);
    PrintDelegateOutcomes(outcomes, interpreter.ok());
    if (!interpreter.ok()) return interpreter.status();
    Interpreter* interp = interpreter.value().get();
    if (interp->inputs().size() != 1) {
      return InvalidInputError(flags.model_file + ": a detector needs one image input (it has " +
                               std::to_string(interp->inputs().size()) + ")");
    }
    DetectionConfig config;
    StatusOr<PreprocessingConfig> preprocessing = PreprocessingForModel(*interp->input_tensor(0));
    if (!preprocessing.ok()) {
      Status status = preprocessing.status();
      return status.WithContext(flags.model_file);
    }
    config.preprocessing = preprocessing.value();
    config.preprocessing.crop_fraction = 0.0f;
    StatusOr<DetectionOutputs> outputs = ResolveDetectionOutputs(interp, flags.output_tensors);
    if (!outputs.ok()) {
      Status status = outputs.status();
      return status.WithContext(flags.model_file);
    }
    config.outputs = outputs.value();
    config.class_offset = flags.class_offset;
    config.num_preprocessing_threads = flags.num_preprocessing_threads;
    envelope.model.path = flags.model_file;
    envelope.model.size_bytes = static_cast<int64_t>(loaded->file_bytes());
    envelope.model.sha256 = Sha256Hex(loaded->file_data(), loaded->file_bytes());
    envelope.config.num_threads = flags.num_interpreter_threads;
    envelope.config.kernels = flags.use_reference_kernels ? "reference" : "optimized";
    envelope.config.delegates = ReportedDelegates(outcomes);
    {
      const TfLiteTensor& in = *interp->input_tensor(0);
      std::vector<int> shape;
      for (int i = 0; in.dims != nullptr && i < in.dims->size; ++i) shape.push_back(in.dims->data[i]);
      envelope.config.inputs.push_back({in.name != nullptr ? in.name : "", TfLiteTypeGetName(in.type), shape, "images"});
    }
    TS_RETURN_IF_ERROR(check_comparable());
    DetectionResult run;
    Status ran = RunDetection(paths, config, interp, &run, MakeProgress());
    if (!ran.ok()) return ran;  // errors name the image or the output tensor
    for (size_t i = 0; i < images.size(); ++i) {
      for (const TfliteBox& b : run.detections[i]) {
        // As TFLite's AP stage: a class id past the label file is an invalid class.
        if (b.class_id < 0 || b.class_id >= static_cast<int>(labels.size())) {
          return InvalidInputError(flags.model_output_labels + ": the model predicted class " +
                                   std::to_string(b.class_id) + " on " + paths[i] + " but the label file has " +
                                   std::to_string(labels.size()) + " lines");
        }
      }
      predicted[i] = run.detections[i];
      if (flags.debug_mode) {
        std::cout << "Image: " << images[i].file_name << std::endl;
        for (size_t k = 0; k < predicted[i].size(); ++k) {
          const TfliteBox& b = predicted[i][k];
          std::cout << "Object [" << k << "]\n  Score: " << b.score << "\n  Class-ID: " << b.class_id
                    << "\n  Bounding Box:\n    Normalized Top: " << b.ymin << "\n    Normalized Bottom: " << b.ymax
                    << "\n    Normalized Left: " << b.xmin << "\n    Normalized Right: " << b.xmax << std::endl;
        }
        std::cout << "======================================================" << std::endl;
      }
    }
    const TfLiteTensor& input = *interp->input_tensor(0);
    json delegates_json = json::array();
    for (const DelegateOutcome& o : outcomes) {
      delegates_json.push_back({{"provider", o.provider}, {"applied", o.applied}, {"delegate_kernels", o.delegate_kernels},
                                {"fully_delegated", o.fully_delegated}, {"error", o.error}});
    }
    configuration.update({
        {"model_file", flags.model_file},
        {"model_output_labels", flags.model_output_labels},
        {"ground_truth_images_path", flags.ground_truth_images_path},
        {"num_interpreter_threads", flags.num_interpreter_threads},
        {"num_preprocessing_threads", flags.num_preprocessing_threads},
        {"kernel_set", flags.use_reference_kernels ? "reference" : "optimized"},
        {"delegate", flags.delegate},
        {"delegates", delegates_json},
        {"class_offset", flags.class_offset},
        {"input", {{"name", input.name != nullptr ? input.name : ""}, {"shape", ShapeText(input)},
                   {"type", TfLiteTypeGetName(input.type)}, {"layout", config.preprocessing.nchw ? "NCHW" : "NHWC"}}},
        {"output_tensors", {{"boxes", config.outputs.boxes}, {"classes", config.outputs.classes},
                            {"scores", config.outputs.scores}, {"count", config.outputs.count},
                            {"found_by", config.outputs.how}}},
    });
    if (!proto) detections = CocoDetections(images, predicted);  // no pixel sizes in the proto: TFLite's metric only
    measured["num_evaluation_runs"] = images.size();
    measured["latency"] = {{"preprocessing", json::parse(ShardLatencyJson(run.preprocessing_us, part.present()).dump())},
                           {"inference", json::parse(ShardLatencyJson(run.inference_us, part.present()).dump())}};
    measured["wall_seconds"] = run.wall_seconds;
    measured["images_per_second"] = run.wall_seconds > 0 ? images.size() / run.wall_seconds : 0.0;
  }
  json report = json::parse(EnvelopeJson(envelope).dump(-1, ' ', false, json::error_handler_t::replace));
  report["details"] = configuration;
  for (auto it = measured.begin(); it != measured.end(); ++it) report[it.key()] = it.value();
  report["num_images"] = images.size();
  size_t num_detections = 0;
  for (const std::vector<TfliteBox>& boxes : predicted) num_detections += boxes.size();
  report["num_detections"] = num_detections;
  if (proto && flags.metric == "both") {
    std::cerr << "NOTE: TFLite's metric only: the COCO metrics need --ground_truth_json (image sizes, areas)" << std::endl;
  }

  const DetectionScores scores =
      ScoreDetections(flags.metric, proto ? nullptr : &gt.value(), images, truth, predicted, detections);
  // (The report is an unordered json; its members are parsed over from the ordered ones.)
  report["tflite"] = json::parse(scores.tflite.dump());
  report["coco"] = json::parse(scores.coco.dump());
  report["per_class"] = json::parse(scores.per_class.dump(-1, ' ', false, json::error_handler_t::replace));
  report["pr_curves"] = json::parse(scores.pr_curves.dump());
  report["examples"] = json::parse(scores.examples.dump(-1, ' ', false, json::error_handler_t::replace));
  if (part.present()) report["detections"] = json::parse(ShardDetectionsJson(images, predicted).dump(-1, ' ', false, json::error_handler_t::replace));
  DetectionGateResult gate;
  if (!flags.baseline.empty()) {
    gate = CompareDetection(baseline.run, DetectionRunOf(report), flags.max_accuracy_drop_pct);
    json gate_json = {{"baseline", flags.baseline},
                      {"config_change", config_change},
                      {"verdict", GateVerdictName(gate.verdict)},
                      {"exit_code", GateExitCode(gate.verdict)},
                      {"max_accuracy_drop_pct", gate.max_accuracy_drop_pct},
                      {"reason", gate.reason}};
    json metrics_json = json::array(), worst = json::array();
    for (const DetectionGateResult::Metric& m : gate.metrics) {
      metrics_json.push_back({{"name", m.name}, {"baseline", m.baseline}, {"current", m.current},
                              {"verdict", GateVerdictName(m.verdict)}});
    }
    for (const auto& w : gate.worst_classes) {
      worst.push_back({{"name", std::get<0>(w)}, {"baseline", std::get<1>(w)}, {"current", std::get<2>(w)}});
    }
    gate_json["metrics"] = metrics_json;
    gate_json["dropped_most"] = worst;
    report["gate"] = gate_json;
  } else {
    report["gate"] = nullptr;
  }
  PrintReport(report);
  if (!flags.baseline.empty()) {
    std::cout << FormatDetectionGate(gate) << "\n" << FormatGateVerdict(gate.verdict, config_change) << std::endl;
  }
  if (!flags.write_detections.empty()) {
    json results = json::array();
    for (const CocoBox& d : detections) {
      results.push_back({{"image_id", d.image_id}, {"category_id", d.category_id}, {"bbox", {d.x, d.y, d.w, d.h}}, {"score", d.score}});
    }
    TS_RETURN_IF_ERROR(WriteFileAtomically(flags.write_detections, results.dump() + "\n", "write_detections"));
  }
  if (!flags.output_file_path.empty()) {
    const std::string text = report.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
    TS_RETURN_IF_ERROR(WriteFileAtomically(flags.output_file_path, text, "output_file_path"));
  }
  return flags.baseline.empty() ? 0 : GateExitCode(gate.verdict);
}

int Main(int argc, char** argv) {
  CocoFlags flags;
  FlagTable table;
  table.AddString("model_file", &flags.model_file, "the .tflite detector");
  table.AddString("model_output_labels", &flags.model_output_labels, "label file; its line count bounds the class ids");
  table.AddString("ground_truth_images_path", &flags.ground_truth_images_path, "folder holding the images of the ground truth");
  table.AddString("ground_truth_json", &flags.ground_truth_json, "COCO instances JSON (images, annotations, categories)");
  table.AddString("ground_truth_proto", &flags.ground_truth_proto, "TFLite's binary ObjectDetectionGroundTruth proto instead of the JSON (TFLite's metric only)");
  table.AddString("output_file_path", &flags.output_file_path, "write the JSON report with every metric here (docs/coco.md)");
  table.AddString("detections_json", &flags.detections_json, "score this COCO results JSON instead of running a model");
  table.AddString("write_detections", &flags.write_detections, "write the model's detections as a COCO results JSON");
  table.AddString("metric", &flags.metric, "tflite, coco or both");
  table.AddString("image_ids", &flags.image_ids, "comma-separated image ids to evaluate (default: all annotated)");
  table.AddString("output_tensors", &flags.output_tensors, "boxes,classes,scores,count outputs by name or index (default: detected)");
  table.AddString("delegate", &flags.delegate, DelegateFlagHelp());
  table.AddInt("num_images", &flags.num_images, "evaluate the first N images (0: all)");
  table.AddInt("num_interpreter_threads", &flags.num_interpreter_threads, "interpreter threads");
  table.AddInt("num_preprocessing_threads", &flags.num_preprocessing_threads, "decode/preprocess ahead on N threads (0: inline)");
  table.AddInt("class_offset", &flags.class_offset, "class id = class output + offset");
  table.AddBool("debug_mode", &flags.debug_mode, "print every image's detections");
  table.AddBool("use_reference_kernels", &flags.use_reference_kernels, "run the reference kernels");
  table.AddString("baseline", &flags.baseline,
                  "gate against this --output_file_path report of an earlier run: exit 1 when mAP (either metric) "
                  "drops by more than --max_accuracy_drop_pct, 2 when the configurations differ (docs/gates.md)");
  table.AddBool("allow_config_change", &flags.allow_config_change,
                "let --baseline compare runs whose model, threads, kernels, delegates, images or ground truth differ");
  table.AddFloat("max_accuracy_drop_pct", &flags.max_accuracy_drop_pct,
                 "drop of mAP, in percentage points of AP, that --baseline tolerates");
  table.AddInt("shard_index", &flags.shard_index,
               "with --num_shards: evaluate shard I of N, images [T*I/N, T*(I+1)/N) of the list, and write a shard "
               "report for merge_reports (docs/cluster.md)");
  table.AddInt("num_shards", &flags.num_shards, "split the images into N shards (with --shard_index)");
  DelegateFlagGroup delegate_flags;
  delegate_flags.AddTo(&table);
  ToolSpec spec;
  spec.name = "coco_eval";
  spec.check = [&](std::vector<std::string>*) {
    if (flags.num_preprocessing_threads < 0 || flags.num_preprocessing_threads > 64) {
      return UsageError("--num_preprocessing_threads must be in [0, 64]");
    }
    std::vector<std::string> warnings;
    TS_RETURN_IF_ERROR(CheckThreadCount("num_interpreter_threads", flags.num_interpreter_threads, false, &warnings));
    if (flags.num_interpreter_threads > 256) return UsageError("--num_interpreter_threads must be in [1, 256]");
    PrintWarnings(warnings);  // here, ahead of the checks below, so the lines keep their order
    if (flags.num_images < 0) return UsageError("--num_images must not be negative");
    if (flags.class_offset < -1000000 || flags.class_offset > 1000000) return UsageError("--class_offset is out of range");
    return Status::Ok();
  };
  spec.delegates = &delegate_flags;
  spec.run = [&]() { return Run(flags, table, delegate_flags); };
  return RunTool(argc, argv, &table, spec);
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
