// Tiny float models for tests that need a model every tool accepts and that the sample delegate
// (float ADD and SUB) takes part of: a classifier and a detector on 4x4 RGB images. They compute
// nothing meaningful; they are small enough that 10,000 invokes take well under a second.
#ifndef TOUCHSTONE_TESTS_COMMON_TINY_MODELS_H_
#define TOUCHSTONE_TESTS_COMMON_TINY_MODELS_H_

#include <cstdint>
#include <vector>

namespace touchstone {

// image [1,4,4,3] -> ADD(image, image) -> SUB(., mean) -> FULLY_CONNECTED (10 classes) -> logits [1,10].
std::vector<uint8_t> MakeTinyClassifier();

// image [1,4,4,3] -> ADD(image, image) -> FULLY_CONNECTED to one zero -> ADDs of constants: outputs
// named boxes [1,2,4], classes [1,2], scores [1,2] and count [1,1] (two detections, whatever the image).
std::vector<uint8_t> MakeTinyDetector();

// image [1,2,2,3] -> RESHAPE -> scores [1,12]: a "classifier" whose 12 scores are its input's values.
std::vector<uint8_t> MakeReshapeClassifier();

}  // namespace touchstone

#endif  // TOUCHSTONE_TESTS_COMMON_TINY_MODELS_H_
