// No leaks or growth: 10,000 invokes of a tiny model with the reference kernels, the
// optimized kernels, the sample delegate and XNNPACK; resident memory (VmRSS) read after a warm-up and
// at the end must not grow by more than kMaxGrowthBytes. A leak of a few bytes per invoke shows: 10,000
// invokes of 32 bytes is 320 KiB. (Leaks at exit are LeakSanitizer's, in the --config=asan build.)
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "delegates/sample/sample_delegate.h"
#include "delegates/xnnpack/xnnpack_delegate.h"
#include "runtime/interpreter.h"
#include "runtime/model.h"
#include "tests/common/tiny_models.h"

namespace touchstone {
namespace {

constexpr int kWarmupInvokes = 1000;
constexpr int kInvokes = 10000;
constexpr long kMaxGrowthBytes = 256 * 1024;

// VmRSS of this process in bytes; -1 when /proc is unavailable.
long ResidentBytes() {
  FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof(line), status) != nullptr) {
    if (std::strncmp(line, "VmRSS:", 6) == 0) kib = std::strtol(line + 6, nullptr, 10);
  }
  std::fclose(status);
  return kib < 0 ? -1 : kib * 1024;
}

using DelegatePtr = std::unique_ptr<TfLiteDelegate, std::function<void(TfLiteDelegate*)>>;

// Runs the tiny classifier kWarmupInvokes + kInvokes times and checks the RSS growth after warm-up.
void ExpectSteady(KernelSet kernels, DelegatePtr delegate, const std::string& what) {
  StatusOr<std::shared_ptr<const Model>> model = Model::FromBuffer(MakeTinyClassifier(), "tiny_classifier");
  ASSERT_TRUE(model.ok()) << model.status().message();
  InterpreterOptions options;
  options.kernel_set = kernels;
  StatusOr<std::unique_ptr<Interpreter>> created = Interpreter::Create(model.value(), options);
  ASSERT_TRUE(created.ok()) << created.status().message();
  Interpreter* interpreter = created.value().get();
  if (delegate) {
    Status applied = interpreter->ModifyGraphWithDelegate(delegate.get());
    ASSERT_TRUE(applied.ok()) << what << ": " << applied.message();
  }
  ASSERT_TRUE(interpreter->AllocateTensors().ok());
  TfLiteTensor* input = interpreter->input_tensor(0);
  float* data = reinterpret_cast<float*>(input->data.raw);
  for (size_t i = 0; i < input->bytes / sizeof(float); ++i) data[i] = 0.01f * static_cast<float>(i);

  for (int i = 0; i < kWarmupInvokes; ++i) ASSERT_TRUE(interpreter->Invoke().ok()) << what;
  const long before = ResidentBytes();
  if (before < 0) GTEST_SKIP() << "/proc/self/status has no VmRSS here";
  for (int i = 0; i < kInvokes; ++i) {
    Status invoked = interpreter->Invoke();
    if (!invoked.ok()) FAIL() << what << ": invoke " << i << ": " << invoked.message();
  }
  const long after = ResidentBytes();
  const float first = reinterpret_cast<const float*>(interpreter->output_tensor(0)->data.raw)[0];
  std::printf("%s: VmRSS %ld KiB after %d warm-up invokes, %ld KiB after %d more (growth %ld bytes); logits[0]=%g\n",
              what.c_str(), before / 1024, kWarmupInvokes, after / 1024, kInvokes, after - before,
              static_cast<double>(first));
  EXPECT_LE(after - before, kMaxGrowthBytes) << what << ": resident memory grew over " << kInvokes << " invokes";
}

TEST(SteadyMemoryTest, ReferenceKernels) { ExpectSteady(KernelSet::kReference, nullptr, "reference kernels"); }

TEST(SteadyMemoryTest, OptimizedKernels) { ExpectSteady(KernelSet::kOptimized, nullptr, "optimized kernels"); }

TEST(SteadyMemoryTest, SampleDelegate) {
  ExpectSteady(KernelSet::kOptimized, DelegatePtr(TfLiteSampleDelegateCreate(nullptr), TfLiteSampleDelegateDelete),
               "sample delegate");
}

TEST(SteadyMemoryTest, Xnnpack) {
  const TfLiteXNNPackDelegateOptions options = TfLiteXNNPackDelegateOptionsDefault();
  ExpectSteady(KernelSet::kOptimized, DelegatePtr(TfLiteXNNPackDelegateCreate(&options), TfLiteXNNPackDelegateDelete),
               "XNNPACK");
}

}  // namespace
}  // namespace touchstone
