// Reference kernels for the less common ops users' models hold, with TensorFlow Lite 2.14.1's
// semantics (tensorflow/lite/kernels/<op>.cc): ADD_N, ATAN2, SIGN, BUCKETIZE,
// DYNAMIC_UPDATE_SLICE, EMBEDDING_LOOKUP, MATRIX_DIAG, MATRIX_SET_DIAG, ONE_HOT,
// REVERSE_SEQUENCE, UNIQUE and WHERE. The space/batch, segment/scatter and FFT ops live in
// space_batch_ops.cc, segment_ops.cc and fft.cc.
//
// Where TFLite reads past a tensor on a bad model (an index, a length or a shape it does not
// check), these kernels check and refuse with a one-line error instead; on every model TFLite
// runs correctly they compute what it computes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <type_traits>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/cpu_backend_context.h"
#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using namespace kernel_helpers;  // NOLINT(build/namespaces): the helpers of kernel_helpers.h
using tflite::IsDynamicTensor;
using tflite::NumElements;

// ---------------------------------------------------------------------------------------------
// ADD_N: the element-wise sum of two or more same-shaped tensors. TFLite's optimized AddN (one
// thread) starts from input 0 and adds the others in order with its Add kernel, which clamps
// float results to the finite range [lowest, max]; int32 sums wrap.

TfLiteStatus AddNPrepare(TfLiteContext* context, TfLiteNode* node) {
  if (tflite::NumInputs(node) < 2 || tflite::NumOutputs(node) != 1) {
    TF_LITE_KERNEL_LOG(context, "expected at least 2 inputs and 1 output, got %d and %d", tflite::NumInputs(node),
                       tflite::NumOutputs(node));
    return kTfLiteError;
  }
  const TfLiteTensor* first;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &first));
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, first, "input 0", {kTfLiteFloat32, kTfLiteInt32}));
  for (int i = 1; i < tflite::NumInputs(node); ++i) {
    const TfLiteTensor* input;
    TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, i, &input));
    if (input->type != first->type || !tflite::HaveSameShapes(first, input)) {
      TF_LITE_KERNEL_LOG(context, "input %d is %s %s, input 0 is %s %s; all must match", i,
                         TfLiteTypeGetName(input->type), ShapeString(input).c_str(), TfLiteTypeGetName(first->type),
                         ShapeString(first).c_str());
      return kTfLiteError;
    }
  }
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 0, &output));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", first->type));
  return ResizeLike(context, output, first);
}

template <typename T>
void AddNCompute(TfLiteContext* context, TfLiteNode* node, int64_t size, T* out) {
  const int num_inputs = tflite::NumInputs(node);
  const T* in0 = tflite::GetTensorData<T>(tflite::GetInput(context, node, 0));
  std::copy(in0, in0 + size, out);
  for (int k = 1; k < num_inputs; ++k) {
    const T* in = tflite::GetTensorData<T>(tflite::GetInput(context, node, k));
    for (int64_t i = 0; i < size; ++i) {
      if constexpr (std::is_floating_point<T>::value) {
        out[i] = std::min(std::max(out[i] + in[i], std::numeric_limits<T>::lowest()), std::numeric_limits<T>::max());
      } else {
        out[i] = quantization_util::WrappingAdd(out[i], in[i]);
      }
    }
  }
}

TfLiteStatus AddNEval(TfLiteContext* context, TfLiteNode* node) {
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  const int64_t size = NumElements(output);
  if (size == 0) return kTfLiteOk;
  if (output->type == kTfLiteFloat32) {
    AddNCompute(context, node, size, output->data.f);
  } else {
    AddNCompute(context, node, size, output->data.i32);
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// ATAN2(y, x) element-wise, float32 or float64. TFLite checks only that the ranks agree: the output
// takes y's shape and element i pairs y[i] with x[i] in memory order, whatever the shapes; where x
// holds fewer elements TFLite reads past its end, and found zeros there in every case recorded
// (../shared/opsuite_sweep), so those elements of x count as 0 here. A warning says so once.

TfLiteStatus Atan2Prepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* y;
  const TfLiteTensor* x;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&y, &x}, {&output}));
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, y, "input 0", {kTfLiteFloat32, kTfLiteFloat64}));
  TF_LITE_ENSURE_OK(context, CheckType(context, x, "input 1", y->type));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", y->type));
  if (tflite::NumDimensions(y) != tflite::NumDimensions(x)) {
    TF_LITE_KERNEL_LOG(context, "input 0 has rank %d but input 1 rank %d; they must match", tflite::NumDimensions(y),
                       tflite::NumDimensions(x));
    return kTfLiteError;
  }
  if (!tflite::HaveSameShapes(y, x)) {
    WarnTfliteDifference(context,
                         "ATAN2 of shapes %s and %s: TFLite 2.14.1 does not broadcast; it pairs the elements "
                         "in memory order, gives the output the first input's shape, and reads the second as 0 "
                         "past its end",
                         ShapeString(y).c_str(), ShapeString(x).c_str());
  }
  return ResizeLike(context, output, y);
}

template <typename T>
void Atan2Compute(const T* y, const T* x, int64_t n, int64_t x_count, T* out) {
  const int64_t paired = std::min(n, x_count);
  for (int64_t i = 0; i < paired; ++i) out[i] = std::atan2(y[i], x[i]);
  for (int64_t i = paired; i < n; ++i) out[i] = std::atan2(y[i], T(0));
}

TfLiteStatus Atan2Eval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* y = tflite::GetInput(context, node, 0);
  const TfLiteTensor* x = tflite::GetInput(context, node, 1);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  const int64_t n = NumElements(output);
  const int64_t x_count = NumElements(x);
  if (output->type == kTfLiteFloat32) {
    Atan2Compute(y->data.f, x->data.f, n, x_count, output->data.f);
  } else {
    Atan2Compute(y->data.f64, x->data.f64, n, x_count, output->data.f64);
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// SIGN: 1, -1 or 0 (NaN gives 0, as in TFLite). float32, float64, int32.

using SignTypes = TypeList<float, double, int32_t>;

TfLiteStatus SignPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&input}, {&output}));
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, input, "input 0", SignTypes()));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", input->type));
  return ResizeLike(context, output, input);
}

template <typename T>
void SignCompute(const T* in, int64_t n, T* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = in[i] > 0 ? T(1) : (in[i] < 0 ? T(-1) : T(0));
}

TfLiteStatus SignEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  const int64_t n = NumElements(output);
  return EvalForType(SignTypes(), output->type, [&](auto t) {
    using T = decltype(t);
    SignCompute(tflite::GetTensorData<T>(input), n, tflite::GetTensorData<T>(output));
  });
}

// ---------------------------------------------------------------------------------------------
// BUCKETIZE: the index of the first boundary greater than each value (std::upper_bound against
// the float boundaries, comparing as C++ does for the input's type). Output INT32.

const TfLiteBucketizeParams* BucketizeParams(const TfLiteNode* node) {
  return static_cast<const TfLiteBucketizeParams*>(node->builtin_data);
}

using BucketizeTypes = TypeList<float, double, int32_t, int64_t>;

TfLiteStatus BucketizePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckArity(context, node, 1, 1));
  const TfLiteBucketizeParams* params = BucketizeParams(node);
  if (params == nullptr || (params->num_boundaries > 0 && params->boundaries == nullptr)) {
    TF_LITE_KERNEL_LOG(context, "option boundaries is missing");
    return kTfLiteError;
  }
  if (!std::is_sorted(params->boundaries, params->boundaries + params->num_boundaries)) {
    TF_LITE_KERNEL_LOG(context, "option boundaries is not sorted in ascending order");
    return kTfLiteError;
  }
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 0, &output));
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, input, "input 0", BucketizeTypes()));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", kTfLiteInt32));
  return ResizeLike(context, output, input);
}

template <typename T>
void BucketizeCompute(const T* in, int64_t n, const float* boundaries, int num_boundaries, int32_t* out) {
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<int32_t>(std::upper_bound(boundaries, boundaries + num_boundaries, in[i]) - boundaries);
  }
}

TfLiteStatus BucketizeEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteBucketizeParams* params = BucketizeParams(node);
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  const int64_t n = NumElements(input);
  const float* b = params->boundaries;
  const int nb = params->num_boundaries;
  return EvalForType(BucketizeTypes(), input->type, [&](auto t) {
    BucketizeCompute(tflite::GetTensorData<decltype(t)>(input), n, b, nb, output->data.i32);
  });
}

// ---------------------------------------------------------------------------------------------
// DYNAMIC_UPDATE_SLICE(operand, update, start_indices): the operand with `update` written at
// start_indices, each start clamped to [0, operand_dim - update_dim] (XLA semantics). Any
// fixed-size type; indices INT32 or INT64.

TfLiteStatus DynamicUpdateSlicePrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* operand;
  const TfLiteTensor* update;
  const TfLiteTensor* start;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&operand, &update, &start}, {&output}));
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, operand, "input 0 (operand)", &elem));
  TF_LITE_ENSURE_OK(context, CheckType(context, update, "input 1 (update)", operand->type));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", operand->type));
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, start, "input 2 (start_indices)", {kTfLiteInt32, kTfLiteInt64}));
  const int rank = operand->dims->size;
  if (start->dims->size != 1 || start->dims->data[0] != rank) {
    TF_LITE_KERNEL_LOG(context, "input 2 (start_indices) has shape %s, expected [%d]", ShapeString(start).c_str(),
                       rank);
    return kTfLiteError;
  }
  bool fits = update->dims->size == rank;
  for (int i = 0; fits && i < rank; ++i) fits = update->dims->data[i] <= operand->dims->data[i];
  if (!fits) {
    TF_LITE_KERNEL_LOG(context, "input 1 (update) has shape %s, which does not fit in the operand %s",
                       ShapeString(update).c_str(), ShapeString(operand).c_str());
    return kTfLiteError;
  }
  return ResizeLike(context, output, operand);
}

TfLiteStatus DynamicUpdateSliceEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* operand = tflite::GetInput(context, node, 0);
  const TfLiteTensor* update = tflite::GetInput(context, node, 1);
  const TfLiteTensor* start_tensor = tflite::GetInput(context, node, 2);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  std::vector<int64_t> start;
  TF_LITE_ENSURE_OK(context, ReadInts(context, start_tensor, "input 2 (start_indices)", &start));
  const size_t elem = tflite::TfLiteTypeGetSize(operand->type);
  if (output->data.raw != operand->data.raw && operand->bytes > 0) {
    std::memcpy(output->data.raw, operand->data.raw, operand->bytes);
  }
  const Shape operand_shape = ShapeOf(operand);
  const Shape update_shape = ShapeOf(update);
  const int64_t update_size = ElementCount(update_shape);
  if (update_size == 0) return kTfLiteOk;
  const int rank = static_cast<int>(operand_shape.size());
  // Output offset of the update's first element, and the strides to walk its rows.
  std::vector<int64_t> out_strides(rank, 1);
  for (int i = rank - 2; i >= 0; --i) out_strides[i] = out_strides[i + 1] * operand_shape[i + 1];
  int64_t base = 0;
  for (int i = 0; i < rank; ++i) {
    const int64_t clamped = std::min<int64_t>(std::max<int64_t>(0, start[i]), operand_shape[i] - update_shape[i]);
    base += clamped * out_strides[i];
  }
  // Copy the update row by row (its last dimension is contiguous in both tensors).
  const int64_t row = rank == 0 ? 1 : update_shape[rank - 1];
  const int64_t rows = update_size / row;
  const char* src = update->data.raw_const;
  std::vector<int> index(rank, 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t offset = base;
    for (int i = 0; i + 1 < rank; ++i) offset += index[i] * out_strides[i];
    std::memcpy(output->data.raw + offset * elem, src + r * row * elem, row * elem);
    for (int i = rank - 2; i >= 0; --i) {
      if (++index[i] < update_shape[i]) break;
      index[i] = 0;
    }
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// EMBEDDING_LOOKUP(ids, table): rows of the table. A float32 table, or an int8/uint8 table copied
// as is; an int8/uint8 table with a float32 output is dequantized (hybrid): the stored bytes are
// read as int8 (also for uint8, as TFLite does) and multiplied by the scale, per row when the
// table is quantized per channel along dimension 0.

TfLiteStatus EmbeddingLookupPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* ids;
  const TfLiteTensor* table;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&ids, &table}, {&output}));
  TF_LITE_ENSURE_OK(context, CheckRank(context, ids, "input 0 (ids)", 1));
  TF_LITE_ENSURE_OK(context, CheckType(context, ids, "input 0 (ids)", kTfLiteInt32));
  if (table->dims->size < 2) {
    TF_LITE_KERNEL_LOG(context, "input 1 (table) has shape %s, expected rank 2 or more", ShapeString(table).c_str());
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context,
                    CheckTypeOneOf(context, table, "input 1 (table)", {kTfLiteFloat32, kTfLiteInt8, kTfLiteUInt8}));
  const bool hybrid = table->type != kTfLiteFloat32 && output->type == kTfLiteFloat32;
  if (!hybrid) TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", table->type));
  if (table->quantization.type == kTfLiteAffineQuantization) {
    const auto* q = static_cast<const TfLiteAffineQuantization*>(table->quantization.params);
    if (q == nullptr || q->scale == nullptr || q->zero_point == nullptr || q->scale->size < 1 ||
        q->zero_point->size < 1) {
      TF_LITE_KERNEL_LOG(context, "input 1 (table) has incomplete quantization parameters");
      return kTfLiteError;
    }
    if (hybrid && q->zero_point->data[0] != 0) {
      TF_LITE_KERNEL_LOG(context, "input 1 (table) has zero point %d; dequantizing lookups need 0",
                         q->zero_point->data[0]);
      return kTfLiteError;
    }
    if (q->scale->size > 1) {
      const int rows = table->dims->data[0];
      if (!hybrid || q->quantized_dimension != 0 || q->scale->size != rows ||
          (q->zero_point->size != rows && q->zero_point->size != 1)) {
        TF_LITE_KERNEL_LOG(context,
                           "input 1 (table) is quantized per channel; that needs a float32 output "
                           "and one scale per row along dimension 0");
        return kTfLiteError;
      }
    }
  }
  Shape shape = ShapeOf(table);
  shape[0] = ids->dims->data[0];
  return ResizeOutput(context, output, shape);
}

TfLiteStatus EmbeddingLookupEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* ids = tflite::GetInput(context, node, 0);
  const TfLiteTensor* table = tflite::GetInput(context, node, 1);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  const int rows = table->dims->data[0];
  const int num_ids = ids->dims->data[0];
  for (int i = 0; i < num_ids; ++i) {
    if (ids->data.i32[i] < 0 || ids->data.i32[i] >= rows) {
      TF_LITE_KERNEL_LOG(context, "id %d (at position %d) is out of range [0, %d)", ids->data.i32[i], i, rows);
      return kTfLiteError;
    }
  }
  const int64_t row_elems = NumElements(table) / std::max(rows, 1);
  if (table->type == kTfLiteFloat32 || output->type != kTfLiteFloat32) {
    const size_t row_bytes = row_elems * tflite::TfLiteTypeGetSize(table->type);
    for (int i = 0; i < num_ids; ++i) {
      std::memcpy(output->data.raw + i * row_bytes, table->data.raw_const + ids->data.i32[i] * row_bytes, row_bytes);
    }
    return kTfLiteOk;
  }
  const TfLiteAffineQuantization* q = AffineQuantization(table);
  const int8_t* values = reinterpret_cast<const int8_t*>(table->data.raw_const);
  for (int i = 0; i < num_ids; ++i) {
    const int id = ids->data.i32[i];
    // TFLite multiplies in double: int8 value * (double)scale, rounded once to float.
    const double scale = IsPerChannelQuantized(table) ? q->scale->data[id] : table->params.scale;
    for (int64_t j = 0; j < row_elems; ++j) {
      output->data.f[i * row_elems + j] = static_cast<float>(values[id * row_elems + j] * scale);
    }
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// MATRIX_DIAG: [..., N] -> [..., N, N] with the input on the diagonal and zero bytes elsewhere.
// MATRIX_SET_DIAG(input [..., M, N], diagonal [..., min(M, N)]): the input with its diagonal
// replaced. Both copy bytes, so every fixed-size type works.

TfLiteStatus MatrixDiagPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&input}, {&output}));
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, input, "input 0", &elem));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", input->type));
  if (input->dims->size < 1) {
    TF_LITE_KERNEL_LOG(context, "input 0 is a scalar; expected rank 1 or more");
    return kTfLiteError;
  }
  Shape shape = ShapeOf(input);
  shape.push_back(shape.back());
  return ResizeOutput(context, output, shape);
}

TfLiteStatus MatrixDiagEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  const size_t elem = tflite::TfLiteTypeGetSize(input->type);
  if (output->bytes == 0) return kTfLiteOk;
  std::memset(output->data.raw, 0, output->bytes);
  const int n = input->dims->data[input->dims->size - 1];
  const int64_t batches = NumElements(input) / std::max(n, 1);
  for (int64_t b = 0; b < batches; ++b) {
    for (int i = 0; i < n; ++i) {
      std::memcpy(output->data.raw + ((b * n + i) * n + i) * elem, input->data.raw_const + (b * n + i) * elem, elem);
    }
  }
  return kTfLiteOk;
}

TfLiteStatus MatrixSetDiagPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  const TfLiteTensor* diagonal;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&input, &diagonal}, {&output}));
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, input, "input 0", &elem));
  TF_LITE_ENSURE_OK(context, CheckType(context, diagonal, "input 1 (diagonal)", input->type));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", input->type));
  const int rank = input->dims->size;
  if (rank < 2) {
    TF_LITE_KERNEL_LOG(context, "input 0 has shape %s, expected rank 2 or more", ShapeString(input).c_str());
    return kTfLiteError;
  }
  Shape expected(input->dims->data, input->dims->data + rank - 1);
  expected.back() = std::min(input->dims->data[rank - 2], input->dims->data[rank - 1]);
  if (ShapeOf(diagonal) != expected) {
    TF_LITE_KERNEL_LOG(context, "input 1 (diagonal) has shape %s, expected %s", ShapeString(diagonal).c_str(),
                       ShapeString(expected).c_str());
    return kTfLiteError;
  }
  return ResizeLike(context, output, input);
}

TfLiteStatus MatrixSetDiagEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  const TfLiteTensor* diagonal = tflite::GetInput(context, node, 1);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (output->bytes == 0) return kTfLiteOk;
  const size_t elem = tflite::TfLiteTypeGetSize(input->type);
  if (output->data.raw != input->data.raw) std::memcpy(output->data.raw, input->data.raw, input->bytes);
  const int rank = input->dims->size;
  const int rows = input->dims->data[rank - 2];
  const int cols = input->dims->data[rank - 1];
  const int diag = std::min(rows, cols);
  const int64_t batches = NumElements(input) / (static_cast<int64_t>(rows) * cols);
  for (int64_t b = 0; b < batches; ++b) {
    for (int i = 0; i < diag; ++i) {
      std::memcpy(output->data.raw + ((b * rows + i) * cols + i) * elem,
                  diagonal->data.raw_const + (b * diag + i) * elem, elem);
    }
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// ONE_HOT(indices, depth, on_value, off_value): output(i, j, k) = indices(i, k) == j ? on : off,
// with the depth axis inserted at `axis` (-1: last). Indices outside [0, depth) give all-off rows.

struct OneHotInfo {
  const TfLiteTensor* indices;
  const TfLiteTensor* depth;
  const TfLiteTensor* on_value;
  const TfLiteTensor* off_value;
  TfLiteTensor* output;
  int axis;
};

TfLiteStatus GetOneHotInfo(TfLiteContext* context, TfLiteNode* node, OneHotInfo* info) {
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &info->indices));
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 1, &info->depth));
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 2, &info->on_value));
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 3, &info->off_value));
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 0, &info->output));
  const auto* params = static_cast<const TfLiteOneHotParams*>(node->builtin_data);
  // Without options TFLite's zeroed params give axis 0.
  const int axis = params != nullptr ? params->axis : 0;
  info->axis = axis == -1 ? info->indices->dims->size : axis;
  return kTfLiteOk;
}

TfLiteStatus OneHotResize(TfLiteContext* context, const OneHotInfo& info) {
  const int depth = info.depth->data.i32[0];
  if (depth < 0) {
    TF_LITE_KERNEL_LOG(context, "input 1 (depth) is %d; it must not be negative", depth);
    return kTfLiteError;
  }
  Shape shape = ShapeOf(info.indices);
  shape.insert(shape.begin() + info.axis, depth);
  return ResizeOutput(context, info.output, shape);
}

using OneHotTypes = TypeList<float, int32_t, int64_t, int8_t, uint8_t, bool>;

TfLiteStatus OneHotPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckArity(context, node, 4, 1));
  OneHotInfo info;
  TF_LITE_ENSURE_OK(context, GetOneHotInfo(context, node, &info));
  // TFLite's Prepare also admits INT16 but its Eval then fails.
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, info.on_value, "input 2 (on_value)", OneHotTypes()));
  TF_LITE_ENSURE_OK(context, CheckType(context, info.off_value, "input 3 (off_value)", info.on_value->type));
  TF_LITE_ENSURE_OK(context, CheckType(context, info.output, "output 0", info.on_value->type));
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, info.indices, "input 0 (indices)", {kTfLiteInt32, kTfLiteInt64}));
  TF_LITE_ENSURE_OK(context, CheckType(context, info.depth, "input 1 (depth)", kTfLiteInt32));
  const int output_rank = info.indices->dims->size + 1;
  if (info.axis < 0 || info.axis >= output_rank) {
    TF_LITE_KERNEL_LOG(context, "option axis %d is out of range for a %d-D output", info.axis, output_rank);
    return kTfLiteError;
  }
  const TfLiteTensor* scalars[] = {info.depth, info.on_value, info.off_value};
  const char* names[] = {"input 1 (depth)", "input 2 (on_value)", "input 3 (off_value)"};
  for (int i = 0; i < 3; ++i) {
    if (NumElements(scalars[i]) != 1) {
      TF_LITE_KERNEL_LOG(context, "%s has shape %s; it must hold exactly one value", names[i],
                         ShapeString(scalars[i]).c_str());
      return kTfLiteError;
    }
  }
  if (!ValuesKnown(info.depth)) {
    tflite::SetTensorToDynamic(info.output);
    return kTfLiteOk;
  }
  return OneHotResize(context, info);
}

template <typename T, typename I>
void OneHotCompute(const OneHotInfo& info) {
  const Shape shape = ShapeOf(info.indices);
  int64_t prefix = 1;
  for (int i = 0; i < info.axis; ++i) prefix *= shape[i];
  if (prefix == 0) return;
  const int64_t suffix = NumElements(info.indices) / prefix;
  const int depth = info.depth->data.i32[0];
  const T on = *tflite::GetTensorData<T>(info.on_value);
  const T off = *tflite::GetTensorData<T>(info.off_value);
  const I* indices = tflite::GetTensorData<I>(info.indices);
  T* out = tflite::GetTensorData<T>(info.output);
  for (int64_t i = 0; i < prefix; ++i) {
    for (int j = 0; j < depth; ++j) {
      for (int64_t k = 0; k < suffix; ++k) {
        // TFLite compares the index truncated to int.
        *out++ = static_cast<int>(indices[i * suffix + k]) == j ? on : off;
      }
    }
  }
}

template <typename T>
void OneHotDispatchIndices(const OneHotInfo& info) {
  if (info.indices->type == kTfLiteInt64) {
    OneHotCompute<T, int64_t>(info);
  } else {
    OneHotCompute<T, int32_t>(info);
  }
}

TfLiteStatus OneHotEval(TfLiteContext* context, TfLiteNode* node) {
  OneHotInfo info;
  TF_LITE_ENSURE_OK(context, GetOneHotInfo(context, node, &info));
  if (IsDynamicTensor(info.output)) TF_LITE_ENSURE_OK(context, OneHotResize(context, info));
  return EvalForType(OneHotTypes(), info.output->type, [&](auto t) { OneHotDispatchIndices<decltype(t)>(info); });
}

// ---------------------------------------------------------------------------------------------
// REVERSE_SEQUENCE(input, seq_lengths): for each b along batch_dim, the first seq_lengths[b]
// elements along seq_dim are reversed; the rest (and everything when the length is <= 0) are
// copied. TFLite checks only the first length against the sequence size; all are checked here.

TfLiteStatus ReverseSequencePrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  const TfLiteTensor* lengths;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&input, &lengths}, {&output}));
  TF_LITE_ENSURE_OK(context, CheckRank(context, lengths, "input 1 (seq_lengths)", 1));
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, input, "input 0",
                                            {kTfLiteFloat32, kTfLiteUInt8, kTfLiteInt16, kTfLiteInt32, kTfLiteInt64}));
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, lengths, "input 1 (seq_lengths)", {kTfLiteInt32, kTfLiteInt64}));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", input->type));
  const auto* params = static_cast<const TfLiteReverseSequenceParams*>(node->builtin_data);
  const int seq_dim = params != nullptr ? params->seq_dim : 0;
  const int batch_dim = params != nullptr ? params->batch_dim : 0;
  const int rank = input->dims->size;
  if (seq_dim < 0 || seq_dim >= rank || batch_dim < 0 || batch_dim >= rank || seq_dim == batch_dim) {
    TF_LITE_KERNEL_LOG(context,
                       "options seq_dim %d and batch_dim %d must be different axes of the %d-D "
                       "input",
                       seq_dim, batch_dim, rank);
    return kTfLiteError;
  }
  if (lengths->dims->data[0] != input->dims->data[batch_dim]) {
    TF_LITE_KERNEL_LOG(context,
                       "input 1 (seq_lengths) has %d entries but the input's batch dimension %d "
                       "has size %d",
                       lengths->dims->data[0], batch_dim, input->dims->data[batch_dim]);
    return kTfLiteError;
  }
  return ResizeLike(context, output, input);
}

TfLiteStatus ReverseSequenceEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  const TfLiteTensor* lengths_tensor = tflite::GetInput(context, node, 1);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  const auto* params = static_cast<const TfLiteReverseSequenceParams*>(node->builtin_data);
  const int seq_dim = params->seq_dim;
  const int batch_dim = params->batch_dim;
  const Shape shape = ShapeOf(input);
  std::vector<int64_t> lengths;
  TF_LITE_ENSURE_OK(context, ReadInts(context, lengths_tensor, "input 1 (seq_lengths)", &lengths));
  for (size_t b = 0; b < lengths.size(); ++b) {
    if (lengths[b] > shape[seq_dim]) {
      TF_LITE_KERNEL_LOG(context, "seq_lengths[%d] is %lld, more than the sequence size %d", static_cast<int>(b),
                         static_cast<long long>(lengths[b]), shape[seq_dim]);
      return kTfLiteError;
    }
  }
  if (output->bytes == 0) return kTfLiteOk;
  const size_t elem = tflite::TfLiteTypeGetSize(input->type);
  const int rank = static_cast<int>(shape.size());
  std::vector<int64_t> strides(rank, 1);
  for (int i = rank - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
  // Everything after the later of the two axes moves as one contiguous block.
  const int last_axis = std::max(seq_dim, batch_dim);
  const int64_t block = strides[last_axis];
  const int64_t blocks = NumElements(input) / block;
  const int64_t block_bytes = block * elem;
  for (int64_t k = 0; k < blocks; ++k) {
    const int64_t flat = k * block;
    const int64_t b = (flat / strides[batch_dim]) % shape[batch_dim];
    const int64_t s = (flat / strides[seq_dim]) % shape[seq_dim];
    const int64_t length = lengths[b];
    const int64_t source = s < length ? flat + (length - 1 - 2 * s) * strides[seq_dim] : flat;
    std::memcpy(output->data.raw + flat * elem, input->data.raw_const + source * elem, block_bytes);
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// UNIQUE(x): the distinct values of a 1-D tensor in order of first appearance (output 0, sized
// at run time) and, for each element, the index of its value there (output 1, INT32 or INT64 as
// option idx_out_type says). Values are keyed by an ordered map as in TFLite, so -0.0 and 0.0 are
// one value.

using UniqueTypes = TypeList<int8_t, int16_t, int32_t, int64_t, float, uint8_t>;

TfLiteStatus UniquePrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* values;
  TfLiteTensor* indices;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&input}, {&values, &indices}));
  TF_LITE_ENSURE_OK(context, CheckRank(context, input, "input 0", 1));
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, input, "input 0", UniqueTypes()));
  TF_LITE_ENSURE_OK(context, CheckType(context, values, "output 0", input->type));
  const auto* params = static_cast<const TfLiteUniqueParams*>(node->builtin_data);
  if (params == nullptr) {
    TF_LITE_KERNEL_LOG(context, "options (idx_out_type) are missing");
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, indices, "output 1", {kTfLiteInt32, kTfLiteInt64}));
  TF_LITE_ENSURE_OK(context, CheckType(context, indices, "output 1", params->index_out_type));
  tflite::SetTensorToDynamic(values);
  return ResizeLike(context, indices, input);
}

template <typename T, typename I>
TfLiteStatus UniqueCompute(TfLiteContext* context, const TfLiteTensor* input, TfLiteTensor* values,
                           TfLiteTensor* indices) {
  std::map<T, int> seen;
  std::vector<T> distinct;
  const T* data = tflite::GetTensorData<T>(input);
  I* index_out = tflite::GetTensorData<I>(indices);
  const int64_t n = NumElements(input);
  for (int64_t i = 0; i < n; ++i) {
    auto it = seen.find(data[i]);
    if (it == seen.end()) {
      it = seen.emplace(data[i], static_cast<int>(distinct.size())).first;
      distinct.push_back(data[i]);
    }
    index_out[i] = static_cast<I>(it->second);
  }
  TF_LITE_ENSURE_OK(context, ResizeOutput(context, values, {static_cast<int>(distinct.size())}));
  if (!distinct.empty()) std::copy(distinct.begin(), distinct.end(), tflite::GetTensorData<T>(values));
  return kTfLiteOk;
}

template <typename T>
TfLiteStatus UniqueDispatchIndex(TfLiteContext* context, const TfLiteTensor* input, TfLiteTensor* values,
                                 TfLiteTensor* indices) {
  if (indices->type == kTfLiteInt64) return UniqueCompute<T, int64_t>(context, input, values, indices);
  return UniqueCompute<T, int32_t>(context, input, values, indices);
}

TfLiteStatus UniqueEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* values = tflite::GetOutput(context, node, 0);
  TfLiteTensor* indices = tflite::GetOutput(context, node, 1);
  return DispatchType(
      UniqueTypes(), input->type,
      [&](auto t) { return UniqueDispatchIndex<decltype(t)>(context, input, values, indices); },
      [] { return kTfLiteError; });
}

// ---------------------------------------------------------------------------------------------
// WHERE(condition): the coordinates of the non-zero (true) elements, row-major, as an INT64
// [count, rank] tensor. Sized in Prepare when the condition is constant, else at run time.

template <typename T>
int64_t CountNonZero(const TfLiteTensor* t) {
  const T* data = tflite::GetTensorData<T>(t);
  const int64_t n = NumElements(t);
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += data[i] != T(0) ? 1 : 0;
  return count;
}

template <typename T>
void WriteCoordinates(const TfLiteTensor* t, int64_t* out) {
  const T* data = tflite::GetTensorData<T>(t);
  const Shape shape = ShapeOf(t);
  const int rank = static_cast<int>(shape.size());
  const int64_t n = NumElements(t);
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    if (data[i] != T(0)) {
      for (int d = 0; d < rank; ++d) *out++ = index[d];
    }
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

using WhereConditionTypes = TypeList<bool, float, int64_t, int32_t, int8_t, uint8_t, uint32_t>;

// fn(T()) with T the C++ type of the condition.
template <typename Fn>
auto DispatchCondition(const TfLiteTensor* t, Fn fn) {
  return DispatchType(WhereConditionTypes(), t->type, fn, [&] { return fn(uint32_t{}); });
}

TfLiteStatus WhereResize(TfLiteContext* context, const TfLiteTensor* condition, TfLiteTensor* output) {
  const int64_t count = DispatchCondition(condition, [&](auto tag) { return CountNonZero<decltype(tag)>(condition); });
  return ResizeOutput(context, output, {static_cast<int>(count), condition->dims->size});
}

TfLiteStatus WherePrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* condition;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&condition}, {&output}));
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, condition, "input 0", WhereConditionTypes()));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", kTfLiteInt64));
  if (condition->dims->size == 0) {
    TF_LITE_KERNEL_LOG(context, "input 0 is a scalar; WHERE needs rank 1 or more");
    return kTfLiteError;
  }
  if (!ValuesKnown(condition)) {
    tflite::SetTensorToDynamic(output);
    return kTfLiteOk;
  }
  return WhereResize(context, condition, output);
}

TfLiteStatus WhereEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* condition = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (IsDynamicTensor(output)) TF_LITE_ENSURE_OK(context, WhereResize(context, condition, output));
  DispatchCondition(condition, [&](auto tag) {
    WriteCoordinates<decltype(tag)>(condition, output->data.i64);
    return 0;
  });
  return kTfLiteOk;
}

}  // namespace

TS_REGISTER(ADD_N, AddNPrepare, AddNEval)
TS_REGISTER(ATAN2, Atan2Prepare, Atan2Eval)
TS_REGISTER(SIGN, SignPrepare, SignEval)
TS_REGISTER(BUCKETIZE, BucketizePrepare, BucketizeEval)
TS_REGISTER(DYNAMIC_UPDATE_SLICE, DynamicUpdateSlicePrepare, DynamicUpdateSliceEval)
TS_REGISTER(EMBEDDING_LOOKUP, EmbeddingLookupPrepare, EmbeddingLookupEval)
TS_REGISTER(MATRIX_DIAG, MatrixDiagPrepare, MatrixDiagEval)
TS_REGISTER(MATRIX_SET_DIAG, MatrixSetDiagPrepare, MatrixSetDiagEval)
TS_REGISTER(ONE_HOT, OneHotPrepare, OneHotEval)
TS_REGISTER(REVERSE_SEQUENCE, ReverseSequencePrepare, ReverseSequenceEval)
TS_REGISTER(UNIQUE, UniquePrepare, UniqueEval)
TS_REGISTER(WHERE, WherePrepare, WhereEval)

}  // namespace reference
}  // namespace touchstone
