// Reference CAST kernel (helpers in elementwise_util.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/cpu_backend_context.h"
#include "runtime/kernels/internal/elementwise_broadcast.h"
#include "runtime/kernels/internal/elementwise_quant.h"
#include "runtime/kernels/internal/float16.h"
#include "runtime/kernels/internal/type_dispatch.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/elementwise_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using namespace elementwise_ops;  // NOLINT(build/namespaces): the helpers of elementwise_util.h

// ================================================================================================
// CAST.

using CastTypes =
    TypeList<bool, uint8_t, int8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, float, double>;

// Float to integer as x86-64 code compiled from a static_cast computes it: truncation toward zero;
// out-of-range values and NaN give the "integer indefinite" value of the 32- or 64-bit conversion
// instruction, and narrower types keep the low bits of the 32-bit conversion.
template <typename To>
To FloatToInteger(double v) {
  const bool in_int64 = v >= -9223372036854775808.0 && v < 9223372036854775808.0;
  const int64_t as_int64 = in_int64 ? static_cast<int64_t>(v) : std::numeric_limits<int64_t>::min();
  if (std::is_same<To, int64_t>::value) return static_cast<To>(as_int64);
  if (std::is_same<To, uint64_t>::value) {
    if (v >= 9223372036854775808.0 && v < 18446744073709551616.0) {
      return static_cast<To>(static_cast<uint64_t>(v));
    }
    return static_cast<To>(static_cast<uint64_t>(as_int64));
  }
  if (std::is_same<To, uint32_t>::value) return static_cast<To>(static_cast<uint64_t>(as_int64));
  const bool in_int32 = v > -2147483649.0 && v < 2147483648.0;
  const int32_t as_int32 = in_int32 ? static_cast<int32_t>(v) : std::numeric_limits<int32_t>::min();
  return static_cast<To>(static_cast<uint32_t>(as_int32));  // keeps the low bits for narrow types
}

template <typename From, typename To>
To CastValue(From x) {
  if (std::is_same<To, bool>::value) return static_cast<To>(x != From(0));
  if (std::is_floating_point<From>::value && std::is_integral<To>::value) {
    return FloatToInteger<To>(static_cast<double>(x));
  }
  return static_cast<To>(x);
}

template <typename From, typename To>
void CastLoop(const TfLiteTensor* in, TfLiteTensor* out) {
  const int64_t n = tflite::NumElements(in);
  const From* x = In<From>(in);
  To* y = Out<To>(out);
  for (int64_t i = 0; i < n; ++i) y[i] = CastValue<From, To>(x[i]);
}

template <typename From>
TfLiteStatus CastFrom(TfLiteContext* context, const TfLiteTensor* in, TfLiteTensor* out) {
  return DispatchType(
      CastTypes(), out->type,
      [&](auto to) {
        CastLoop<From, decltype(to)>(in, out);
        return kTfLiteOk;
      },
      [&] {
        TF_LITE_KERNEL_LOG(context, "CAST: output type %s is not supported", TypeName(out->type));
        return kTfLiteError;
      });
}

// FLOAT16 goes through float32 both ways, as in TFLite: a half input is widened exactly and then
// cast as a float would be; a value cast to half is first cast to float, then rounded to nearest even.
template <typename To>
void CastFromHalf(const TfLiteTensor* in, TfLiteTensor* out) {
  const int64_t n = tflite::NumElements(in);
  const uint16_t* x = In<uint16_t>(in);
  To* y = Out<To>(out);
  for (int64_t i = 0; i < n; ++i) y[i] = CastValue<float, To>(float16::HalfToFloat(x[i]));
}

template <typename From>
void CastToHalf(const TfLiteTensor* in, TfLiteTensor* out) {
  const int64_t n = tflite::NumElements(in);
  const From* x = In<From>(in);
  uint16_t* y = Out<uint16_t>(out);
  for (int64_t i = 0; i < n; ++i) y[i] = float16::FloatToHalf(CastValue<From, float>(x[i]));
}

bool IsCastType(TfLiteType type) { return type == kTfLiteFloat16 || IsOneOf(CastTypes(), type); }

TfLiteStatus PrepareCast(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 1, "CAST", &in, &out));
  TS_ENSURE(context, IsCastType(in->type), "CAST: input type %s is not supported", TypeName(in->type));
  TS_ENSURE(context, IsCastType(out->type), "CAST: output type %s is not supported", TypeName(out->type));
  return ResizeLike(context, out, in);
}

TfLiteStatus EvalCast(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* in;
  TfLiteTensor* out;
  TF_LITE_ENSURE_OK(context, GetIO(context, node, 1, "CAST", &in, &out));
  if (in->type == kTfLiteFloat16) {
    if (out->type == kTfLiteFloat16) {
      const int64_t n = tflite::NumElements(in);
      for (int64_t i = 0; i < n; ++i) {
        Out<uint16_t>(out)[i] = float16::FloatToHalf(float16::HalfToFloat(In<uint16_t>(in)[i]));
      }
      return kTfLiteOk;
    }
    return EvalForType(CastTypes(), out->type, [&](auto to) { CastFromHalf<decltype(to)>(in, out); });
  }
  if (out->type == kTfLiteFloat16) {
    return EvalForType(CastTypes(), in->type, [&](auto from) { CastToHalf<decltype(from)>(in, out); });
  }
  return DispatchType(
      CastTypes(), in->type, [&](auto from) { return CastFrom<decltype(from)>(context, in, out); },
      [&] {
        TF_LITE_KERNEL_LOG(context, "CAST: input type %s is not supported", TypeName(in->type));
        return kTfLiteError;
      });
}

}  // namespace

TS_REGISTER(CAST, Init, Free, PrepareCast, EvalCast)

}  // namespace reference
}  // namespace touchstone
