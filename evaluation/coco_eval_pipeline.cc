#include "evaluation/coco_eval_pipeline.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "datasets/detection_proto.h"
#include "datasets/imagenet_folder.h"
#include "delegates/providers/apply_delegates.h"
#include "evaluation/detection_report.h"
#include "evaluation/machine_info.h"
#include "evaluation/object_detection.h"
#include "evaluation/report_envelope.h"
#include "evaluation/sha256.h"
#include "evaluation/shards.h"
#include "runtime/interpreter.h"
#include "runtime/model.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace {

using nlohmann::json;

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The sha256 of a file's bytes ("" when it cannot be read).
std::string FileSha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return Sha256Hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

// --image_ids as a set (empty: every image).
StatusOr<std::set<int64_t>> ParseImageIds(const std::string& text) {
  std::set<int64_t> ids;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    int64_t id = 0;
    if (!absl::SimpleAtoi(item, &id)) return UsageError("--image_ids: '" + item + "' is not an image id");
    ids.insert(id);
  }
  return ids;
}

// The images of the COCO instances to evaluate: those with annotations, in file-name order, narrowed.
StatusOr<std::vector<CocoImage>> SelectImages(const CocoDataset& gt, const CocoEvalOptions& o) {
  std::set<int64_t> annotated;
  for (const CocoBox& b : gt.annotations) annotated.insert(b.image_id);
  TS_ASSIGN_OR_RETURN(std::set<int64_t> wanted, ParseImageIds(o.image_ids));
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
  if (o.num_images > 0 && static_cast<int>(images.size()) > o.num_images) images.resize(o.num_images);
  if (images.empty()) return InvalidInputError(o.ground_truth_json + ": no annotated images to evaluate");
  for (const CocoImage& image : images) {
    if (image.width <= 0 || image.height <= 0) {
      return InvalidInputError(o.ground_truth_json + ": image " + std::to_string(image.id) +
                               " has no positive width and height");
    }
  }
  return images;
}

// TFLite's proto ground truth over the image folder, as run_eval pairs them.
StatusOr<CocoGroundTruth> ProtoGroundTruth(const CocoEvalOptions& o) {
  TS_ASSIGN_OR_RETURN(std::vector<ProtoDetectionResult> read, ReadDetectionGroundTruthProto(o.ground_truth_proto));
  absl::flat_hash_map<std::string, const ProtoDetectionResult*> by_name;
  for (const ProtoDetectionResult& r : read) by_name[r.image_name] = &r;  // the last one wins, as in run_eval
  TS_ASSIGN_OR_RETURN(std::vector<std::string> files, ListImageFiles(o.ground_truth_images_path));
  CocoGroundTruth truth;
  for (const std::string& path : files) {
    if (o.num_images > 0 && static_cast<int>(truth.images.size()) >= o.num_images) break;
    CocoImage image;
    image.file_name = path.substr(path.find_last_of('/') + 1);
    std::vector<TfliteBox> boxes;
    auto it = by_name.find(image.file_name);
    if (it != by_name.end()) {
      image.id = it->second->image_id;
      for (const ProtoObject& object : it->second->objects) {
        boxes.push_back({object.top, object.left, object.bottom, object.right, object.class_id});
      }
    }
    truth.images.push_back(image);
    truth.boxes.push_back(boxes);
  }
  if (truth.images.empty()) return InvalidInputError(o.ground_truth_images_path + ": no images");
  return truth;
}

// Prints TFLite's lines and COCO's from the report. TFLite's figures as it streams them: six
// significant digits ({:g}) of a double (latencies) or a float (thresholds and precisions).
void PrintReport(const json& report) {
  if (report.contains("num_evaluation_runs")) PrintTfliteLatencyLines(report);
  if (!report["tflite"].is_null()) {
    for (const json& entry : report["tflite"]["average_precision"]) {
      PrintLine(fmt::format("Average Precision [IOU Threshold={:g}]: {:g}",
                            static_cast<float>(entry["iou_threshold"].get<double>()),
                            entry["average_precision"].get<float>()));
    }
    PrintLine(fmt::format("Overall mAP: {:g}", report["tflite"]["overall_map"].get<float>()));
  }
  if (!report["coco"].is_null()) {
    // pycocotools' summary lines.
    for (int i = 0; i < 12; ++i) {
      PrintLine(fmt::format(" {} = {:.3f}", CocoMetrics::Label(i), report["coco"][kCocoMetricNames[i]].get<double>()));
    }
  }
}

// What a run builds on its way to the report.
struct CocoRun {
  ReportEnvelope envelope{kDetectionReportSchema, kDetectionReportVersion, "coco_eval"};
  DetectionBaseline baseline;
  std::string config_change;
  ShardInfo part;
  json details;                                   // the report's "details": the options that shaped it
  std::vector<std::vector<TfliteBox>> predicted;  // per image, normalised
  std::vector<CocoBox> detections;                // as COCO's pixel boxes (none for TFLite's proto)
  json measured;                                  // the model's runs and latencies (none for a results file)
};

// Completes the envelope and, with a baseline, refuses one of another configuration: called once the
// configuration is known and before any image is evaluated.
Status CompleteAndCompare(const CocoEvalOptions& o, const EvalHooks& hooks, CocoRun* run) {
  if (hooks.complete_envelope) hooks.complete_envelope(&run->envelope);
  if (o.baseline.empty()) return Status::Ok();
  return CheckComparable(run->baseline.envelope, run->envelope, o.baseline, o.allow_config_change, &run->config_change);
}

// A shard keeps its part of the images; the envelope's settings name the whole list, as every shard's do.
void NarrowToShard(const ShardSpec& shard, CocoGroundTruth* truth, CocoRun* run) {
  run->part = ShardPart(shard, static_cast<int64_t>(truth->images.size()), "images");
  const ShardInfo& part = run->part;
  if (!part.present()) return;
  run->envelope.shard = part;
  truth->images = std::vector<CocoImage>(truth->images.begin() + part.first, truth->images.begin() + part.end);
  truth->boxes =
      std::vector<std::vector<TfliteBox>>(truth->boxes.begin() + part.first, truth->boxes.begin() + part.end);
  PrintLine(DescribeShard(part));
}

// No model runs: the detections are those of the results file on the images evaluated.
Status ScoreResultsFile(const CocoEvalOptions& o, const CocoGroundTruth& truth, const EvalHooks& hooks, CocoRun* run) {
  run->details["detections_json"] = o.detections_json;
  run->envelope.config.kernels = "none";
  run->envelope.config.inputs.push_back(
      {"detections", "json", {}, "file sha256 " + FileSha256(o.detections_json).substr(0, 12)});
  TS_RETURN_IF_ERROR(CompleteAndCompare(o, hooks, run));
  TS_ASSIGN_OR_RETURN(std::vector<CocoBox> read, ReadCocoResults(o.detections_json, truth.dataset));
  absl::flat_hash_map<int64_t, size_t> index;
  for (size_t i = 0; i < truth.images.size(); ++i) index[truth.images[i].id] = i;
  for (const CocoBox& d : read) {
    auto it = index.find(d.image_id);
    if (it == index.end()) continue;
    run->detections.push_back(d);
    const CocoImage& image = truth.images[it->second];
    run->predicted[it->second].push_back(NormalizedBox(d, image));
  }
  return Status::Ok();
}

// As TFLite's AP stage: a ground-truth class id past the label file is an invalid class.
Status CheckProtoClassIds(const CocoEvalOptions& o, const CocoGroundTruth& truth, size_t num_labels) {
  for (size_t i = 0; i < truth.images.size(); ++i) {
    for (const TfliteBox& b : truth.boxes[i]) {
      if (b.class_id < 0 || b.class_id >= static_cast<int>(num_labels)) {
        return InvalidInputError(o.ground_truth_proto + ": class id " + std::to_string(b.class_id) + " of " +
                                 truth.images[i].file_name + " is past the " + std::to_string(num_labels) +
                                 " lines of " + o.model_output_labels);
      }
    }
  }
  return Status::Ok();
}

// Each image's file, which must exist (the proto's images come from the folder).
StatusOr<std::vector<std::string>> ImagePaths(const CocoEvalOptions& o, const std::vector<CocoImage>& images) {
  std::vector<std::string> paths;
  for (const CocoImage& image : images) {
    const std::string path = o.ground_truth_images_path + "/" + image.file_name;
    if (image.file_name.empty() || !FileExists(path)) {
      return InvalidInputError(path + ": image of ground-truth id " + std::to_string(image.id) + " is missing");
    }
    paths.push_back(path);
  }
  return paths;
}

// The model under test with its delegates applied (their outcomes printed) and how its input and
// outputs are read. The interpreter goes before the model it runs.
struct Detector {
  std::shared_ptr<const Model> model;
  std::unique_ptr<Interpreter> interpreter;
  std::vector<DelegateOutcome> outcomes;
  DetectionConfig config;
};

StatusOr<Detector> BuildDetector(const CocoEvalOptions& o, const std::vector<ProvidedDelegate>& delegates) {
  Detector detector;
  TS_ASSIGN_OR_RETURN(detector.model, Model::FromFile(o.model_file));
  InterpreterOptions options;
  options.kernel_set = o.use_reference_kernels ? KernelSet::kReference : KernelSet::kOptimized;
  options.num_threads = o.num_interpreter_threads;
  options.max_tensor_bytes = o.max_tensor_bytes;
  options.allow_newer_op_versions = o.allow_newer_op_versions;
  const std::shared_ptr<const Model>& model = detector.model;
  StatusOr<std::unique_ptr<Interpreter>> interpreter = BuildInterpreterWithDelegates(
      [&]() { return Interpreter::Create(model, options); }, delegates, ApplyDelegatesOptions(), &detector.outcomes);
  PrintDelegateOutcomes(detector.outcomes, interpreter.ok());
  TS_ASSIGN_OR_RETURN(detector.interpreter, std::move(interpreter));
  Interpreter* interp = detector.interpreter.get();
  if (interp->inputs().size() != 1) {
    return InvalidInputError(o.model_file + ": a detector needs one image input (it has " +
                             std::to_string(interp->inputs().size()) + ")");
  }
  StatusOr<PreprocessingConfig> preprocessing = PreprocessingForModel(*interp->input_tensor(0));
  if (!preprocessing.ok()) {
    Status status = preprocessing.status();
    return status.WithContext(o.model_file);
  }
  detector.config.preprocessing = preprocessing.value();
  detector.config.preprocessing.crop_fraction = 0.0f;  // the whole image, as TFLite's ObjectDetectionStage
  StatusOr<DetectionOutputs> outputs = ResolveDetectionOutputs(interp, o.output_tensors);
  if (!outputs.ok()) {
    Status status = outputs.status();
    return status.WithContext(o.model_file);
  }
  detector.config.outputs = outputs.value();
  detector.config.class_offset = o.class_offset;
  detector.config.num_preprocessing_threads = o.num_preprocessing_threads;
  return detector;
}

void FillModelEnvelope(const CocoEvalOptions& o, const Detector& detector, ReportEnvelope* envelope) {
  envelope->model.path = o.model_file;
  envelope->model.size_bytes = static_cast<int64_t>(detector.model->file_bytes());
  envelope->model.sha256 = Sha256Hex(detector.model->file_data(), detector.model->file_bytes());
  envelope->config.num_threads = o.num_interpreter_threads;
  envelope->config.kernels = o.use_reference_kernels ? "reference" : "optimized";
  envelope->config.delegates = ReportedDelegates(detector.outcomes);
  const TfLiteTensor& in = *detector.interpreter->input_tensor(0);
  std::vector<int> shape;
  for (int i = 0; in.dims != nullptr && i < in.dims->size; ++i) shape.push_back(in.dims->data[i]);
  envelope->config.inputs.push_back({in.name != nullptr ? in.name : "", TfLiteTypeGetName(in.type), shape, "images"});
}

// The report's "details" of a model's run.
json ModelDetails(const CocoEvalOptions& o, const Detector& detector) {
  const TfLiteTensor& input = *detector.interpreter->input_tensor(0);
  const DetectionConfig& config = detector.config;
  json delegates = json::array();
  for (const DelegateOutcome& d : detector.outcomes) {
    delegates.push_back({{"provider", d.provider},
                         {"applied", d.applied},
                         {"delegate_kernels", d.delegate_kernels},
                         {"fully_delegated", d.fully_delegated},
                         {"error", d.error}});
  }
  return {
      {"model_file", o.model_file},
      {"model_output_labels", o.model_output_labels},
      {"ground_truth_images_path", o.ground_truth_images_path},
      {"num_interpreter_threads", o.num_interpreter_threads},
      {"num_preprocessing_threads", o.num_preprocessing_threads},
      {"kernel_set", o.use_reference_kernels ? "reference" : "optimized"},
      {"delegate", o.delegate},
      {"delegates", delegates},
      {"class_offset", o.class_offset},
      {"input",
       {{"name", input.name != nullptr ? input.name : ""},
        {"shape", ShapeString(&input)},
        {"type", TfLiteTypeGetName(input.type)},
        {"layout", config.preprocessing.nchw ? "NCHW" : "NHWC"}}},
      {"output_tensors",
       {{"boxes", config.outputs.boxes},
        {"classes", config.outputs.classes},
        {"scores", config.outputs.scores},
        {"count", config.outputs.count},
        {"found_by", config.outputs.how}}},
  };
}

// TFLite's --debug_mode lines for one image.
void PrintDebugDetections(const std::string& file_name, const std::vector<TfliteBox>& boxes) {
  PrintLine("Image: " + file_name);
  for (size_t k = 0; k < boxes.size(); ++k) {
    const TfliteBox& b = boxes[k];
    PrintLine(fmt::format(
        "Object [{}]\n  Score: {:g}\n  Class-ID: {}\n  Bounding Box:\n    Normalized Top: {:g}\n    Normalized Bottom: "
        "{:g}\n    Normalized Left: {:g}\n    Normalized Right: {:g}",
        k, b.score, b.class_id, b.ymin, b.ymax, b.xmin, b.xmax));
  }
  PrintLine("======================================================");
}

// Keeps each image's detections (printed with --debug_mode), refusing, as TFLite's AP stage, a class id
// past the label file.
Status TakeDetections(const CocoEvalOptions& o, const std::vector<CocoImage>& images,
                      const std::vector<std::string>& paths, size_t num_labels, const DetectionResult& result,
                      CocoRun* run) {
  for (size_t i = 0; i < images.size(); ++i) {
    for (const TfliteBox& b : result.detections[i]) {
      if (b.class_id < 0 || b.class_id >= static_cast<int>(num_labels)) {
        return InvalidInputError(o.model_output_labels + ": the model predicted class " + std::to_string(b.class_id) +
                                 " on " + paths[i] + " but the label file has " + std::to_string(num_labels) +
                                 " lines");
      }
    }
    run->predicted[i] = result.detections[i];
    if (o.debug_mode) PrintDebugDetections(images[i].file_name, run->predicted[i]);
  }
  return Status::Ok();
}

// Runs the model over the images into run->predicted (and, with COCO JSON, run->detections).
Status RunModel(const CocoEvalOptions& o, const CocoGroundTruth& truth, const std::vector<ProvidedDelegate>& delegates,
                const EvalHooks& hooks, CocoRun* run) {
  const bool proto = !o.ground_truth_proto.empty();
  TS_ASSIGN_OR_RETURN(std::vector<std::string> labels, ReadLines(o.model_output_labels));
  if (labels.empty()) return InvalidInputError(o.model_output_labels + ": no labels");
  if (proto) TS_RETURN_IF_ERROR(CheckProtoClassIds(o, truth, labels.size()));
  TS_ASSIGN_OR_RETURN(std::vector<std::string> paths, ImagePaths(o, truth.images));
  TS_ASSIGN_OR_RETURN(Detector detector, BuildDetector(o, delegates));
  FillModelEnvelope(o, detector, &run->envelope);
  TS_RETURN_IF_ERROR(CompleteAndCompare(o, hooks, run));
  DetectionResult result;
  Status ran = RunDetection(paths, detector.config, detector.interpreter.get(), &result,
                            hooks.make_progress ? hooks.make_progress() : nullptr);
  if (!ran.ok()) return ran;  // errors name the image or the output tensor
  TS_RETURN_IF_ERROR(TakeDetections(o, truth.images, paths, labels.size(), result, run));
  run->details.update(ModelDetails(o, detector));
  // No pixel sizes in the proto: TFLite's metric only.
  if (!proto) run->detections = CocoDetections(truth.images, run->predicted);
  const size_t num_images = truth.images.size();
  run->measured["num_evaluation_runs"] = num_images;
  run->measured["latency"] = {
      {"preprocessing", json::parse(ShardLatencyJson(result.preprocessing_us, run->part.present()).dump())},
      {"inference", json::parse(ShardLatencyJson(result.inference_us, run->part.present()).dump())}};
  run->measured["wall_seconds"] = result.wall_seconds;
  run->measured["images_per_second"] = result.wall_seconds > 0 ? num_images / result.wall_seconds : 0.0;
  return Status::Ok();
}

// The report's "gate": the comparison with the baseline's figures.
json GateJson(const CocoEvalOptions& o, const std::string& config_change, const DetectionGateResult& gate) {
  json gate_json = {{"baseline", o.baseline},
                    {"config_change", config_change},
                    {"verdict", GateVerdictName(gate.verdict)},
                    {"exit_code", GateExitCode(gate.verdict)},
                    {"max_accuracy_drop_pct", gate.max_accuracy_drop_pct},
                    {"reason", gate.reason}};
  json metrics = json::array(), worst = json::array();
  for (const DetectionGateResult::Metric& m : gate.metrics) {
    metrics.push_back(
        {{"name", m.name}, {"baseline", m.baseline}, {"current", m.current}, {"verdict", GateVerdictName(m.verdict)}});
  }
  for (const auto& w : gate.worst_classes) {
    worst.push_back({{"name", std::get<0>(w)}, {"baseline", std::get<1>(w)}, {"current", std::get<2>(w)}});
  }
  gate_json["metrics"] = metrics;
  gate_json["dropped_most"] = worst;
  return gate_json;
}

// The report with every figure (an unordered json: its members print in name order).
json BuildReport(const CocoEvalOptions& o, const CocoGroundTruth& truth, const CocoRun& run) {
  const auto replace = json::error_handler_t::replace;  // names and paths may hold any bytes
  json report = json::parse(EnvelopeJson(run.envelope).dump(-1, ' ', false, replace));
  report["details"] = run.details;
  for (auto it = run.measured.begin(); it != run.measured.end(); ++it) report[it.key()] = it.value();
  report["num_images"] = truth.images.size();
  size_t num_detections = 0;
  for (const std::vector<TfliteBox>& boxes : run.predicted) num_detections += boxes.size();
  report["num_detections"] = num_detections;
  const bool proto = !o.ground_truth_proto.empty();
  if (proto && o.metric == "both") {
    std::cerr << "NOTE: TFLite's metric only: the COCO metrics need --ground_truth_json (image sizes, areas)"
              << std::endl;
  }
  const DetectionScores scores = ScoreDetections(o.metric, proto ? nullptr : &truth.dataset, truth.images, truth.boxes,
                                                 run.predicted, run.detections);
  // The scores are ordered json; the report takes them parsed over.
  report["tflite"] = json::parse(scores.tflite.dump());
  report["coco"] = json::parse(scores.coco.dump());
  report["per_class"] = json::parse(scores.per_class.dump(-1, ' ', false, replace));
  report["pr_curves"] = json::parse(scores.pr_curves.dump());
  report["examples"] = json::parse(scores.examples.dump(-1, ' ', false, replace));
  if (run.part.present()) {
    report["detections"] = json::parse(ShardDetectionsJson(truth.images, run.predicted).dump(-1, ' ', false, replace));
  }
  return report;
}

// Gates and prints the report; the texts to write and the exit code.
CocoEvalOutcome FinishReport(const CocoEvalOptions& o, const CocoGroundTruth& truth, const CocoRun& run) {
  json report = BuildReport(o, truth, run);
  DetectionGateResult gate;
  report["gate"] = nullptr;
  if (!o.baseline.empty()) {
    gate = CompareDetection(run.baseline.run, DetectionRunOf(report), o.max_accuracy_drop_pct);
    report["gate"] = GateJson(o, run.config_change, gate);
  }
  PrintReport(report);
  if (!o.baseline.empty()) {
    std::cout << FormatDetectionGate(gate) << "\n" << FormatGateVerdict(gate.verdict, run.config_change) << std::endl;
  }
  CocoEvalOutcome outcome;
  if (!o.write_detections.empty()) {
    json results = json::array();
    for (const CocoBox& d : run.detections) {
      results.push_back({{"image_id", d.image_id},
                         {"category_id", d.category_id},
                         {"bbox", {d.x, d.y, d.w, d.h}},
                         {"score", d.score}});
    }
    outcome.detections_json = results.dump() + "\n";
  }
  outcome.report_json = report.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
  outcome.exit_code = o.baseline.empty() ? 0 : GateExitCode(gate.verdict);
  return outcome;
}

}  // namespace

Status CheckCocoEvalOptions(const CocoEvalOptions& o) {
  const bool proto = !o.ground_truth_proto.empty();
  if (proto && !o.ground_truth_json.empty()) {
    return UsageError("--ground_truth_json and --ground_truth_proto are two forms of the ground truth; give one");
  }
  if (!proto && o.ground_truth_json.empty()) {
    return UsageError("--ground_truth_json is required (COCO instances JSON; or TFLite's --ground_truth_proto)");
  }
  if (o.metric != "tflite" && o.metric != "coco" && o.metric != "both") {
    return UsageError("--metric=" + o.metric + ": expected tflite, coco or both");
  }
  if (proto && o.metric == "coco") {
    return UsageError(
        "--metric=coco needs --ground_truth_json: TFLite's proto holds normalised boxes without image "
        "sizes, areas or crowd flags");
  }
  if (proto && (!o.detections_json.empty() || !o.write_detections.empty() || !o.image_ids.empty())) {
    return UsageError(
        "--ground_truth_proto (TFLite's run_eval set-up) takes no --detections_json, --write_detections "
        "or --image_ids; they need --ground_truth_json");
  }
  const bool run_model = o.detections_json.empty();
  if (!run_model && (!o.model_file.empty() || !o.write_detections.empty())) {
    return UsageError(
        "--detections_json scores an existing results file; it takes no --model_file or --write_detections");
  }
  if (run_model) {
    for (const auto& required : {std::make_pair("model_file", o.model_file),
                                 std::make_pair("ground_truth_images_path", o.ground_truth_images_path),
                                 std::make_pair("model_output_labels", o.model_output_labels)}) {
      if (required.second.empty()) {
        return UsageError(std::string("--") + required.first +
                          " is required (or --detections_json to score a results file)");
      }
    }
  }
  TS_ASSIGN_OR_RETURN(ShardSpec shard, ShardSpecFromFlags(o.shard_index, o.num_shards));
  if (shard.enabled() && (!run_model || proto)) {
    return UsageError(
        "--num_shards splits a model's run over the images of --ground_truth_json; it takes no "
        "--detections_json or --ground_truth_proto");
  }
  if (shard.enabled() && !o.baseline.empty()) {
    return UsageError(
        "--baseline gates a whole run: merge the shard reports (merge_reports) and compare the "
        "merged report (report_diff)");
  }
  return Status::Ok();
}

Status CheckCocoGateOptions(const CocoEvalOptions& o) {
  if (o.max_accuracy_drop_pct < 0) return UsageError("--max_accuracy_drop_pct must not be negative");
  if (o.baseline.empty() && o.allow_config_change) {
    return UsageError("--allow_config_change needs --baseline=REPORT.json");
  }
  return Status::Ok();
}

StatusOr<CocoGroundTruth> LoadCocoGroundTruth(const CocoEvalOptions& o) {
  if (!o.ground_truth_proto.empty()) return ProtoGroundTruth(o);
  CocoGroundTruth truth;
  TS_ASSIGN_OR_RETURN(truth.dataset, ReadCocoInstances(o.ground_truth_json));
  TS_ASSIGN_OR_RETURN(truth.images, SelectImages(truth.dataset, o));
  truth.boxes = TfliteGroundTruth(truth.dataset, truth.images);
  return truth;
}

StatusOr<CocoEvalOutcome> RunCocoEval(const CocoEvalOptions& o, const std::string& start_time,
                                      const std::string& baseline_text, const EvalHooks& hooks) {
  TS_RETURN_IF_ERROR(CheckCocoEvalOptions(o));
  TS_RETURN_IF_ERROR(CheckCocoGateOptions(o));
  CocoRun run;
  if (!o.baseline.empty()) {
    TS_ASSIGN_OR_RETURN(run.baseline, ParseDetectionReport(baseline_text, o.baseline));
  }
  run.envelope.start_time = start_time;
  run.envelope.machine = ReadMachineInfo();
  const bool run_model = o.detections_json.empty();
  // Declared before the interpreter, which holds kernels of these delegates and must go first.
  std::vector<ProvidedDelegate> delegates;
  if (run_model) {
    TS_ASSIGN_OR_RETURN(delegates, hooks.create_delegates());
  } else if (!o.delegate.empty()) {
    return UsageError("--delegate: no model runs with --detections_json");
  }
  TS_ASSIGN_OR_RETURN(CocoGroundTruth truth, LoadCocoGroundTruth(o));
  const std::string truth_file = o.ground_truth_proto.empty() ? o.ground_truth_json : o.ground_truth_proto;
  run.envelope.config.settings = DetectionSettings(truth.images, FileSha256(truth_file), o.metric, o.class_offset);
  TS_ASSIGN_OR_RETURN(ShardSpec shard, ShardSpecFromFlags(o.shard_index, o.num_shards));
  NarrowToShard(shard, &truth, &run);
  run.details = {
      {"ground_truth_json", o.ground_truth_json},
      {"ground_truth_proto", o.ground_truth_proto},
      {"metric", o.metric},
      {"image_ids", o.image_ids},
      {"num_images", o.num_images},
  };
  run.predicted.resize(truth.images.size());
  if (run_model) {
    TS_RETURN_IF_ERROR(RunModel(o, truth, delegates, hooks, &run));
  } else {
    TS_RETURN_IF_ERROR(ScoreResultsFile(o, truth, hooks, &run));
  }
  return FinishReport(o, truth, run);
}

}  // namespace touchstone
