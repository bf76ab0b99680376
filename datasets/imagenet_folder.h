// An ImageNet-style evaluation set as TFLite's run_eval reads it: every non-directory entry of the
// image folder in byte-wise sorted order of its path, line i of the ground-truth label file for the
// i-th image, and an optional denylist of 1-based image numbers applied before --num_images.
#ifndef TOUCHSTONE_DATASETS_IMAGENET_FOLDER_H_
#define TOUCHSTONE_DATASETS_IMAGENET_FOLDER_H_

#include <string>
#include <vector>

#include "runtime/status.h"

namespace touchstone {

struct LabelledImage {
  std::string path;
  std::string label;
};

// Lines of a text file, without line endings ("\r\n" or "\n"); a final empty line is not a label.
StatusOr<std::vector<std::string>> ReadLines(const std::string& path);

// Every entry of `folder` that is not a directory (dot-files included), sorted by path bytes.
StatusOr<std::vector<std::string>> ListImageFiles(const std::string& folder);

// Pairs images with labels, drops the denylisted (1-based numbers, any order) and keeps the first
// `num_images` (0 = all). Counts must agree; a denylist entry out of range is an error.
StatusOr<std::vector<LabelledImage>> LoadImageNetSet(const std::string& images_folder, const std::string& labels_file,
                                                     const std::string& denylist_file, int num_images);

// A folder per class: <root>/<label>/<image>; labels are the folder names. Images in byte-wise
// order of their path (class folders sorted, then files), at most `per_class` per class (0: all).
StatusOr<std::vector<LabelledImage>> LoadClassFolders(const std::string& root, int per_class);

}  // namespace touchstone

#endif  // TOUCHSTONE_DATASETS_IMAGENET_FOLDER_H_
