// How far a test run's tensors are from the reference run's, per tensor and accumulated over runs:
// TFLite's inference_diff figure (mean absolute difference of raw values per run, averaged over runs,
// with its population standard deviation across runs), plus the maximum absolute error, the mean
// error relative to the reference's largest magnitude, cosine similarity, and for quantized tensors a
// histogram of step differences with the errors also in dequantized units.
#ifndef TOUCHSTONE_EVALUATION_OUTPUT_DIFF_H_
#define TOUCHSTONE_EVALUATION_OUTPUT_DIFF_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/status.h"

namespace touchstone {

struct TensorDiffSummary {
  int64_t runs = 0;
  double avg_error = 0.0;          // mean over runs of the per-run mean |test - reference|
  double std_dev = 0.0;            // population std of the per-run means
  double max_abs_error = 0.0;      // over all runs and elements, raw units (steps when quantized)
  double mean_relative_error = 0.0;  // mean |diff| / max |reference|, averaged over runs
  double cosine_similarity = 1.0;  // of the flattened tensors, averaged over runs
  bool quantized = false;
  double scale = 0.0;              // quantized: real = scale * (q - zero_point)
  std::array<int64_t, 4> step_histogram{};  // quantized: |diff| = 0, 1, 2, > 2 steps
  double max_abs_error_dequantized = 0.0;
  double avg_error_dequantized = 0.0;
};

class TensorDiffAccumulator {
 public:
  // Compares one run. Shapes and types must agree (an error names what differs).
  Status AddRun(const TfLiteTensor& reference, const TfLiteTensor& test);
  TensorDiffSummary Summary() const;

 private:
  std::vector<double> run_means_;
  std::vector<double> run_relative_;
  std::vector<double> run_cosine_;
  double max_abs_ = 0.0;
  bool quantized_ = false;
  double scale_ = 0.0;
  std::array<int64_t, 4> histogram_{};
};

// Reads element i of a numeric tensor as double (bool as 0/1; float16 converted).
double ElementAsDouble(const TfLiteTensor& tensor, int64_t i);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_OUTPUT_DIFF_H_
