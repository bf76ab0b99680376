// Fuzz target: the label, ground-truth and denylist readers of datasets/imagenet_folder.h. The input
// is read as a line file (ReadLines), then used as the ground-truth labels and as the denylist of a
// small image folder (LoadImageNetSet), with --num_images taken from the input's length.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "datasets/imagenet_folder.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

constexpr int kImages = 4;

// A folder of kImages empty "images" and a label file with one line each, made once per process.
struct Fixture {
  std::string folder;
  std::string labels;
  Fixture() {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string base = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/labels_fuzzer.XXXXXX";
    if (mkdtemp(&base[0]) == nullptr) std::abort();
    folder = base + "/images";
    mkdir(folder.c_str(), 0755);
    labels = base + "/labels.txt";
    FILE* l = std::fopen(labels.c_str(), "w");
    for (int i = 0; i < kImages; ++i) {
      const std::string image = folder + "/img_" + std::to_string(i) + ".jpg";
      if (FILE* f = std::fopen(image.c_str(), "w")) std::fclose(f);
      std::fprintf(l, "label %d\n", i);
    }
    std::fclose(l);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture* fixture = new Fixture();
  static touchstone::fuzz::MemFile* file = new touchstone::fuzz::MemFile("lines");
  const std::string& path = file->Write(data, size);
  auto lines = touchstone::ReadLines(path);
  const int num_images = static_cast<int>(size % 7) - 1;  // -1 .. 5
  // As the ground-truth labels (the counts usually disagree: an error, not a crash).
  (void)touchstone::LoadImageNetSet(fixture->folder, path, "", num_images);
  // As the denylist.
  auto set = touchstone::LoadImageNetSet(fixture->folder, fixture->labels, path, num_images);
  if (set.ok() && set.value().size() > kImages) std::abort();
  return 0;
}
