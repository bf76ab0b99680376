#include "runtime/kernels/kernel_util.h"

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include <gtest/gtest.h>

namespace tflite {
namespace {

constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();

TfLiteTensor QuantizedOutput(TfLiteType type, float scale, int32_t zero_point) {
  TfLiteTensor output{};
  output.type = type;
  output.params.scale = scale;
  output.params.zero_point = zero_point;
  return output;
}

// A context that keeps the last message a kernel reports.
std::string& LastMessage() {
  static std::string message;
  return message;
}

void KeepMessage(TfLiteContext*, const char* format, ...) {
  char text[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof(text), format, args);
  va_end(args);
  LastMessage() = text;
}

struct MessageContext {
  TfLiteContext context{};
  MessageContext() {
    LastMessage().clear();
    context.ReportError = KeepMessage;
  }
};

struct Range {
  TfLiteStatus status;
  int32_t min;
  int32_t max;
};

Range QuantizedRange(TfLiteFusedActivation activation, const TfLiteTensor& output) {
  Range range{kTfLiteOk, 0, 0};
  range.status = CalculateActivationRangeQuantized(nullptr, activation, &output, &range.min, &range.max);
  return range;
}

// A delegate's clamp has infinite bounds where the activation does not clamp; TFLite's kernels FLT_MAX.
TEST(ActivationRangeTest, DelegatesGetInfinitiesKernelsTheFiniteRange) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  constexpr float kMax = std::numeric_limits<float>::max();
  float min = 0.f, max = 0.f;
  EXPECT_TRUE(FusedActivationRange(kTfLiteActNone, &min, &max));
  EXPECT_EQ(min, -kInf);
  EXPECT_EQ(max, kInf);
  EXPECT_TRUE(FusedActivationRange(kTfLiteActRelu, &min, &max));
  EXPECT_EQ(min, 0.f);
  EXPECT_EQ(max, kInf);
  EXPECT_TRUE(FusedActivationRange(kTfLiteActReluN1To1, &min, &max));
  EXPECT_EQ(min, -1.f);
  EXPECT_EQ(max, 1.f);
  EXPECT_TRUE(FusedActivationRange(kTfLiteActRelu6, &min, &max));
  EXPECT_EQ(min, 0.f);
  EXPECT_EQ(max, 6.f);
  EXPECT_FALSE(FusedActivationRange(kTfLiteActTanh, &min, &max));
  EXPECT_EQ(min, -kInf);
  EXPECT_EQ(max, kInf);

  CalculateActivationRange(kTfLiteActRelu, &min, &max);
  EXPECT_EQ(min, 0.f);
  EXPECT_EQ(max, kMax);
  CalculateActivationRange(kTfLiteActRelu6, &min, &max);
  EXPECT_EQ(min, 0.f);
  EXPECT_EQ(max, 6.f);
  CalculateActivationRange(kTfLiteActTanh, &min, &max);  // not a clamp: no clamp
  EXPECT_EQ(min, -kMax);
  EXPECT_EQ(max, kMax);
}

TEST(CalculateActivationRangeQuantizedTest, QuantizesTheBoundsAndIntersectsTheTypeRange) {
  const TfLiteTensor int8 = QuantizedOutput(kTfLiteInt8, 0.5f, -10);
  Range range = QuantizedRange(kTfLiteActRelu6, int8);
  EXPECT_EQ(range.status, kTfLiteOk);
  EXPECT_EQ(range.min, -10);
  EXPECT_EQ(range.max, 2);
  range = QuantizedRange(kTfLiteActReluN1To1, int8);
  EXPECT_EQ(range.min, -12);
  EXPECT_EQ(range.max, -8);
  range = QuantizedRange(kTfLiteActRelu, QuantizedOutput(kTfLiteUInt8, 0.1f, 300));
  EXPECT_EQ(range.min, 300);  // a zero point outside the type's range stays, as in TFLite
  EXPECT_EQ(range.max, 255);
  range = QuantizedRange(kTfLiteActNone, QuantizedOutput(kTfLiteInt16, 1e-20f, 0));
  EXPECT_EQ(range.status, kTfLiteOk);  // no bound to quantize: no overflow
  EXPECT_EQ(range.min, -32768);
  EXPECT_EQ(range.max, 32767);
  // Activations that are not a range clamp to the type's range only.
  range = QuantizedRange(kTfLiteActTanh, QuantizedOutput(kTfLiteInt8, 1e-20f, 0));
  EXPECT_EQ(range.status, kTfLiteOk);
  EXPECT_EQ(range.min, -128);
  EXPECT_EQ(range.max, 127);
}

TEST(CalculateActivationRangeQuantizedTest, RefusesABoundBeyondInt32AtPrepare) {
  // 6 / 1e-10 is far beyond 2^31: TFLite's Prepare refuses the node.
  MessageContext messages;
  const TfLiteTensor output = QuantizedOutput(kTfLiteInt8, 1e-10f, 0);
  int32_t min = 0, max = 0;
  EXPECT_EQ(CalculateActivationRangeQuantized(&messages.context, kTfLiteActRelu6, &output, &min, &max), kTfLiteError);
  EXPECT_EQ(LastMessage(), "output 0's scale 1e-10 puts the fused activation's bounds outside int32");
  // Without a context it refuses the same, silently.
  EXPECT_EQ(QuantizedRange(kTfLiteActRelu6, output).status, kTfLiteError);
  EXPECT_EQ(QuantizedRange(kTfLiteActReluN1To1, QuantizedOutput(kTfLiteInt16, 1e-10f, 0)).status, kTfLiteError);
  // RELU quantizes 0 only, which never overflows.
  EXPECT_EQ(QuantizedRange(kTfLiteActRelu, output).status, kTfLiteOk);
  // A scale of 0 gives no finite bound.
  EXPECT_EQ(QuantizedRange(kTfLiteActRelu, QuantizedOutput(kTfLiteUInt8, 0.f, 0)).status, kTfLiteError);
}

TEST(CalculateActivationRangeQuantizedTest, BoundsAtTwoToThe31WrapAsTfliteDoesOnX86) {
  // 1 / 2^-31 rounds to 2^31, which TFLite's check (<= float(INT32_MAX), itself 2^31) admits; x86
  // converts it to INT32_MIN, and the zero point is added with int32 wrap-around.
  const float scale = 1.0f / 2147483648.0f;
  Range range = QuantizedRange(kTfLiteActReluN1To1, QuantizedOutput(kTfLiteInt8, scale, 0));
  EXPECT_EQ(range.status, kTfLiteOk);
  EXPECT_EQ(range.min, -128);       // max(-128, 0 + INT32_MIN)
  EXPECT_EQ(range.max, kInt32Min);  // min(127, 0 + INT32_MIN): below the minimum, as in TFLite
  range = QuantizedRange(kTfLiteActReluN1To1, QuantizedOutput(kTfLiteInt8, scale, -1));
  EXPECT_EQ(range.status, kTfLiteOk);
  EXPECT_EQ(range.min, kInt32Max);  // max(-128, -1 + INT32_MIN), which wraps to INT32_MAX
  EXPECT_EQ(range.max, 127);        // min(127, -1 + INT32_MIN)
  range = QuantizedRange(kTfLiteActRelu6, QuantizedOutput(kTfLiteUInt8, 6.0f * scale, 0));
  EXPECT_EQ(range.status, kTfLiteOk);
  EXPECT_EQ(range.min, 0);
  EXPECT_EQ(range.max, kInt32Min);
}

TEST(CalculateActivationRangeQuantizedTest, RefusesTypesWithoutAQuantizedRange) {
  MessageContext messages;
  const TfLiteTensor output = QuantizedOutput(kTfLiteInt32, 1.0f, 0);
  int32_t min = 0, max = 0;
  EXPECT_EQ(CalculateActivationRangeQuantized(&messages.context, kTfLiteActNone, &output, &min, &max), kTfLiteError);
  EXPECT_EQ(LastMessage(), "output 0 has type INT32; no quantized range");
}

}  // namespace
}  // namespace tflite
