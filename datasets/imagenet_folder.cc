#include "datasets/imagenet_folder.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>

namespace touchstone {

StatusOr<std::vector<std::string>> ReadLines(const std::string& path) {
  std::ifstream in(path);
  if (!in) return InvalidInputError(path + ": cannot read");
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

StatusOr<std::vector<std::string>> ListImageFiles(const std::string& folder) {
  DIR* dir = opendir(folder.c_str());
  if (dir == nullptr) return InvalidInputError(folder + ": cannot open image folder");
  std::vector<std::string> paths;
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    const std::string path = folder + "/" + name;
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;
    paths.push_back(path);
  }
  closedir(dir);
  std::sort(paths.begin(), paths.end());
  return paths;
}

StatusOr<std::vector<LabelledImage>> LoadImageNetSet(const std::string& images_folder, const std::string& labels_file,
                                                     const std::string& denylist_file, int num_images) {
  TS_ASSIGN_OR_RETURN(std::vector<std::string> images, ListImageFiles(images_folder));
  TS_ASSIGN_OR_RETURN(std::vector<std::string> labels, ReadLines(labels_file));
  if (images.empty()) return InvalidInputError(images_folder + ": no images");
  if (images.size() != labels.size()) {
    return InvalidInputError(labels_file + ": has " + std::to_string(labels.size()) + " labels for " +
                             std::to_string(images.size()) + " images in " + images_folder);
  }
  std::set<size_t> denied;
  if (!denylist_file.empty()) {
    TS_ASSIGN_OR_RETURN(std::vector<std::string> lines, ReadLines(denylist_file));
    for (const std::string& line : lines) {
      if (line.empty()) continue;
      char* end = nullptr;
      const long number = std::strtol(line.c_str(), &end, 10);
      if (*end != '\0' || number < 1 || number > static_cast<long>(images.size())) {
        return InvalidInputError(denylist_file + ": '" + line + "' is not an image number in 1.." +
                                 std::to_string(images.size()));
      }
      denied.insert(static_cast<size_t>(number - 1));
    }
  }
  std::vector<LabelledImage> set;
  for (size_t i = 0; i < images.size(); ++i) {
    if (denied.count(i)) continue;
    if (num_images > 0 && static_cast<int>(set.size()) >= num_images) break;
    set.push_back({images[i], labels[i]});
  }
  return set;
}

StatusOr<std::vector<LabelledImage>> LoadClassFolders(const std::string& root, int per_class) {
  DIR* dir = opendir(root.c_str());
  if (dir == nullptr) return InvalidInputError(root + ": cannot open class folder root");
  std::vector<std::string> classes;
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    if (stat((root + "/" + name).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) classes.push_back(name);
  }
  closedir(dir);
  std::sort(classes.begin(), classes.end());
  if (classes.empty()) return InvalidInputError(root + ": no class folders");
  std::vector<LabelledImage> set;
  for (const std::string& label : classes) {
    TS_ASSIGN_OR_RETURN(std::vector<std::string> files, ListImageFiles(root + "/" + label));
    int taken = 0;
    for (const std::string& path : files) {
      if (per_class > 0 && taken >= per_class) break;
      set.push_back({path, label});
      ++taken;
    }
  }
  return set;
}

}  // namespace touchstone
