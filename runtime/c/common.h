/* Touchstone C API: the types that kernels and delegates use to talk to the
 * runtime (tensors, nodes, the context, registrations, delegates).
 *
 * Mirrors TensorFlow Lite 2.14.1's tensorflow/lite/core/c/common.h. Every
 * struct must keep TFLite 2.14.1's field order, sizes and offsets, and every
 * name must stay as in TFLite, so that a delegate compiled against TFLite's
 * headers runs against Touchstone unchanged; runtime/c/abi_test.cc checks
 * the layout. New fields may only ever be appended, as in TFLite. */
#ifndef RUNTIME_C_COMMON_H_
#define RUNTIME_C_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/c/c_api_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* External contexts known to the runtime; ops share them by type. */
typedef enum TfLiteExternalContextType {
  kTfLiteEigenContext = 0,
  kTfLiteGemmLowpContext = 1,
  kTfLiteEdgeTpuContext = 2,
  kTfLiteCpuBackendContext = 3,
  kTfLiteMaxExternalContexts = 4
} TfLiteExternalContextType;

struct TfLiteContext;
struct TfLiteDelegate;
struct TfLiteRegistration;
struct TfLiteOpaqueDelegateBuilder;

/* Opaque asynchronous kernel (TFLite declares it in core/async/c/types.h). */
typedef struct TfLiteAsyncKernel TfLiteAsyncKernel;

/* State outside the runtime that some ops share; the runtime only keeps a
 * list and calls Refresh when settings such as the thread count change. */
typedef struct TfLiteExternalContext {
  TfLiteExternalContextType type;
  TfLiteStatus (*Refresh)(struct TfLiteContext* context);
} TfLiteExternalContext;

/* Tensor index meaning "this optional input is absent". */
#define kTfLiteOptionalTensor (-1)

/* Fixed-size list of ints: shapes and tensor index lists. The array member
 * is spelled per compiler exactly as in TFLite so the layout agrees. */
typedef struct TfLiteIntArray {
  int size;
#if defined(_MSC_VER)
  int data[1];
#elif (!defined(__clang__) && defined(__GNUC__) && __GNUC__ == 6 && __GNUC_MINOR__ >= 1) || defined(HEXAGON) || \
    (defined(__clang__) && __clang_major__ == 7 && __clang_minor__ == 1)
  /* Works around a flexible-array bug in these compilers. */
  int data[0];
#else
  int data[];
#endif
} TfLiteIntArray;

/* Bytes needed for a TfLiteIntArray of `size` elements. */
size_t TfLiteIntArrayGetSizeInBytes(int size);

#ifndef TF_LITE_STATIC_MEMORY
/* New array with uninitialized entries; free with TfLiteIntArrayFree. */
TfLiteIntArray* TfLiteIntArrayCreate(int size);
#endif

/* 1 if both arrays hold the same values, else 0. */
int TfLiteIntArrayEqual(const TfLiteIntArray* a, const TfLiteIntArray* b);

/* 1 if `a` holds exactly b_data[0..b_size), else 0. */
int TfLiteIntArrayEqualsArray(const TfLiteIntArray* a, int b_size, const int b_data[]);

#ifndef TF_LITE_STATIC_MEMORY
/* Copy of `src` (NULL for NULL); free with TfLiteIntArrayFree. */
TfLiteIntArray* TfLiteIntArrayCopy(const TfLiteIntArray* src);

void TfLiteIntArrayFree(TfLiteIntArray* a);
#endif

/* Fixed-size list of floats, used for per-channel quantization scales. */
typedef struct TfLiteFloatArray {
  int size;
#if defined(_MSC_VER)
  float data[1];
#elif (!defined(__clang__) && defined(__GNUC__) && __GNUC__ == 6 && __GNUC_MINOR__ >= 1) || defined(HEXAGON) || \
    (defined(__clang__) && __clang_major__ == 7 && __clang_minor__ == 1)
  float data[0];
#else
  float data[];
#endif
} TfLiteFloatArray;

/* Bytes needed for a TfLiteFloatArray of `size` elements. */
int TfLiteFloatArrayGetSizeInBytes(int size);

#ifndef TF_LITE_STATIC_MEMORY
/* New array with uninitialized entries; free with TfLiteFloatArrayFree. */
TfLiteFloatArray* TfLiteFloatArrayCreate(int size);

void TfLiteFloatArrayFree(TfLiteFloatArray* a);
#endif

/* Error-checking macros. Reporting goes through TF_LITE_KERNEL_LOG so that
 * message strings can be compiled out with TF_LITE_STRIP_ERROR_STRINGS.
 * Like TFLite's, the logging macros are meant for C++ callers. */
#ifndef TF_LITE_STRIP_ERROR_STRINGS
#define TF_LITE_KERNEL_LOG(context, ...)            \
  do {                                              \
    (context)->ReportError((context), __VA_ARGS__); \
  } while (false)

#define TF_LITE_MAYBE_KERNEL_LOG(context, ...)        \
  do {                                                \
    if ((context) != nullptr) {                       \
      (context)->ReportError((context), __VA_ARGS__); \
    }                                                 \
  } while (false)
#else
#define ARGS_UNUSED(...) (void)sizeof(#__VA_ARGS__)
#define TF_LITE_KERNEL_LOG(context, ...) ARGS_UNUSED(__VA_ARGS__)
#define TF_LITE_MAYBE_KERNEL_LOG(context, ...) ARGS_UNUSED(__VA_ARGS__)
#endif

/* Return kTfLiteError (after logging the message) unless `value` holds. */
#define TF_LITE_ENSURE_MSG(context, value, ...)                \
  do {                                                         \
    if (!(value)) {                                            \
      TF_LITE_KERNEL_LOG((context), __FILE__ " " __VA_ARGS__); \
      return kTfLiteError;                                     \
    }                                                          \
  } while (0)

/* Return kTfLiteError (after logging where) unless `a` holds. */
#define TF_LITE_ENSURE(context, a)                                                     \
  do {                                                                                 \
    if (!(a)) {                                                                        \
      TF_LITE_KERNEL_LOG((context), "%s:%d %s was not true.", __FILE__, __LINE__, #a); \
      return kTfLiteError;                                                             \
    }                                                                                  \
  } while (0)

/* Return the status of `a` if it is not kTfLiteOk. */
#define TF_LITE_ENSURE_STATUS(a) \
  do {                           \
    const TfLiteStatus s = (a);  \
    if (s != kTfLiteOk) {        \
      return s;                  \
    }                            \
  } while (0)

/* Return kTfLiteError unless a == b (ints; both may be evaluated twice).
 * Use TF_LITE_ENSURE_TYPES_EQ for TfLiteType values. */
#define TF_LITE_ENSURE_EQ(context, a, b)                                                                \
  do {                                                                                                  \
    if ((a) != (b)) {                                                                                   \
      TF_LITE_KERNEL_LOG((context), "%s:%d %s != %s (%d != %d)", __FILE__, __LINE__, #a, #b, (a), (b)); \
      return kTfLiteError;                                                                              \
    }                                                                                                   \
  } while (0)

#define TF_LITE_ENSURE_TYPES_EQ(context, a, b)                                                                     \
  do {                                                                                                             \
    if ((a) != (b)) {                                                                                              \
      TF_LITE_KERNEL_LOG((context), "%s:%d %s != %s (%s != %s)", __FILE__, __LINE__, #a, #b, TfLiteTypeGetName(a), \
                         TfLiteTypeGetName(b));                                                                    \
      return kTfLiteError;                                                                                         \
    }                                                                                                              \
  } while (0)

#define TF_LITE_ENSURE_NEAR(context, a, b, epsilon)                                                \
  do {                                                                                             \
    auto delta = ((a) > (b)) ? ((a) - (b)) : ((b) - (a));                                          \
    if (delta > epsilon) {                                                                         \
      TF_LITE_KERNEL_LOG((context), "%s:%d %s not near %s (%f != %f)", __FILE__, __LINE__, #a, #b, \
                         static_cast<double>(a), static_cast<double>(b));                          \
      return kTfLiteError;                                                                         \
    }                                                                                              \
  } while (0)

#define TF_LITE_ENSURE_OK(context, status) \
  do {                                     \
    const TfLiteStatus s = (status);       \
    if ((s) != kTfLiteOk) {                \
      return s;                            \
    }                                      \
  } while (0)

/* Single-precision complex, laid out like C99 float _Complex. */
typedef struct TfLiteComplex64 {
  float re, im;
} TfLiteComplex64;

/* Double-precision complex, laid out like C99 double _Complex. */
typedef struct TfLiteComplex128 {
  double re, im;
} TfLiteComplex128;

/* IEEE half-precision bits. */
typedef struct TfLiteFloat16 {
  uint16_t data;
} TfLiteFloat16;

/* Name of a type for error messages, e.g. "FLOAT32". */
const char* TfLiteTypeGetName(TfLiteType type);

/* Kinds of quantization a tensor may carry. */
typedef enum TfLiteQuantizationType {
  kTfLiteNoQuantization = 0,
  /* params points to a TfLiteAffineQuantization. */
  kTfLiteAffineQuantization = 1,
} TfLiteQuantizationType;

/* A tensor's quantization; `params` is interpreted according to `type`. */
typedef struct TfLiteQuantization {
  TfLiteQuantizationType type;
  void* params;
} TfLiteQuantization;

/* Affine quantization, per tensor or per channel along quantized_dimension:
 *   real_value = scale * (quantized_value - zero_point) */
typedef struct TfLiteAffineQuantization {
  TfLiteFloatArray* scale;
  TfLiteIntArray* zero_point;
  int32_t quantized_dimension;
} TfLiteAffineQuantization;

/* A tensor's data pointer. Prefer `data`; the typed members are kept for
 * source compatibility. */
typedef union TfLitePtrUnion {
  int32_t* i32;
  uint32_t* u32;
  int64_t* i64;
  uint64_t* u64;
  float* f;
  TfLiteFloat16* f16;
  double* f64;
  char* raw;
  const char* raw_const;
  uint8_t* uint8;
  bool* b;
  int16_t* i16;
  uint16_t* ui16;
  TfLiteComplex64* c64;
  TfLiteComplex128* c128;
  int8_t* int8;
  void* data;
} TfLitePtrUnion;

/* Where a tensor's memory comes from:
 *  kTfLiteMmapRo            read-only, mapped from the model or external
 *  kTfLiteArenaRw           arena, valid only during eval
 *  kTfLiteArenaRwPersistent arena, kept across evals
 *  kTfLiteDynamic           malloc'd during eval (and string tensors)
 *  kTfLitePersistentRo      malloc'd and filled during prepare
 *  kTfLiteCustom            user-provided, see TfLiteCustomAllocation
 *  kTfLiteVariantObject     a C++ VariantData object (new/delete) */
typedef enum TfLiteAllocationType {
  kTfLiteMemNone = 0,
  kTfLiteMmapRo,
  kTfLiteArenaRw,
  kTfLiteArenaRwPersistent,
  kTfLiteDynamic,
  kTfLitePersistentRo,
  kTfLiteCustom,
  kTfLiteVariantObject,
} TfLiteAllocationType;

/* Delegate buffer handle; delegates use values >= 0. */
typedef int TfLiteBufferHandle;
enum {
  kTfLiteNullBufferHandle = -1,
};

/* Storage format of one dimension of a sparse tensor. */
typedef enum TfLiteDimensionType {
  kTfLiteDimDense = 0,
  kTfLiteDimSparseCSR,
} TfLiteDimensionType;

/* Encoding of one dimension of a sparse tensor. */
typedef struct TfLiteDimensionMetadata {
  TfLiteDimensionType format;
  int dense_size;
  TfLiteIntArray* array_segments;
  TfLiteIntArray* array_indices;
} TfLiteDimensionMetadata;

/* Sparse tensor encoding (see the TFLite schema's SparsityParameters). */
typedef struct TfLiteSparsity {
  TfLiteIntArray* traversal_order;
  TfLiteIntArray* block_map;
  TfLiteDimensionMetadata* dim_metadata;
  int dim_metadata_size;
} TfLiteSparsity;

/* User memory for a tensor, not owned by the runtime. `data` should be
 * 64-byte aligned. */
typedef struct TfLiteCustomAllocation {
  void* data;
  size_t bytes;
} TfLiteCustomAllocation;

/* Bit flags for setting a custom allocation. */
typedef enum TfLiteCustomAllocationFlags {
  kTfLiteCustomAllocationFlagsNone = 0,
  /* Do not check that data is aligned (may crash in Invoke). */
  kTfLiteCustomAllocationFlagsSkipAlignCheck = 1,
} TfLiteCustomAllocationFlags;

#ifndef TF_LITE_STATIC_MEMORY
/* A tensor: typed buffer plus shape and metadata. */
typedef struct TfLiteTensor {
  TfLiteType type;
  TfLitePtrUnion data;
  /* Shape; product of dims times element size equals `bytes`. */
  TfLiteIntArray* dims;
  /* Legacy quantization; see `quantization`. */
  TfLiteQuantizationParams params;
  TfLiteAllocationType allocation_type;
  size_t bytes;
  /* Opaque pointer to the allocation (e.g. the mapped model). */
  const void* allocation;
  /* NUL-terminated name. */
  const char* name;
  /* Delegate owning `buffer_handle`, if any. */
  struct TfLiteDelegate* delegate;
  /* Valid only when `delegate` is set. */
  TfLiteBufferHandle buffer_handle;
  /* Set by a delegate when its buffer is newer than `data`. */
  bool data_is_stale;
  bool is_variable;
  TfLiteQuantization quantization;
  /* NULL for dense tensors. */
  TfLiteSparsity* sparsity;
  /* Shape with -1 for unknown dimensions; NULL or empty when all known. */
  const TfLiteIntArray* dims_signature;
} TfLiteTensor;

/* A node (op instance) in the graph. */
typedef struct TfLiteNode {
  /* Tensor indices. */
  TfLiteIntArray* inputs;
  TfLiteIntArray* outputs;
  TfLiteIntArray* intermediates;
  /* Scratch tensors an op may request. */
  TfLiteIntArray* temporaries;
  /* What the registration's init returned. */
  void* user_data;
  /* Builtin params (a struct from builtin_op_data.h). */
  void* builtin_data;
  /* Custom op options from the model. */
  const void* custom_initial_data;
  int custom_initial_data_size;
  /* Set when the node was created by a delegate. */
  struct TfLiteDelegate* delegate;
  /* Whether the op may have side effects (e.g. is stateful). */
  bool might_have_side_effect;
} TfLiteNode;
#else  /* TF_LITE_STATIC_MEMORY */
/* Reduced tensor for microcontroller builds, ordered largest first. */
typedef struct TfLiteTensor {
  TfLiteQuantization quantization;
  TfLiteQuantizationParams params;
  TfLitePtrUnion data;
  TfLiteIntArray* dims;
  size_t bytes;
  TfLiteType type;
  TfLiteAllocationType allocation_type;
  bool is_variable;
} TfLiteTensor;

/* Reduced node for microcontroller builds. */
typedef struct TfLiteNode {
  TfLiteIntArray* inputs;
  TfLiteIntArray* outputs;
  TfLiteIntArray* intermediates;
  void* user_data;
  void* builtin_data;
  const void* custom_initial_data;
  int custom_initial_data_size;
} TfLiteNode;
#endif /* TF_LITE_STATIC_MEMORY */

/* Minimal tensor for kernels at eval time (used by TFLite Micro). */
typedef struct TfLiteEvalTensor {
  TfLitePtrUnion data;
  TfLiteIntArray* dims;
  TfLiteType type;
} TfLiteEvalTensor;

#ifndef TF_LITE_STATIC_MEMORY
/* Frees the tensor's data if the tensor owns it (kTfLiteDynamic,
 * kTfLitePersistentRo, kTfLiteVariantObject) and sets data to NULL. */
void TfLiteTensorDataFree(TfLiteTensor* t);

/* Frees quantization params and resets to kTfLiteNoQuantization. */
void TfLiteQuantizationFree(TfLiteQuantization* quantization);

/* Frees a sparsity struct and everything it owns. */
void TfLiteSparsityFree(TfLiteSparsity* sparsity);

/* Frees everything the tensor owns (data, dims, quantization, sparsity). */
void TfLiteTensorFree(TfLiteTensor* t);

/* Frees the tensor's contents, then sets the given fields. */
void TfLiteTensorReset(TfLiteType type, const char* name, TfLiteIntArray* dims, TfLiteQuantizationParams quantization,
                       char* buffer, size_t size, TfLiteAllocationType allocation_type, const void* allocation,
                       bool is_variable, TfLiteTensor* tensor);

/* Copies type, dims and data of `src` into `dst` (whose buffer must have the
 * same byte size), plus the delegate buffer fields. No-op returning
 * kTfLiteOk if either is NULL; kTfLiteError if sizes differ. */
TfLiteStatus TfLiteTensorCopy(const TfLiteTensor* src, TfLiteTensor* dst);

/* Resizes the buffer of a kTfLiteDynamic or kTfLitePersistentRo tensor to
 * `num_bytes`, keeping the old contents if `preserve_data`. Other tensors
 * are left alone (kTfLiteOk). kTfLiteError for NULL or out of memory. */
TfLiteStatus TfLiteTensorResizeMaybeCopy(size_t num_bytes, TfLiteTensor* tensor, bool preserve_data);

/* TfLiteTensorResizeMaybeCopy with preserve_data = true. */
TfLiteStatus TfLiteTensorRealloc(size_t num_bytes, TfLiteTensor* tensor);
#endif /* TF_LITE_STATIC_MEMORY */

/* One partition handed to a delegate kernel; stored in the delegate node's
 * builtin_data, so it must be trivially destructible. */
typedef struct TfLiteDelegateParams {
  struct TfLiteDelegate* delegate;
  TfLiteIntArray* nodes_to_replace;
  TfLiteIntArray* input_tensors;
  TfLiteIntArray* output_tensors;
} TfLiteDelegateParams;

/* Opaque-delegate counterpart of TfLiteDelegateParams. */
typedef struct TfLiteOpaqueDelegateParams {
  TfLiteOpaqueDelegate* delegate;
  void* delegate_data;
  TfLiteIntArray* nodes_to_replace;
  TfLiteIntArray* input_tensors;
  TfLiteIntArray* output_tensors;
} TfLiteOpaqueDelegateParams;

/* What an op or delegate kernel sees of the runtime: the tensors and
 * callbacks into the interpreter. */
typedef struct TfLiteContext {
  size_t tensors_size;

  /* Node indices in execution order. The runtime owns the array; a later
   * call invalidates it. */
  TfLiteStatus (*GetExecutionPlan)(struct TfLiteContext* context, TfLiteIntArray** execution_plan);

  /* `tensors_size` tensors. */
  TfLiteTensor* tensors;

  /* The runtime's own state. */
  void* impl_;

  /* Resizes a tensor; takes ownership of new_size. */
  TfLiteStatus (*ResizeTensor)(struct TfLiteContext*, TfLiteTensor* tensor, TfLiteIntArray* new_size);
  /* printf-style error report. */
  void (*ReportError)(struct TfLiteContext*, const char* msg, ...);

  /* Appends tensors; reports the first new index if the pointer is set. */
  TfLiteStatus (*AddTensors)(struct TfLiteContext*, int tensors_to_add, int* first_new_tensor_index);

  TfLiteStatus (*GetNodeAndRegistration)(struct TfLiteContext*, int node_index, TfLiteNode** node,
                                         struct TfLiteRegistration** registration);

  /* Replaces node subsets with delegate kernels; does not take ownership of
   * nodes_to_replace. */
  TfLiteStatus (*ReplaceNodeSubsetsWithDelegateKernels)(struct TfLiteContext*, struct TfLiteRegistration registration,
                                                        const TfLiteIntArray* nodes_to_replace,
                                                        struct TfLiteDelegate* delegate);

  /* Thread count recommended to kernels. */
  int recommended_num_threads;

  TfLiteExternalContext* (*GetExternalContext)(struct TfLiteContext*, TfLiteExternalContextType);
  /* Does not take ownership. */
  void (*SetExternalContext)(struct TfLiteContext*, TfLiteExternalContextType, TfLiteExternalContext*);

  /* Whether fp32 work may run in fp16. */
  bool allow_fp32_relax_to_fp16;

  /* Op-level profiler or NULL. */
  void* profiler;

  /* Buffer living as long as the interpreter; Init/Prepare only. */
  void* (*AllocatePersistentBuffer)(struct TfLiteContext* ctx, size_t bytes);

  /* Buffer freed after invoke; Invoke only. */
  TfLiteStatus (*AllocateBufferForEval)(struct TfLiteContext* ctx, size_t bytes, void** ptr);

  /* Plans a scratch buffer in the arena (Prepare); fetch it with
   * GetScratchBuffer during Eval. */
  TfLiteStatus (*RequestScratchBufferInArena)(struct TfLiteContext* ctx, size_t bytes, int* buffer_idx);
  void* (*GetScratchBuffer)(struct TfLiteContext* ctx, int buffer_idx);

  /* Like ResizeTensor but copies the shape. */
  TfLiteStatus (*ResizeTensorExplicit)(struct TfLiteContext* ctx, TfLiteTensor* tensor, int dims, const int* shape);

  /* Shows how nodes_to_replace would be partitioned. The context owns the
   * returned array until the next call or until the delegate's Prepare
   * returns. */
  TfLiteStatus (*PreviewDelegatePartitioning)(struct TfLiteContext* context, const TfLiteIntArray* nodes_to_replace,
                                              TfLiteDelegateParams** partition_params_array, int* num_partitions);

  TfLiteTensor* (*GetTensor)(const struct TfLiteContext* context, int tensor_idx);
  TfLiteEvalTensor* (*GetEvalTensor)(const struct TfLiteContext* context, int tensor_idx);

  /* Named metadata buffer from the model, valid for the interpreter's
   * lifetime. */
  TfLiteStatus (*GetModelMetadata)(const struct TfLiteContext* context, const char* name, const char** ptr,
                                   size_t* bytes);

  /* Switches to and returns the delegate context of another subgraph; pair
   * with ReleaseSubgraphContext. */
  TfLiteStatus (*AcquireSubgraphContext)(struct TfLiteContext* context, int subgraph_index,
                                         struct TfLiteContext** acquired_context);
  TfLiteStatus (*ReleaseSubgraphContext)(struct TfLiteContext* context, int subgraph_index);
} TfLiteContext;

/* ABI-stable form of TfLiteRegistration used by the opaque C API. */
typedef struct TfLiteRegistrationExternal TfLiteRegistrationExternal;

/* Bit flags for TfLiteRegistration::inplace_operator: which inputs an op
 * allows the runtime to share with outputs. The output never needs more
 * memory than the shared input. */
typedef enum {
  kTfLiteInplaceOpNone = 0,
  /* First output's data equals first input's (e.g. Reshape); the input may
   * be shared with several such ops. */
  kTfLiteInplaceOpDataUnmodified = 1,
  /* InputN may be shared with OutputN rather than with the first output. */
  kTfLiteInplaceInputCanBeSharedWithCorrespondingOutput = 2,
  /* InputN may be shared with an output. */
  kTfLiteInplaceOpInput0Shared = 4,
  kTfLiteInplaceOpInput1Shared = 8,
  kTfLiteInplaceOpInput2Shared = 16,
  /* Forces a 64-bit enum. */
  kTfLiteInplaceOpMaxValue = UINT64_MAX,
} TfLiteInPlaceOp;

/* Number of inputs that TfLiteInPlaceOp can mark as shareable. */
static const int kTfLiteMaxSharableOpInputs = 3;

/* Implementation of an op (builtin, custom or delegate kernel). */
typedef struct TfLiteRegistration {
  /* Called once per node. For builtins `buffer` is the params struct and
   * `length` 0; for custom ops it is the custom options. The result is
   * stored in node->user_data. */
  void* (*init)(TfLiteContext* context, const char* buffer, size_t length);

  /* Frees what init returned. */
  void (*free)(TfLiteContext* context, void* buffer);

  /* Called when input shapes change; may resize outputs. */
  TfLiteStatus (*prepare)(TfLiteContext* context, TfLiteNode* node);

  /* Runs the node. */
  TfLiteStatus (*invoke)(TfLiteContext* context, TfLiteNode* node);

  /* Optional label that splits this op's profiling entries. */
  const char* (*profiling_string)(const TfLiteContext* context, const TfLiteNode* node);

  /* Builtin code (a TfLiteBuiltinOperator), set by the binder. */
  int32_t builtin_code;

  /* Custom op name; NULL for builtins. */
  const char* custom_name;

  int version;

  /* The stable-API registration this one routes to, if any. */
  TfLiteRegistrationExternal* registration_external;

  /* Async kernel for delegate kernel nodes; NULL if unsupported. */
  struct TfLiteAsyncKernel* (*async_kernel)(TfLiteContext* context, TfLiteNode* node);

  /* TfLiteInPlaceOp bits. */
  uint64_t inplace_operator;
} TfLiteRegistration;

/* Older, shorter forms of TfLiteRegistration kept for binary compatibility;
 * each is a prefix of the current struct. Do not use in new code. */
typedef struct TfLiteRegistration_V3 {
  void* (*init)(TfLiteContext* context, const char* buffer, size_t length);
  void (*free)(TfLiteContext* context, void* buffer);
  TfLiteStatus (*prepare)(TfLiteContext* context, TfLiteNode* node);
  TfLiteStatus (*invoke)(TfLiteContext* context, TfLiteNode* node);
  const char* (*profiling_string)(const TfLiteContext* context, const TfLiteNode* node);
  int32_t builtin_code;
  const char* custom_name;
  int version;
  TfLiteRegistrationExternal* registration_external;
  struct TfLiteAsyncKernel* (*async_kernel)(TfLiteContext* context, TfLiteNode* node);
} TfLiteRegistration_V3;

typedef struct TfLiteRegistration_V2 {
  void* (*init)(TfLiteContext* context, const char* buffer, size_t length);
  void (*free)(TfLiteContext* context, void* buffer);
  TfLiteStatus (*prepare)(TfLiteContext* context, TfLiteNode* node);
  TfLiteStatus (*invoke)(TfLiteContext* context, TfLiteNode* node);
  const char* (*profiling_string)(const TfLiteContext* context, const TfLiteNode* node);
  int32_t builtin_code;
  const char* custom_name;
  int version;
  TfLiteRegistrationExternal* registration_external;
} TfLiteRegistration_V2;

typedef struct TfLiteRegistration_V1 {
  void* (*init)(TfLiteContext* context, const char* buffer, size_t length);
  void (*free)(TfLiteContext* context, void* buffer);
  TfLiteStatus (*prepare)(TfLiteContext* context, TfLiteNode* node);
  TfLiteStatus (*invoke)(TfLiteContext* context, TfLiteNode* node);
  const char* (*profiling_string)(const TfLiteContext* context, const TfLiteNode* node);
  int32_t builtin_code;
  const char* custom_name;
  int version;
} TfLiteRegistration_V1;

/* Bit flags for TfLiteDelegate::flags. */
typedef enum TfLiteDelegateFlags {
  kTfLiteDelegateFlagsNone = 0,
  /* The delegate handles dynamic-sized tensors (it marks them dynamic and
   * resizes them itself). */
  kTfLiteDelegateFlagsAllowDynamicTensors = 1,
  /* With dynamic tensors: the runtime propagates shapes through the original
   * ops before the delegate kernel's Prepare. */
  kTfLiteDelegateFlagsRequirePropagatedShapes = 2,
  /* The delegate reports per-operator profiling itself. */
  kTfLiteDelegateFlagsPerOperatorProfiling = 4
} TfLiteDelegateFlags;

/* A delegate: takes over parts of the graph. */
typedef struct TfLiteDelegate {
  /* Owned by the delegate. */
  void* data_;

  /* Called by ModifyGraphWithDelegate; usually inspects the plan and calls
   * ReplaceNodeSubsetsWithDelegateKernels. */
  TfLiteStatus (*Prepare)(TfLiteContext* context, struct TfLiteDelegate* delegate);

  /* Copies from the delegate buffer into tensor->data (may allocate per the
   * kTfLiteDynamic rules). */
  TfLiteStatus (*CopyFromBufferHandle)(TfLiteContext* context, struct TfLiteDelegate* delegate,
                                       TfLiteBufferHandle buffer_handle, TfLiteTensor* tensor);

  /* Copies tensor->data into the delegate buffer; may be NULL. */
  TfLiteStatus (*CopyToBufferHandle)(TfLiteContext* context, struct TfLiteDelegate* delegate,
                                     TfLiteBufferHandle buffer_handle, TfLiteTensor* tensor);

  /* Frees the handle only, not the resource behind it; may be NULL. */
  void (*FreeBufferHandle)(TfLiteContext* context, struct TfLiteDelegate* delegate, TfLiteBufferHandle* handle);

  /* TfLiteDelegateFlags bits. */
  int64_t flags;

  /* If set, takes precedence over the callbacks above (Prepare should then
   * be NULL). */
  struct TfLiteOpaqueDelegateBuilder* opaque_delegate_builder;
} TfLiteDelegate;

/* A delegate with every field zeroed. */
TfLiteDelegate TfLiteDelegateCreate(void);

/* Describes an opaque delegate; see TfLiteOpaqueDelegateCreate. Not ABI
 * stable: brace-initialize so later fields are zeroed. Fields mean the same
 * as in TfLiteDelegate, with `data` passed back to each callback. */
typedef struct TfLiteOpaqueDelegateBuilder {
  void* data;
  TfLiteStatus (*Prepare)(TfLiteOpaqueContext* context, TfLiteOpaqueDelegate* delegate, void* data);
  TfLiteStatus (*CopyFromBufferHandle)(TfLiteOpaqueContext* context, TfLiteOpaqueDelegate* delegate, void* data,
                                       TfLiteBufferHandle buffer_handle, TfLiteOpaqueTensor* tensor);
  TfLiteStatus (*CopyToBufferHandle)(TfLiteOpaqueContext* context, TfLiteOpaqueDelegate* delegate, void* data,
                                     TfLiteBufferHandle buffer_handle, TfLiteOpaqueTensor* tensor);
  void (*FreeBufferHandle)(TfLiteOpaqueContext* context, TfLiteOpaqueDelegate* delegate, void* data,
                           TfLiteBufferHandle* handle);
  int64_t flags;
} TfLiteOpaqueDelegateBuilder;

#ifndef TF_LITE_STATIC_MEMORY
/* New opaque delegate driven by a copy of *opaque_delegate_builder (NULL
 * for NULL). Free with TfLiteOpaqueDelegateDelete. */
TfLiteOpaqueDelegate* TfLiteOpaqueDelegateCreate(const TfLiteOpaqueDelegateBuilder* opaque_delegate_builder);

/* Frees a delegate from TfLiteOpaqueDelegateCreate; NULL is a no-op. */
void TfLiteOpaqueDelegateDelete(TfLiteOpaqueDelegate* delegate);
#endif

/* The builder's `data` for opaque delegates, else the delegate's data_;
 * NULL for NULL. */
void* TfLiteOpaqueDelegateGetData(const TfLiteOpaqueDelegate* delegate);

#ifdef __cplusplus
} /* extern "C" */

#include <new>
#include <utility>

/* Variant tensors (C++ only). A kTfLiteVariant tensor's data.data points to
 * a VariantData; its allocation_type is then kTfLiteVariantObject and the
 * runtime copies it with CloneTo and frees it with delete. Always convert
 * through VariantData* (static_cast) before storing in or reading from the
 * void* member. */
class VariantData {
 public:
  virtual ~VariantData() = default;
  /* Copy of *this, constructed in `maybe_alloc` (an object of the same
   * derived type, destroyed first) when given, else newly allocated. */
  virtual VariantData* CloneTo(VariantData* maybe_alloc) const = 0;
};

/* CRTP base that implements CloneTo with the derived copy constructor. */
template <typename ErasedDerived>
class AbstractVariantData : public VariantData {
 public:
  VariantData* CloneTo(VariantData* maybe_alloc) const override {
    if (maybe_alloc != nullptr) {
      auto* derived = static_cast<ErasedDerived*>(maybe_alloc);
      derived->~ErasedDerived();
      return new (derived) ErasedDerived(static_cast<ErasedDerived const&>(*this));
    }
    return new ErasedDerived(static_cast<ErasedDerived const&>(*this));
  }

 protected:
  AbstractVariantData() = default;
  AbstractVariantData(const AbstractVariantData&) = default;
  AbstractVariantData(AbstractVariantData&&) = delete;
};

/* Constructs a VariantType from args in the tensor's data, reusing the
 * existing object's storage (assumed to be the same type) if there is one. */
template <class VariantType, class... VariantArgs>
TfLiteStatus TfLiteTensorVariantRealloc(TfLiteTensor* t, VariantArgs&&... args) {
  if (t->type != kTfLiteVariant) return kTfLiteError;
  VariantType* new_vd;
  if (t->data.raw != nullptr) {
    auto* target_vd = static_cast<VariantData*>(t->data.data);
    target_vd->~VariantData();
    new_vd = new (t->data.raw) VariantType(std::forward<VariantArgs>(args)...);
  } else {
    new_vd = new VariantType(std::forward<VariantArgs>(args)...);
  }
  t->data.data = static_cast<VariantData*>(new_vd);
  t->allocation_type = kTfLiteVariantObject;
  return kTfLiteOk;
}

#endif /* __cplusplus */

#endif /* RUNTIME_C_COMMON_H_ */
