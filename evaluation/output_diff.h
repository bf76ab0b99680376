// How far a test run's tensors are from the reference run's, per tensor and accumulated over runs:
// TFLite's inference_diff figure (mean absolute difference of raw values per run, averaged over runs,
// with its population standard deviation across runs), plus the maximum absolute error (and where it
// is), the mean error relative to the reference's largest magnitude, cosine similarity, how many
// elements differ at all, and for quantized tensors a histogram of step differences with the errors
// also in dequantized units.
//
// Element rules: equal values (also NaN against NaN, and the same infinity) differ by 0; a NaN or an
// infinity against anything else differs by +infinity and counts in nonfinite_mismatches; cosine and
// the relative error's scale use the finite pairs only. Complex tensors compare as their real and
// imaginary parts; tensors that are not numbers (strings, resources, variants) compare by bytes: the
// run's error is 0 when the bytes are equal and 1 when they differ (compared_bytewise).
#ifndef TOUCHSTONE_EVALUATION_OUTPUT_DIFF_H_
#define TOUCHSTONE_EVALUATION_OUTPUT_DIFF_H_

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/status.h"

namespace touchstone {

struct TensorDiffSummary {
  int64_t runs = 0;
  double avg_error = 0.0;            // mean over runs of the per-run mean |test - reference|
  double std_dev = 0.0;              // population std of the per-run means
  double max_abs_error = 0.0;        // over all runs and elements, raw units (steps when quantized)
  double mean_relative_error = 0.0;  // mean |diff| / max |reference|, averaged over runs
  // The largest of each run's max |diff| / max |reference| (max |diff| when the reference is all zeros):
  // the float figure inference_diff --qualify bounds.
  double max_relative_error = 0.0;
  double cosine_similarity = 1.0;  // of the flattened tensors, averaged over runs
  bool quantized = false;
  double scale = 0.0;  // quantized: real = scale * (q - zero_point)
  int32_t zero_point = 0;
  std::array<int64_t, 4> step_histogram{};  // quantized: |diff| = 0, 1, 2, > 2 steps
  double max_abs_error_dequantized = 0.0;
  double avg_error_dequantized = 0.0;
  // Where the largest difference first occurred: run (0-based), flat element index, both values.
  // Index -1 when no element differs.
  int64_t max_abs_error_run = -1;
  int64_t max_abs_error_index = -1;
  double reference_at_max = 0.0;
  double test_at_max = 0.0;
  int64_t elements = 0;              // per run (of the last run)
  int64_t elements_differing = 0;    // over all runs
  int64_t nonfinite_mismatches = 0;  // over all runs
  bool compared_bytewise = false;
  // Every element's |test - reference| over all runs, counted by power of two: (e, n) is n elements with
  // 2^e <= |diff| < 2^(e+1) (e clamped to [kErrorLog2Min, kErrorLog2Max]), in e order; equal elements
  // count in zero_errors, nonfinite ones in nonfinite_mismatches. Quantized tensors' steps too (e >= 0).
  std::vector<std::pair<int, int64_t>> error_log2_histogram;
  int64_t zero_errors = 0;
};

constexpr int kErrorLog2Min = -64;
constexpr int kErrorLog2Max = 63;

class TensorDiffAccumulator {
 public:
  // Everything accumulated so far: the per-run figures in run order, the extremes and the counts. A shard
  // report carries it so that a merge can go on from it (Append) and summarise exactly what one run over
  // all the runs would have (docs/cluster.md).
  struct State {
    int64_t first_run = 0;             // the number of the first run added (a shard's first run among all)
    std::vector<double> run_means;     // per run: mean |diff|
    std::vector<double> run_relative;  // per run: mean |diff| / max |reference|
    std::vector<double> run_cosine;    // per run: cosine similarity
    double max_relative = 0.0;
    double max_abs = 0.0;
    bool quantized = false;
    double scale = 0.0;
    int32_t zero_point = 0;
    std::array<int64_t, 4> histogram{};
    int64_t max_run = -1;  // numbered from first_run
    int64_t max_index = -1;
    double reference_at_max = 0.0;
    double test_at_max = 0.0;
    int64_t elements = 0;
    int64_t differing = 0;
    int64_t nonfinite = 0;
    bool bytewise = false;
    std::array<int64_t, kErrorLog2Max - kErrorLog2Min + 1> error_log2{};  // TensorDiffSummary::error_log2_histogram
    int64_t zeros = 0;
  };

  TensorDiffAccumulator() = default;
  explicit TensorDiffAccumulator(State state) : s_(std::move(state)) {}

  // Compares one run. Shapes and types must agree (an error names what differs).
  Status AddRun(const TfLiteTensor& reference, const TfLiteTensor& test);
  TensorDiffSummary Summary() const;

  const State& state() const { return s_; }
  // Numbers the runs from `first_run` (before the first AddRun).
  void set_first_run(int64_t first_run) { s_.first_run = first_run; }
  // Goes on with the runs `later` accumulated, as if they had been added here after these: the summary
  // is then the one a single accumulator over both would give, bit for bit.
  void Append(const State& later);

 private:
  void AddBytewiseRun(const TfLiteTensor& reference, const TfLiteTensor& test);
  int64_t NextRun() const { return s_.first_run + static_cast<int64_t>(s_.run_means.size()); }

  State s_;
};

// Reads element i of a numeric tensor as double (bool as 0/1; float16 converted; complex tensors as
// 2N values, real and imaginary parts). Other types read as 0.
double ElementAsDouble(const TfLiteTensor& tensor, int64_t i);

// Whether TensorDiffAccumulator compares the tensor's values numerically (else by bytes).
bool IsNumericType(TfLiteType type);

// "float32", "int8", ... (lower case, as TFLite's Python API names them).
std::string TypeName(TfLiteType type);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_OUTPUT_DIFF_H_
