#include "datasets/coco_json.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

namespace touchstone {
namespace {

using nlohmann::json;

StatusOr<json> ParseFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return InvalidInputError(path + ": cannot read");
  json document = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) return InvalidInputError(path + ": malformed JSON");
  return document;
}

bool ReadBox(const json& entry, CocoBox* box) {
  const auto bbox = entry.find("bbox");
  if (bbox == entry.end() || !bbox->is_array() || bbox->size() != 4) return false;
  for (const json& v : *bbox) {
    if (!v.is_number()) return false;
  }
  box->x = (*bbox)[0].get<double>();
  box->y = (*bbox)[1].get<double>();
  box->w = (*bbox)[2].get<double>();
  box->h = (*bbox)[3].get<double>();
  return std::isfinite(box->x) && std::isfinite(box->y) && std::isfinite(box->w) && std::isfinite(box->h);
}

// An optional image dimension: absent is fine; present, it must be an integer that fits an int (a
// float-to-int conversion of 1e300 is undefined behaviour, found by the coco_json fuzzer).
bool ReadDimension(const json& entry, const char* key, int* value) {
  const auto it = entry.find(key);
  if (it == entry.end() || it->is_null()) return true;
  if (!it->is_number_integer()) return false;
  if (it->is_number_unsigned()) {
    const uint64_t v = it->get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int>::max())) return false;
    *value = static_cast<int>(v);
    return true;
  }
  const int64_t v = it->get<int64_t>();
  if (v < 0 || v > std::numeric_limits<int>::max()) return false;
  *value = static_cast<int>(v);
  return true;
}

bool ReadId(const json& entry, const char* key, int64_t* value) {
  const auto it = entry.find(key);
  if (it == entry.end() || !it->is_number_integer()) return false;
  *value = it->get<int64_t>();
  return true;
}

}  // namespace

StatusOr<CocoDataset> ReadCocoInstances(const std::string& path) {
  TS_ASSIGN_OR_RETURN(const json& doc, ParseFile(path));
  if (!doc.is_object() || !doc.contains("images") || !doc.contains("annotations") || !doc["images"].is_array() ||
      !doc["annotations"].is_array()) {
    return InvalidInputError(path + ": not a COCO instances file (needs \"images\" and \"annotations\" lists)");
  }
  CocoDataset dataset;
  std::set<int64_t> image_ids;
  for (size_t i = 0; i < doc["images"].size(); ++i) {
    const json& entry = doc["images"][i];
    CocoImage image;
    if (!entry.is_object() || !ReadId(entry, "id", &image.id)) {
      return InvalidInputError(path + ": images[" + std::to_string(i) + "] has no integer id");
    }
    if (entry.contains("file_name") && entry["file_name"].is_string()) image.file_name = entry["file_name"];
    if (!ReadDimension(entry, "width", &image.width) || !ReadDimension(entry, "height", &image.height)) {
      return InvalidInputError(path + ": images[" + std::to_string(i) +
                               "] has a width or height that is not a whole number in 0.." +
                               std::to_string(std::numeric_limits<int>::max()));
    }
    if (!image_ids.insert(image.id).second) {
      return InvalidInputError(path + ": image id " + std::to_string(image.id) + " appears twice");
    }
    dataset.images.push_back(image);
  }
  if (doc.contains("categories") && doc["categories"].is_array()) {
    for (const json& entry : doc["categories"]) {
      int64_t id;
      if (!entry.is_object() || !ReadId(entry, "id", &id))
        return InvalidInputError(path + ": a category has no integer id");
      dataset.categories[id] =
          entry.contains("name") && entry["name"].is_string() ? entry["name"].get<std::string>() : "";
    }
  }
  for (size_t i = 0; i < doc["annotations"].size(); ++i) {
    const json& entry = doc["annotations"][i];
    CocoBox box;
    const std::string where = path + ": annotations[" + std::to_string(i) + "]";
    if (!entry.is_object() || !ReadId(entry, "image_id", &box.image_id) ||
        !ReadId(entry, "category_id", &box.category_id) || !ReadBox(entry, &box)) {
      return InvalidInputError(where + " needs integer image_id and category_id and a 4-number bbox");
    }
    if (!image_ids.count(box.image_id)) {
      return InvalidInputError(where + " refers to image " + std::to_string(box.image_id) + ", which is not listed");
    }
    if (!dataset.categories.empty() && !dataset.categories.count(box.category_id)) {
      return InvalidInputError(where + " has unknown category " + std::to_string(box.category_id));
    }
    box.area = entry.contains("area") && entry["area"].is_number() ? entry["area"].get<double>() : box.w * box.h;
    box.iscrowd = entry.contains("iscrowd") && entry["iscrowd"].is_number() && entry["iscrowd"].get<double>() != 0;
    dataset.annotations.push_back(box);
  }
  if (dataset.categories.empty()) {
    for (const CocoBox& b : dataset.annotations) dataset.categories[b.category_id] = "";
  }
  return dataset;
}

StatusOr<std::vector<CocoBox>> ReadCocoResults(const std::string& path, const CocoDataset& ground_truth) {
  TS_ASSIGN_OR_RETURN(json parsed, ParseFile(path));
  const json* list = &parsed;
  if (list->is_object() && list->contains("annotations")) list = &(*list)["annotations"];
  if (!list->is_array()) return InvalidInputError(path + ": not a COCO results list");
  std::set<int64_t> image_ids;
  for (const CocoImage& image : ground_truth.images) image_ids.insert(image.id);
  std::vector<CocoBox> detections;
  for (size_t i = 0; i < list->size(); ++i) {
    const json& entry = (*list)[i];
    CocoBox box;
    const std::string where = path + ": detection " + std::to_string(i);
    if (!entry.is_object() || !ReadId(entry, "image_id", &box.image_id) ||
        !ReadId(entry, "category_id", &box.category_id) || !ReadBox(entry, &box) || !entry.contains("score") ||
        !entry["score"].is_number()) {
      return InvalidInputError(where + " needs image_id, category_id, a 4-number bbox and a score");
    }
    if (!image_ids.count(box.image_id)) {
      return InvalidInputError(where + " is for image " + std::to_string(box.image_id) +
                               ", which the ground truth does not have");
    }
    box.score = entry["score"].get<double>();
    box.area = box.w * box.h;
    detections.push_back(box);
  }
  return detections;
}

}  // namespace touchstone
