#include "evaluation/classification_report.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
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

// Worse first: label missed from the top 10 (rank 0), then ranked lower, then the more confident the
// wrong top-1, then list order.
struct WorstImage {
  int first_hit_rank = 0;
  double top1_score = 0.0;
  int image = 0;
  ordered_json entry;
};

bool Worse(const WorstImage& a, const WorstImage& b) {
  const int ra = a.first_hit_rank == 0 ? 1 << 30 : a.first_hit_rank;
  const int rb = b.first_hit_rank == 0 ? 1 << 30 : b.first_hit_rank;
  if (ra != rb) return ra > rb;
  if (a.top1_score != b.top1_score) return a.top1_score > b.top1_score;
  return a.image < b.image;
}

ordered_json WorstList(std::vector<WorstImage> worst) {
  std::sort(worst.begin(), worst.end(), Worse);
  if (worst.size() > kWorstMisclassified) worst.resize(kWorstMisclassified);
  ordered_json list = ordered_json::array();
  for (const WorstImage& w : worst) list.push_back(w.entry);
  return list;
}

std::string RelativeTo(const std::string& path, const std::string& root) {
  if (root.empty()) return BaseName(path);
  std::string prefix = root;
  while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
  prefix += "/";
  return path.rfind(prefix, 0) == 0 ? path.substr(prefix.size()) : BaseName(path);
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
  const bool shard = report.envelope.shard.present();
  j["latency"] = {{"preprocessing", ShardLatencyJson(result.preprocessing_us, shard)},
                  {"inference", ShardLatencyJson(result.inference_us, shard)}};
  j["wall_seconds"] = result.wall_seconds;
  // The images this run took (evaluated or skipped), per second.
  const size_t taken = static_cast<size_t>(result.topk.images()) + result.skipped.size();
  j["images_per_second"] = result.wall_seconds > 0 ? static_cast<double>(taken) / result.wall_seconds : 0.0;
  j["skipped"] = result.skipped;
  if (report.has_reference) {
    const std::vector<float> ours = result.topk.accuracies(), ref = result.reference_topk.accuracies();
    std::vector<float> delta;
    for (size_t k = 0; k < ours.size(); ++k) delta.push_back(ours[k] - ref[k]);
    j["reference"] = {{"topk_accuracy", ref},
                      {"topk_hits", result.reference_topk.hits()},
                      {"topk_accuracy_delta", delta},
                      {"top1_changed", result.top1_changed},
                      {"inference_latency", ShardLatencyJson(result.reference_inference_us, shard)}};
  } else {
    j["reference"] = nullptr;
  }
  if (report.per_image) {
    ordered_json list = ordered_json::array();
    for (const ImagePrediction& p : result.predictions) {
      ordered_json image = {
          {"path", p.path}, {"label", p.label}, {"first_hit_rank", p.first_hit_rank}, {"top_indices", p.top_indices}};
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
  std::vector<WorstImage> worst;
  for (const EvaluatedImage& e : result.evaluated) {
    if (e.first_hit_rank == 1) continue;
    const LabelledImage& image = images[static_cast<size_t>(e.image)];
    const std::string top1_label =
        e.top1 >= 0 && static_cast<size_t>(e.top1) < result.output_labels.size() ? result.output_labels[e.top1] : "";
    WorstImage w{e.first_hit_rank, e.top1_score, e.image, ordered_json()};
    w.entry = {{"image", e.image},
               {"path", image.path},
               {"file", RelativeTo(image.path, report.image_root)},
               {"label", image.label},
               {"first_hit_rank", e.first_hit_rank},
               {"top1_index", e.top1},
               {"top1_label", top1_label},
               {"top1_score", e.top1_score}};
    worst.push_back(std::move(w));
  }
  j["worst_misclassified"] = WorstList(std::move(worst));
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

namespace {

// Adds `from` (an array of integers) to `into` element by element.
bool AddCounts(const ordered_json& from, std::vector<int>* into) {
  if (!from.is_array()) return false;
  if (into->empty()) into->assign(from.size(), 0);
  if (from.size() != into->size()) return false;
  for (size_t i = 0; i < from.size(); ++i) {
    if (!from[i].is_number_integer()) return false;
    (*into)[i] += from[i].get<int>();
  }
  return true;
}

}  // namespace

StatusOr<ordered_json> MergeClassificationShards(const std::vector<ShardReport>& shards) {
  if (shards.empty()) return UsageError("no shard reports to merge");
  const ordered_json& first = shards.front().json;
  ordered_json j = EnvelopeJson(MergedEnvelope(shards));
  j["details"] = first.value("details", ordered_json::object());
  int images = 0, reference_images = 0, top1_changed = 0;
  std::vector<int> hits, reference_hits;
  std::vector<ClassAccuracy> classes;
  absl::flat_hash_map<std::string, size_t> class_index;
  std::vector<int> evaluated, top1;
  ordered_json skipped = ordered_json::array(), per_image = ordered_json::array();
  std::vector<WorstImage> worst;
  double wall_seconds = 0.0;
  const bool has_reference = first.contains("reference") && !first["reference"].is_null();
  const bool has_images = first.contains("images") && !first["images"].is_null();
  for (const ShardReport& s : shards) {
    const ordered_json& r = s.json;
    auto bad = [&](const std::string& what) { return InvalidInputError(s.path + ": " + what); };
    if (!r.contains("num_evaluation_runs") || !r["num_evaluation_runs"].is_number_integer()) {
      return bad("has no num_evaluation_runs");
    }
    const int n = r["num_evaluation_runs"].get<int>();
    images += n;
    if (!r.contains("topk_hits") || !AddCounts(r["topk_hits"], &hits))
      return bad("topk_hits is not a list of counts like the other shards'");
    if (!r.contains("per_class") || !r["per_class"].is_array()) return bad("has no per_class list");
    for (const ordered_json& c : r["per_class"]) {
      if (!c.is_object() || !c.contains("label") || !c["label"].is_string() ||
          !c.value("images", ordered_json()).is_number_integer() ||
          !c.value("top1_hits", ordered_json()).is_number_integer() ||
          !c.value("top5_hits", ordered_json()).is_number_integer()) {
        return bad("a per_class entry without label and counts");
      }
      const std::string label = c["label"].get<std::string>();
      auto it = class_index.find(label);
      if (it == class_index.end()) {
        it = class_index.emplace(label, classes.size()).first;
        classes.push_back({label, 0, 0, 0});
      }
      classes[it->second].images += c["images"].get<int>();
      classes[it->second].top1_hits += c["top1_hits"].get<int>();
      classes[it->second].top5_hits += c["top5_hits"].get<int>();
    }
    const ordered_json predictions = r.value("predictions", ordered_json::object());
    const ordered_json e = predictions.value("evaluated_image", ordered_json()),
                       t = predictions.value("top1_index", ordered_json());
    if (!e.is_array() || !t.is_array() || e.size() != t.size() || static_cast<int>(e.size()) != n) {
      return bad("predictions do not list its " + std::to_string(n) + " evaluated images");
    }
    for (size_t i = 0; i < e.size(); ++i) {
      if (!e[i].is_number_integer() || !t[i].is_number_integer()) return bad("predictions hold a non-integer");
      evaluated.push_back(e[i].get<int>());
      top1.push_back(t[i].get<int>());
    }
    if (!r.value("wall_seconds", ordered_json()).is_number()) return bad("has no wall_seconds");
    wall_seconds += r["wall_seconds"].get<double>();
    if (!r.value("skipped", ordered_json()).is_array()) return bad("has no skipped list");
    for (const ordered_json& k : r["skipped"]) skipped.push_back(k);
    if (has_reference != (r.contains("reference") && !r["reference"].is_null())) {
      return bad("--reference differs from the other shards'");
    }
    if (has_reference) {
      const ordered_json& ref = r["reference"];
      if (!ref.contains("topk_hits") || !AddCounts(ref["topk_hits"], &reference_hits))
        return bad("reference.topk_hits is not a list of counts");
      if (!ref.value("top1_changed", ordered_json()).is_number_integer()) return bad("reference has no top1_changed");
      top1_changed += ref["top1_changed"].get<int>();
      reference_images += n;
    }
    if (has_images != (r.contains("images") && !r["images"].is_null()))
      return bad("--per_image differs from the other shards'");
    if (has_images) {
      if (!r["images"].is_array()) return bad("images is not a list");
      for (const ordered_json& i : r["images"]) per_image.push_back(i);
    }
    for (const ordered_json& w : r.value("worst_misclassified", ordered_json::array())) {
      if (!w.is_object() || !w.value("first_hit_rank", ordered_json()).is_number_integer() ||
          !w.value("top1_score", ordered_json()).is_number() || !w.value("image", ordered_json()).is_number_integer()) {
        return bad("a worst_misclassified entry without first_hit_rank, top1_score and image");
      }
      worst.push_back({w["first_hit_rank"].get<int>(), w["top1_score"].get<double>(), w["image"].get<int>(), w});
    }
  }
  const TopKAccumulator topk(hits, images);
  j["num_evaluation_runs"] = images;
  j["topk_accuracy"] = topk.accuracies();
  j["topk_hits"] = hits;
  ordered_json per_class = ordered_json::array();
  for (const ClassAccuracy& c : classes) {
    per_class.push_back({{"label", c.label},
                         {"images", c.images},
                         {"top1_hits", c.top1_hits},
                         {"top5_hits", c.top5_hits},
                         {"top1_accuracy", static_cast<double>(c.top1_hits) / c.images},
                         {"top5_accuracy", static_cast<double>(c.top5_hits) / c.images}});
  }
  j["per_class"] = per_class;
  j["predictions"] = {{"evaluated_image", evaluated}, {"top1_index", top1}};
  TS_ASSIGN_OR_RETURN(j["latency"], MergedEvalLatencyJson(shards));
  j["wall_seconds"] = wall_seconds;
  const size_t taken = static_cast<size_t>(images) + skipped.size();
  j["images_per_second"] = wall_seconds > 0 ? static_cast<double>(taken) / wall_seconds : 0.0;
  j["skipped"] = skipped;
  if (has_reference) {
    const std::vector<float> ours = topk.accuracies(),
                             ref = TopKAccumulator(reference_hits, reference_images).accuracies();
    std::vector<float> delta;
    for (size_t k = 0; k < ours.size(); ++k) delta.push_back(ours[k] - ref[k]);
    TS_ASSIGN_OR_RETURN(LatencyStats reference_latency, MergedLatency(shards, "/reference/inference_latency"));
    j["reference"] = {{"topk_accuracy", ref},
                      {"topk_hits", reference_hits},
                      {"topk_accuracy_delta", delta},
                      {"top1_changed", top1_changed},
                      {"inference_latency", LatencyStatsJson(reference_latency, false)}};
  } else {
    j["reference"] = nullptr;
  }
  j["images"] = has_images ? per_image : ordered_json(nullptr);
  j["worst_misclassified"] = WorstList(std::move(worst));
  j["gate"] = nullptr;
  return j;
}

StatusOr<ClassificationBaseline> ParseClassificationReport(const std::string& text, const std::string& source) {
  TS_ASSIGN_OR_RETURN(ParsedReport parsed, ParseReport(text, source, kClassificationReportSchema,
                                                       kClassificationReportVersion, "--output_file_path"));
  const json& j = parsed.json;
  const ReportEnvelope& envelope = parsed.envelope;
  ClassificationBaseline baseline;
  baseline.envelope = envelope;
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
  absl::flat_hash_map<int, int> baseline_top1;
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
