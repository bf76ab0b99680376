#include "evaluation/detection_report.h"

#include <set>

#include "evaluation/sha256.h"

namespace touchstone {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

}  // namespace

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
    auto figure = [](double v) { return std::isnan(v) ? ordered_json(nullptr) : ordered_json(v); };
    list.push_back({{"class_id", c.first},
                    {"name", name != names.end() ? name->second : "class " + std::to_string(c.first)},
                    {"coco_ap", figure(c.second.first)},
                    {"tflite_ap", figure(c.second.second)}});
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
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return InvalidInputError(source + ": not a JSON object (expected a report written by --output_file_path)");
  }
  StatusOr<ReportEnvelope> envelope = ParseEnvelope(j, source, kDetectionReportSchema, kDetectionReportVersion);
  if (!envelope.ok()) return envelope.status();
  DetectionBaseline baseline;
  baseline.envelope = envelope.value();
  baseline.run = DetectionRunOf(j);
  if (baseline.run.metrics.empty()) return InvalidInputError(source + ": has neither coco.AP nor tflite.overall_map");
  return baseline;
}

}  // namespace touchstone
