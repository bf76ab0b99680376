#include "evaluation/detection_report.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "evaluation/sha256.h"

namespace touchstone {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

float Iou(const TfliteBox& a, const TfliteBox& b) {
  const float h = std::min(a.ymax, b.ymax) - std::max(a.ymin, b.ymin);
  const float w = std::min(a.xmax, b.xmax) - std::max(a.xmin, b.xmin);
  if (h <= 0 || w <= 0) return 0.0f;
  const float inter = h * w;
  const float uni = (a.ymax - a.ymin) * (a.xmax - a.xmin) + (b.ymax - b.ymin) * (b.xmax - b.xmin) - inter;
  return uni > 0 ? inter / uni : 0.0f;
}

std::string ClassName(const std::map<int64_t, std::string>& names, int class_id) {
  auto it = names.find(class_id);
  return it != names.end() ? it->second : "class " + std::to_string(class_id);
}

ordered_json BoxJson(const TfliteBox& b) { return {b.ymin, b.xmin, b.ymax, b.xmax}; }

// The examples (kExamples images with the most errors) with each box marked hit or not.
ordered_json ExamplesJson(const std::vector<CocoImage>& images, const std::vector<std::vector<TfliteBox>>& truth,
                          const std::vector<std::vector<TfliteBox>>& predicted,
                          const std::map<int64_t, std::string>& names) {
  struct Example {
    size_t image;
    int errors;
    ordered_json entry;
  };
  std::vector<Example> examples;
  for (size_t i = 0; i < images.size() && i < truth.size() && i < predicted.size(); ++i) {
    std::vector<size_t> order;
    for (size_t d = 0; d < predicted[i].size(); ++d) {
      if (predicted[i][d].score >= kExampleMinScore) order.push_back(d);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return predicted[i][a].score > predicted[i][b].score; });
    std::vector<bool> gt_hit(truth[i].size(), false), det_hit(predicted[i].size(), false);
    for (size_t d : order) {
      float best = 0.5f;
      int match = -1;
      for (size_t g = 0; g < truth[i].size(); ++g) {
        if (gt_hit[g] || truth[i][g].class_id != predicted[i][d].class_id) continue;
        const float iou = Iou(truth[i][g], predicted[i][d]);
        if (iou >= best) {
          best = iou;
          match = static_cast<int>(g);
        }
      }
      if (match >= 0) {
        gt_hit[static_cast<size_t>(match)] = true;
        det_hit[d] = true;
      }
    }
    ordered_json gt_list = ordered_json::array(), det_list = ordered_json::array();
    int missed = 0, false_positives = 0;
    for (size_t g = 0; g < truth[i].size(); ++g) {
      missed += gt_hit[g] ? 0 : 1;
      gt_list.push_back({{"box", BoxJson(truth[i][g])},
                         {"class_id", truth[i][g].class_id},
                         {"name", ClassName(names, truth[i][g].class_id)},
                         {"hit", static_cast<bool>(gt_hit[g])}});
    }
    for (size_t d : order) {
      false_positives += det_hit[d] ? 0 : 1;
      det_list.push_back({{"box", BoxJson(predicted[i][d])},
                          {"class_id", predicted[i][d].class_id},
                          {"name", ClassName(names, predicted[i][d].class_id)},
                          {"score", predicted[i][d].score},
                          {"hit", static_cast<bool>(det_hit[d])}});
    }
    Example e{i, missed + false_positives, ordered_json()};
    e.entry = {{"image_id", images[i].id}, {"file_name", images[i].file_name},
               {"width", images[i].width}, {"height", images[i].height},
               {"missed", missed},         {"false_positives", false_positives},
               {"ground_truth", gt_list},  {"detections", det_list}};
    examples.push_back(std::move(e));
  }
  std::stable_sort(examples.begin(), examples.end(), [](const Example& a, const Example& b) {
    return a.errors != b.errors ? a.errors > b.errors : a.image < b.image;
  });
  ordered_json list = ordered_json::array();
  for (size_t k = 0; k < examples.size() && k < kExamples; ++k) list.push_back(examples[k].entry);
  return list;
}

}  // namespace

const char* const kCocoMetricNames[12] = {"AP",  "AP50", "AP75",  "APs", "APm", "APl",
                                          "AR1", "AR10", "AR100", "ARs", "ARm", "ARl"};

std::vector<std::vector<TfliteBox>> TfliteGroundTruth(const CocoDataset& gt, const std::vector<CocoImage>& images) {
  absl::flat_hash_map<int64_t, size_t> index;
  for (size_t i = 0; i < images.size(); ++i) index[images[i].id] = i;
  std::vector<std::vector<TfliteBox>> truth(images.size());
  for (const CocoBox& a : gt.annotations) {
    auto it = index.find(a.image_id);
    if (it == index.end()) continue;
    const CocoImage& im = images[it->second];
    if (im.width <= 0 || im.height <= 0 || a.x + a.w > im.width || a.y + a.h > im.height) continue;
    truth[it->second].push_back(NormalizedBox(a, im));
  }
  return truth;
}

std::vector<CocoBox> CocoDetections(const std::vector<CocoImage>& images,
                                    const std::vector<std::vector<TfliteBox>>& predicted) {
  std::vector<CocoBox> detections;
  for (size_t i = 0; i < images.size() && i < predicted.size(); ++i) {
    for (const TfliteBox& b : predicted[i]) {
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
  }
  return detections;
}

DetectionScores ScoreDetections(const std::string& metric, const CocoDataset* gt, const std::vector<CocoImage>& images,
                                const std::vector<std::vector<TfliteBox>>& truth,
                                const std::vector<std::vector<TfliteBox>>& predicted,
                                const std::vector<CocoBox>& detections) {
  DetectionScores scores;
  TfliteApResult ap;
  CocoMetrics metrics;
  scores.tflite = nullptr;
  scores.coco = nullptr;
  scores.pr_curves = nullptr;
  if (metric != "coco") {
    ap = EvaluateTfliteAp(truth, predicted);
    ordered_json list = ordered_json::array();
    for (size_t i = 0; i < ap.average_precision.size(); ++i) {
      list.push_back({{"iou_threshold", ap.iou_thresholds[i]}, {"average_precision", ap.average_precision[i]}});
    }
    scores.tflite = {{"average_precision", list}, {"overall_map", ap.overall_map}};
  }
  if (metric != "tflite" && gt != nullptr) {
    std::set<int64_t> selected;
    std::vector<int64_t> image_ids, category_ids;
    for (const CocoImage& im : images) {
      image_ids.push_back(im.id);
      selected.insert(im.id);
    }
    for (const auto& c : gt->categories) category_ids.push_back(c.first);
    std::vector<CocoBox> truth_boxes;
    for (const CocoBox& a : gt->annotations) {
      if (selected.count(a.image_id)) truth_boxes.push_back(a);
    }
    metrics = EvaluateCoco(truth_boxes, detections, image_ids, category_ids);
    ordered_json coco = ordered_json::object();
    for (int i = 0; i < 12; ++i) coco[kCocoMetricNames[i]] = metrics.values[i];
    scores.coco = coco;
    std::vector<double> recall, thresholds;
    for (int r = 0; r <= 100; ++r) recall.push_back(r / 100.0);
    for (int t = 0; t < 10; ++t) thresholds.push_back(0.5 + 0.05 * t);
    scores.pr_curves = {{"iou_thresholds", thresholds}, {"recall", recall}, {"precision", metrics.pr_curves}};
  }
  const std::map<int64_t, std::string> no_names;
  const std::map<int64_t, std::string>& names = gt != nullptr ? gt->categories : no_names;
  scores.per_class =
      PerClassApJson(scores.coco.is_null() ? nullptr : &metrics, scores.tflite.is_null() ? nullptr : &ap, names);
  scores.examples = ExamplesJson(images, truth, predicted, names);
  return scores;
}

ordered_json ShardDetectionsJson(const std::vector<CocoImage>& images,
                                 const std::vector<std::vector<TfliteBox>>& predicted) {
  ordered_json list = ordered_json::array();
  for (size_t i = 0; i < images.size() && i < predicted.size(); ++i) {
    ordered_json boxes = ordered_json::array();
    for (const TfliteBox& b : predicted[i]) boxes.push_back({b.ymin, b.xmin, b.ymax, b.xmax, b.class_id, b.score});
    list.push_back({{"image_id", images[i].id}, {"file_name", images[i].file_name}, {"boxes", boxes}});
  }
  return list;
}

StatusOr<ordered_json> MergeDetectionShards(const std::vector<ShardReport>& shards, const CocoDataset& gt,
                                            const std::string& gt_sha256) {
  if (shards.empty()) return UsageError("no shard reports to merge");
  const ShardReport& first = shards.front();
  std::map<std::string, std::string> settings(first.envelope.config.settings.begin(),
                                              first.envelope.config.settings.end());
  if (gt_sha256.substr(0, 12) != settings["ground_truth_sha256"]) {
    return InvalidInputError("the ground truth given (sha256 " + gt_sha256.substr(0, 12) +
                             ") is not the one the shards evaluated against (" + settings["ground_truth_sha256"] +
                             "; --ground_truth_json names it on this machine)");
  }
  absl::flat_hash_map<int64_t, const CocoImage*> by_id;
  for (const CocoImage& image : gt.images) by_id[image.id] = &image;
  std::vector<CocoImage> images;
  std::vector<std::vector<TfliteBox>> predicted;
  double wall_seconds = 0.0;
  for (const ShardReport& s : shards) {
    auto bad = [&](const std::string& what) { return InvalidInputError(s.path + ": " + what); };
    if (!s.json.contains("detections") || !s.json["detections"].is_array()) {
      return bad("has no \"detections\" (a shard report of coco_eval lists its images' detections)");
    }
    for (const ordered_json& entry : s.json["detections"]) {
      if (!entry.is_object() || !entry.value("image_id", ordered_json()).is_number_integer() ||
          !entry.value("boxes", ordered_json()).is_array()) {
        return bad("a detections entry without image_id and boxes");
      }
      const int64_t id = entry["image_id"].get<int64_t>();
      auto image = by_id.find(id);
      if (image == by_id.end()) return bad("image " + std::to_string(id) + " is not in the ground truth");
      images.push_back(*image->second);
      std::vector<TfliteBox> boxes;
      for (const ordered_json& b : entry["boxes"]) {
        if (!b.is_array() || b.size() != 6) return bad("a box of image " + std::to_string(id) + " is not 6 numbers");
        for (const ordered_json& v : b) {
          if (!v.is_number()) return bad("a box of image " + std::to_string(id) + " holds a non-number");
        }
        TfliteBox box;
        box.ymin = static_cast<float>(b[0].get<double>());
        box.xmin = static_cast<float>(b[1].get<double>());
        box.ymax = static_cast<float>(b[2].get<double>());
        box.xmax = static_cast<float>(b[3].get<double>());
        box.class_id = static_cast<int>(b[4].get<double>());
        box.score = static_cast<float>(b[5].get<double>());
        boxes.push_back(box);
      }
      predicted.push_back(std::move(boxes));
    }
    if (s.json.contains("wall_seconds") && s.json["wall_seconds"].is_number()) {
      wall_seconds += s.json["wall_seconds"].get<double>();
    }
  }
  const std::string metric = settings["metric"];
  const std::vector<std::pair<std::string, std::string>> expected =
      DetectionSettings(images, gt_sha256, metric, std::atoi(settings["class_offset"].c_str()));
  if (static_cast<int64_t>(images.size()) != first.envelope.shard.total ||
      expected[1].second != settings["images_sha256"]) {
    return InvalidInputError(first.path + ": the shards' images (" + std::to_string(images.size()) +
                             ") are not the list they were split from (" + std::to_string(first.envelope.shard.total) +
                             " images, sha256 " + settings["images_sha256"] + ")");
  }
  const std::vector<std::vector<TfliteBox>> truth = TfliteGroundTruth(gt, images);
  const std::vector<CocoBox> detections = CocoDetections(images, predicted);
  const DetectionScores scores = ScoreDetections(metric, &gt, images, truth, predicted, detections);

  ordered_json j = EnvelopeJson(MergedEnvelope(shards));
  j["details"] = first.json.value("details", ordered_json::object());
  if (first.json.contains("num_evaluation_runs")) {
    j["num_evaluation_runs"] = images.size();
    TS_ASSIGN_OR_RETURN(j["latency"], MergedEvalLatencyJson(shards));
    j["wall_seconds"] = wall_seconds;
    j["images_per_second"] = wall_seconds > 0 ? static_cast<double>(images.size()) / wall_seconds : 0.0;
  }
  size_t num_detections = 0;
  for (const std::vector<TfliteBox>& boxes : predicted) num_detections += boxes.size();
  j["num_images"] = images.size();
  j["num_detections"] = num_detections;
  j["tflite"] = scores.tflite;
  j["coco"] = scores.coco;
  j["per_class"] = scores.per_class;
  j["pr_curves"] = scores.pr_curves;
  j["examples"] = scores.examples;
  j["gate"] = nullptr;
  return j;
}

std::vector<std::pair<std::string, std::string>> DetectionSettings(const std::vector<CocoImage>& images,
                                                                   const std::string& ground_truth_sha256,
                                                                   const std::string& metric, int class_offset) {
  std::string listing;
  for (const CocoImage& image : images) listing += std::to_string(image.id) + "\t" + image.file_name + "\n";
  const std::string images_sha =
      Sha256Hex(reinterpret_cast<const uint8_t*>(listing.data()), listing.size()).substr(0, 12);
  return {{"images", std::to_string(images.size())},
          {"images_sha256", images_sha},
          {"ground_truth_sha256", ground_truth_sha256.substr(0, 12)},
          {"metric", metric},
          {"class_offset", std::to_string(class_offset)}};
}

ordered_json PerClassApJson(const CocoMetrics* coco, const TfliteApResult* tflite,
                            const std::map<int64_t, std::string>& names) {
  std::map<int64_t, std::pair<double, double>> classes;  // id -> (coco, tflite); NaN: none
  const double none = std::nan("");
  if (coco != nullptr) {
    for (const auto& c : coco->category_ap) classes[c.first] = {c.second >= 0 ? c.second : none, none};
  }
  if (tflite != nullptr) {
    for (const auto& c : tflite->class_ap) {
      auto it = classes.find(c.first);
      if (it == classes.end()) it = classes.emplace(c.first, std::make_pair(none, none)).first;
      it->second.second = c.second;
    }
  }
  ordered_json list = ordered_json::array();
  for (const auto& c : classes) {
    auto name = names.find(c.first);
    list.push_back({{"class_id", c.first},
                    {"name", name != names.end() ? name->second : "class " + std::to_string(c.first)},
                    {"coco_ap", JsonNumber(c.second.first)},
                    {"tflite_ap", JsonNumber(c.second.second)}});
  }
  return list;
}

DetectionRun DetectionRunOf(const json& report) {
  DetectionRun run;
  if (report.contains("coco") && report["coco"].is_object() && report["coco"].contains("AP") &&
      report["coco"]["AP"].is_number()) {
    run.metrics.emplace_back("coco AP", report["coco"]["AP"].get<double>());
  }
  if (report.contains("tflite") && report["tflite"].is_object() && report["tflite"].contains("overall_map") &&
      report["tflite"]["overall_map"].is_number()) {
    run.metrics.emplace_back("tflite mAP", report["tflite"]["overall_map"].get<double>());
  }
  if (report.contains("per_class") && report["per_class"].is_array()) {
    for (const json& c : report["per_class"]) {
      if (!c.is_object()) continue;
      const std::string name = c.value("name", std::string());
      if (c.contains("coco_ap") && c["coco_ap"].is_number()) {
        run.class_ap.emplace_back(name, c["coco_ap"].get<double>());
      } else if (c.contains("tflite_ap") && c["tflite_ap"].is_number()) {
        run.class_ap.emplace_back(name, c["tflite_ap"].get<double>());
      }
    }
  }
  return run;
}

StatusOr<DetectionBaseline> ParseDetectionReport(const std::string& text, const std::string& source) {
  TS_ASSIGN_OR_RETURN(ParsedReport parsed,
                      ParseReport(text, source, kDetectionReportSchema, kDetectionReportVersion, "--output_file_path"));
  const json& j = parsed.json;
  const ReportEnvelope& envelope = parsed.envelope;
  DetectionBaseline baseline;
  baseline.envelope = envelope;
  baseline.run = DetectionRunOf(j);
  if (baseline.run.metrics.empty()) return InvalidInputError(source + ": has neither coco.AP nor tflite.overall_map");
  return baseline;
}

}  // namespace touchstone
