// Definitions of the functions declared in runtime/c/common.h.
//
// Behaviour follows TensorFlow Lite 2.14.1's common.cc: arrays and owned
// tensor buffers are plain malloc/free memory, so a delegate built against
// TFLite may free or realloc what we hand it and vice versa.

#include "runtime/c/common.h"

#include <stdlib.h>
#include <string.h>

namespace {

// Extra bytes after every runtime-allocated tensor buffer, so vectorized
// kernels may read a little past the end (TFLite does the same when built
// with XNNPACK).
constexpr size_t kTensorBufferSlack = 16;

}  // namespace

extern "C" {

size_t TfLiteIntArrayGetSizeInBytes(int size) {
  static TfLiteIntArray dummy;
  size_t computed_size = sizeof(dummy) + sizeof(dummy.data[0]) * size;
#if defined(_MSC_VER)
  // data[1] is already counted in sizeof(dummy).
  computed_size -= sizeof(dummy.data[0]);
#endif
  return computed_size;
}

int TfLiteIntArrayEqual(const TfLiteIntArray* a, const TfLiteIntArray* b) {
  if (a == b) return 1;
  if (a == nullptr || b == nullptr) return 0;
  return TfLiteIntArrayEqualsArray(a, b->size, b->data);
}

int TfLiteIntArrayEqualsArray(const TfLiteIntArray* a, int b_size, const int b_data[]) {
  if (a == nullptr) return b_size == 0;
  if (a->size != b_size) return 0;
  for (int i = 0; i < a->size; ++i) {
    if (a->data[i] != b_data[i]) return 0;
  }
  return 1;
}

TfLiteIntArray* TfLiteIntArrayCreate(int size) {
  if (size < 0) return nullptr;
  TfLiteIntArray* ret = static_cast<TfLiteIntArray*>(malloc(TfLiteIntArrayGetSizeInBytes(size)));
  if (ret == nullptr) return nullptr;
  ret->size = size;
  return ret;
}

TfLiteIntArray* TfLiteIntArrayCopy(const TfLiteIntArray* src) {
  if (src == nullptr) return nullptr;
  TfLiteIntArray* ret = TfLiteIntArrayCreate(src->size);
  if (ret != nullptr && src->size > 0) {
    memcpy(ret->data, src->data, src->size * sizeof(int));
  }
  return ret;
}

void TfLiteIntArrayFree(TfLiteIntArray* a) { free(a); }

int TfLiteFloatArrayGetSizeInBytes(int size) {
  static TfLiteFloatArray dummy;
  int computed_size = static_cast<int>(sizeof(dummy) + sizeof(dummy.data[0]) * size);
#if defined(_MSC_VER)
  computed_size -= static_cast<int>(sizeof(dummy.data[0]));
#endif
  return computed_size;
}

TfLiteFloatArray* TfLiteFloatArrayCreate(int size) {
  if (size < 0) return nullptr;
  TfLiteFloatArray* ret =
      static_cast<TfLiteFloatArray*>(malloc(static_cast<size_t>(TfLiteFloatArrayGetSizeInBytes(size))));
  if (ret == nullptr) return nullptr;
  ret->size = size;
  return ret;
}

void TfLiteFloatArrayFree(TfLiteFloatArray* a) { free(a); }

const char* TfLiteTypeGetName(TfLiteType type) {
  switch (type) {
    case kTfLiteNoType:
      return "NOTYPE";
    case kTfLiteFloat32:
      return "FLOAT32";
    case kTfLiteUInt16:
      return "UINT16";
    case kTfLiteInt16:
      return "INT16";
    case kTfLiteInt32:
      return "INT32";
    case kTfLiteUInt32:
      return "UINT32";
    case kTfLiteUInt8:
      return "UINT8";
    case kTfLiteInt8:
      return "INT8";
    case kTfLiteInt64:
      return "INT64";
    case kTfLiteUInt64:
      return "UINT64";
    case kTfLiteBool:
      return "BOOL";
    case kTfLiteComplex64:
      return "COMPLEX64";
    case kTfLiteComplex128:
      return "COMPLEX128";
    case kTfLiteString:
      return "STRING";
    case kTfLiteFloat16:
      return "FLOAT16";
    case kTfLiteFloat64:
      return "FLOAT64";
    case kTfLiteResource:
      return "RESOURCE";
    case kTfLiteVariant:
      return "VARIANT";
    case kTfLiteInt4:
      return "INT4";
  }
  return "Unknown type";
}

void TfLiteTensorDataFree(TfLiteTensor* t) {
  if (t->allocation_type == kTfLiteVariantObject) {
    if (t->data.data != nullptr) {
      delete static_cast<VariantData*>(t->data.data);
    }
  } else if (t->allocation_type == kTfLiteDynamic || t->allocation_type == kTfLitePersistentRo) {
    free(t->data.raw);
  }
  t->data.raw = nullptr;
}

void TfLiteQuantizationFree(TfLiteQuantization* quantization) {
  if (quantization->type == kTfLiteAffineQuantization) {
    auto* q_params = static_cast<TfLiteAffineQuantization*>(quantization->params);
    if (q_params != nullptr) {
      if (q_params->scale != nullptr) {
        TfLiteFloatArrayFree(q_params->scale);
        q_params->scale = nullptr;
      }
      if (q_params->zero_point != nullptr) {
        TfLiteIntArrayFree(q_params->zero_point);
        q_params->zero_point = nullptr;
      }
      free(q_params);
    }
  }
  quantization->params = nullptr;
  quantization->type = kTfLiteNoQuantization;
}

void TfLiteSparsityFree(TfLiteSparsity* sparsity) {
  if (sparsity == nullptr) return;
  if (sparsity->traversal_order != nullptr) {
    TfLiteIntArrayFree(sparsity->traversal_order);
    sparsity->traversal_order = nullptr;
  }
  if (sparsity->block_map != nullptr) {
    TfLiteIntArrayFree(sparsity->block_map);
    sparsity->block_map = nullptr;
  }
  if (sparsity->dim_metadata != nullptr) {
    for (int i = 0; i < sparsity->dim_metadata_size; ++i) {
      TfLiteDimensionMetadata& metadata = sparsity->dim_metadata[i];
      if (metadata.format == kTfLiteDimSparseCSR) {
        TfLiteIntArrayFree(metadata.array_segments);
        metadata.array_segments = nullptr;
        TfLiteIntArrayFree(metadata.array_indices);
        metadata.array_indices = nullptr;
      }
    }
    free(sparsity->dim_metadata);
    sparsity->dim_metadata = nullptr;
  }
  free(sparsity);
}

void TfLiteTensorFree(TfLiteTensor* t) {
  TfLiteTensorDataFree(t);
  if (t->dims != nullptr) TfLiteIntArrayFree(t->dims);
  t->dims = nullptr;
  if (t->dims_signature != nullptr) {
    TfLiteIntArrayFree(const_cast<TfLiteIntArray*>(t->dims_signature));
  }
  t->dims_signature = nullptr;
  TfLiteQuantizationFree(&t->quantization);
  TfLiteSparsityFree(t->sparsity);
  t->sparsity = nullptr;
}

void TfLiteTensorReset(TfLiteType type, const char* name, TfLiteIntArray* dims, TfLiteQuantizationParams quantization,
                       char* buffer, size_t size, TfLiteAllocationType allocation_type, const void* allocation,
                       bool is_variable, TfLiteTensor* tensor) {
  TfLiteTensorFree(tensor);
  tensor->type = type;
  tensor->name = name;
  tensor->dims = dims;
  tensor->params = quantization;
  tensor->data.raw = buffer;
  tensor->bytes = size;
  tensor->allocation_type = allocation_type;
  tensor->allocation = allocation;
  tensor->is_variable = is_variable;
  tensor->quantization.type = kTfLiteNoQuantization;
  tensor->quantization.params = nullptr;
}

TfLiteStatus TfLiteTensorCopy(const TfLiteTensor* src, TfLiteTensor* dst) {
  if (src == nullptr || dst == nullptr) return kTfLiteOk;
  if (src->bytes != dst->bytes) return kTfLiteError;
  if (src == dst) return kTfLiteOk;

  dst->type = src->type;
  if (dst->dims != nullptr) TfLiteIntArrayFree(dst->dims);
  dst->dims = TfLiteIntArrayCopy(src->dims);
  if (src->allocation_type == kTfLiteVariantObject) {
    if (dst->allocation_type != kTfLiteVariantObject) return kTfLiteError;
    auto* dst_vd = static_cast<VariantData*>(dst->data.data);
    auto* src_vd = static_cast<VariantData*>(src->data.data);
    // CloneTo handles a NULL destination by allocating.
    dst->data.data = src_vd->CloneTo(dst_vd);
  } else if (src->bytes > 0) {
    memcpy(dst->data.raw, src->data.raw, src->bytes);
  }
  dst->buffer_handle = src->buffer_handle;
  dst->data_is_stale = src->data_is_stale;
  dst->delegate = src->delegate;
  return kTfLiteOk;
}

TfLiteStatus TfLiteTensorResizeMaybeCopy(size_t num_bytes, TfLiteTensor* tensor, bool preserve_data) {
  if (tensor == nullptr) return kTfLiteError;
  // Only buffers the tensor owns through malloc may be resized.
  if (tensor->allocation_type != kTfLiteDynamic && tensor->allocation_type != kTfLitePersistentRo) {
    return kTfLiteOk;
  }
  const size_t alloc_bytes = num_bytes + kTensorBufferSlack;
  if (tensor->data.data == nullptr) {
    tensor->data.data = malloc(alloc_bytes);
  } else if (num_bytes > tensor->bytes) {
    if (preserve_data) {
      void* grown = realloc(tensor->data.data, alloc_bytes);
      if (grown == nullptr) free(tensor->data.data);
      tensor->data.data = grown;
    } else {
      // Avoids copying data nobody needs.
      free(tensor->data.data);
      tensor->data.data = malloc(alloc_bytes);
    }
  }
  tensor->bytes = num_bytes;
  if (tensor->data.data == nullptr && num_bytes != 0) return kTfLiteError;
  return kTfLiteOk;
}

TfLiteStatus TfLiteTensorRealloc(size_t num_bytes, TfLiteTensor* tensor) {
  return TfLiteTensorResizeMaybeCopy(num_bytes, tensor, /*preserve_data=*/true);
}

TfLiteDelegate TfLiteDelegateCreate(void) { return TfLiteDelegate{}; }

TfLiteOpaqueDelegate* TfLiteOpaqueDelegateCreate(const TfLiteOpaqueDelegateBuilder* opaque_delegate_builder) {
  if (opaque_delegate_builder == nullptr) return nullptr;
  TfLiteDelegate* result = new TfLiteDelegate{};
  result->opaque_delegate_builder = new TfLiteOpaqueDelegateBuilder{};
  *result->opaque_delegate_builder = *opaque_delegate_builder;
  return reinterpret_cast<TfLiteOpaqueDelegate*>(result);
}

void TfLiteOpaqueDelegateDelete(TfLiteOpaqueDelegate* opaque_delegate) {
  if (opaque_delegate == nullptr) return;
  auto* delegate = reinterpret_cast<TfLiteDelegate*>(opaque_delegate);
  delete delegate->opaque_delegate_builder;
  delete delegate;
}

void* TfLiteOpaqueDelegateGetData(const TfLiteOpaqueDelegate* delegate) {
  if (delegate == nullptr) return nullptr;
  // Valid only inside the runtime, where the opaque type is TfLiteDelegate.
  const auto* tflite_delegate = reinterpret_cast<const TfLiteDelegate*>(delegate);
  if (tflite_delegate->opaque_delegate_builder == nullptr) {
    return tflite_delegate->data_;
  }
  return tflite_delegate->opaque_delegate_builder->data;
}

}  // extern "C"
