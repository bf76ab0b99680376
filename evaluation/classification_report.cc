#include "evaluation/classification_report.h"

#include <map>

#include "evaluation/sha256.h"

namespace touchstone {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

std::string Sha256Of(const std::string& text) {
  return Sha256Hex(reinterpret_cast<const uint8_t*>(text.data()), text.size()).substr(0, 12);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> DatasetSettings(const std::vector<LabelledImage>& images,
                                                                 const std::vector<std::string>& model_labels,
                                                                 const std::string& normalization, int label_offset) {
  std::string listing, labels;
  for (const LabelledImage& image : images) listing += BaseName(image.path) + "\t" + image.label + "\n";
  for (const std::string& label : model_labels) labels += label + "\n";
  return {{"images", std::to_string(images.size())},
          {"dataset_sha256", Sha256Of(listing)},
          {"model_labels_sha256", Sha256Of(labels)},
          {"normalization", normalization},
          {"label_offset", std::to_string(label_offset)}};
}

ordered_json ClassificationReportJson(const ClassificationReport& report) {
  const ClassificationResult& result = *report.result;
  const std::vector<LabelledImage>& images = *report.images;
  ordered_json j = EnvelopeJson(report.envelope);
  j["details"] = report.details;
  j["num_evaluation_runs"] = result.topk.images();
  j["topk_accuracy"] = result.topk.accuracies();
  j["topk_hits"] = result.topk.hits();
  ordered_json classes = ordered_json::array();
  for (const ClassAccuracy& c : PerClassAccuracy(images, result)) {
    classes.push_back({{"label", c.label},
                       {"images", c.images},
                       {"top1_hits", c.top1_hits},
                       {"top5_hits", c.top5_hits},
                       {"top1_accuracy", static_cast<double>(c.top1_hits) / c.images},
                       {"top5_accuracy", static_cast<double>(c.top5_hits) / c.images}});
  }
  j["per_class"] = classes;
  std::vector<int> evaluated, top1;
  for (const EvaluatedImage& e : result.evaluated) {
    evaluated.push_back(e.image);
    top1.push_back(e.top1);
  }
  j["predictions"] = {{"evaluated_image", evaluated}, {"top1_index", top1}};
  j["latency"] = {{"preprocessing", LatencyStatsJson(result.preprocessing_us, false)},
                  {"inference", LatencyStatsJson(result.inference_us, false)}};
  j["wall_seconds"] = result.wall_seconds;
  j["images_per_second"] =
      result.wall_seconds > 0 ? static_cast<double>(images.size()) / result.wall_seconds : 0.0;
  j["skipped"] = result.skipped;
  if (report.has_reference) {
    const std::vector<float> ours = result.topk.accuracies(), ref = result.reference_topk.accuracies();
    std::vector<float> delta;
    for (size_t k = 0; k < ours.size(); ++k) delta.push_back(ours[k] - ref[k]);
    j["reference"] = {{"topk_accuracy", ref},
                      {"topk_hits", result.reference_topk.hits()},
                      {"topk_accuracy_delta", delta},
                      {"top1_changed", result.top1_changed},
                      {"inference_latency", LatencyStatsJson(result.reference_inference_us, false)}};
  } else {
    j["reference"] = nullptr;
  }
  if (report.per_image) {
    ordered_json list = ordered_json::array();
    for (const ImagePrediction& p : result.predictions) {
      ordered_json image = {{"path", p.path}, {"label", p.label}, {"first_hit_rank", p.first_hit_rank},
                            {"top_indices", p.top_indices}};
      ordered_json top_labels = ordered_json::array();
      for (int i : p.top_indices) top_labels.push_back(result.output_labels[static_cast<size_t>(i)]);
      image["top_labels"] = top_labels;
      if (report.has_reference) {
        image["reference_first_hit_rank"] = p.reference_first_hit_rank;
        image["reference_top_indices"] = p.reference_top_indices;
        image["top1_changed"] = p.top1_changed;
      }
      list.push_back(image);
    }
    j["images"] = list;
  } else {
    j["images"] = nullptr;
  }
  if (report.gate.requested) {
    const AccuracyGateResult& a = report.gate.accuracy;
    j["gate"] = {{"baseline", report.gate.baseline_path},
                 {"config_change", report.gate.config_change},
                 {"verdict", GateVerdictName(a.verdict)},
                 {"exit_code", GateExitCode(a.verdict)},
                 {"baseline_top1", a.baseline_top1},
                 {"top1", a.current_top1},
                 {"baseline_top5", a.baseline_top5},
                 {"top5", a.current_top5},
                 {"max_accuracy_drop_pct", a.max_accuracy_drop_pct},
                 {"require_same_predictions", a.require_same_predictions},
                 {"changed_images", a.changed_images},
                 {"first_changed", a.first_changed},
                 {"reason", a.reason}};
  } else {
    j["gate"] = nullptr;
  }
  return j;
}

StatusOr<ClassificationBaseline> ParseClassificationReport(const std::string& text, const std::string& source) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return InvalidInputError(source + ": not a JSON object (expected a report written by --output_file_path)");
  }
  StatusOr<ReportEnvelope> envelope =
      ParseEnvelope(j, source, kClassificationReportSchema, kClassificationReportVersion);
  if (!envelope.ok()) return envelope.status();
  ClassificationBaseline baseline;
  baseline.envelope = envelope.value();
  if (!j.contains("topk_accuracy") || !j["topk_accuracy"].is_array()) {
    return InvalidInputError(source + ": has no topk_accuracy list");
  }
  for (const json& v : j["topk_accuracy"]) {
    if (!v.is_number()) return InvalidInputError(source + ": topk_accuracy holds a non-number");
    baseline.topk_accuracy.push_back(v.get<double>());
  }
  const json predictions = j.value("predictions", json::object());
  const json evaluated = predictions.value("evaluated_image", json::array());
  const json top1 = predictions.value("top1_index", json::array());
  if (!evaluated.is_array() || !top1.is_array() || evaluated.size() != top1.size()) {
    return InvalidInputError(source + ": predictions.evaluated_image and predictions.top1_index differ in length");
  }
  for (size_t i = 0; i < evaluated.size(); ++i) {
    if (!evaluated[i].is_number_integer() || !top1[i].is_number_integer()) {
      return InvalidInputError(source + ": predictions hold a non-integer");
    }
    baseline.evaluated_image.push_back(evaluated[i].get<int>());
    baseline.top1_index.push_back(top1[i].get<int>());
  }
  return baseline;
}

void AccuracyRuns(const ClassificationBaseline& baseline, const std::vector<LabelledImage>& images,
                  const ClassificationResult& current, AccuracyRun* baseline_run, AccuracyRun* current_run) {
  baseline_run->topk_accuracy = baseline.topk_accuracy;
  for (float a : current.topk.accuracies()) current_run->topk_accuracy.push_back(a);
  std::map<int, int> baseline_top1;
  for (size_t i = 0; i < baseline.evaluated_image.size(); ++i) {
    baseline_top1[baseline.evaluated_image[i]] = baseline.top1_index[i];
  }
  auto label_of = [&](int index) {
    return index >= 0 && static_cast<size_t>(index) < current.output_labels.size() &&
                   !current.output_labels[static_cast<size_t>(index)].empty()
               ? current.output_labels[static_cast<size_t>(index)]
               : "output " + std::to_string(index);
  };
  for (const EvaluatedImage& e : current.evaluated) {
    auto it = baseline_top1.find(e.image);
    if (it == baseline_top1.end()) continue;
    const std::string name = BaseName(images[static_cast<size_t>(e.image)].path);
    baseline_run->images.push_back(name);
    current_run->images.push_back(name);
    baseline_run->top1_labels.push_back(label_of(it->second));
    current_run->top1_labels.push_back(label_of(e.top1));
  }
}

}  // namespace touchstone
