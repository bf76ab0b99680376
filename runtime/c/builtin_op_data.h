/* Touchstone C API: parameter structs of builtin ops (TfLiteNode's
 * builtin_data).
 *
 * Mirrors TensorFlow Lite 2.14.1's tensorflow/lite/core/c/builtin_op_data.h:
 * same names, same field order, same layout, so delegates built against
 * TFLite read them correctly (runtime/c/abi_test.cc checks the core structs).
 * Fields may only be appended. The section at the end holds params of ops
 * added after 2.14.1, taken from later TFLite/LiteRT; they change nothing
 * that existed in 2.14.1. */
#ifndef RUNTIME_C_BUILTIN_OP_DATA_H_
#define RUNTIME_C_BUILTIN_OP_DATA_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Params can't hold dynamic arrays, so these bound their fixed arrays. */
#define TFLITE_RESHAPE_PARAMS_MAX_DIMENSION_COUNT 8
#define TFLITE_STABLEHLO_SCATTER_PARAMS_MAX_DIMENSION_COUNT 8

/* Member of params structs that would otherwise be empty. */
typedef struct {
  char dummy;
} EmptyStructPlaceholder;

/* Padding of convolutions and pools. */
typedef enum {
  kTfLitePaddingUnknown = 0,
  kTfLitePaddingSame,
  kTfLitePaddingValid,
} TfLitePadding;

typedef enum {
  kTfLiteMirrorPaddingUnknown = 0,
  kTfLiteMirrorPaddingReflect,
  kTfLiteMirrorPaddingSymmetric,
} TfLiteMirrorPaddingMode;

/* Padding computed by kernels. */
typedef struct {
  int width;
  int height;
  int width_offset;
  int height_offset;
} TfLitePaddingValues;

typedef struct {
  TfLiteMirrorPaddingMode mode;
} TfLiteMirrorPaddingParams;

/* Activation fused into an op. */
typedef enum {
  kTfLiteActNone = 0,
  kTfLiteActRelu,
  kTfLiteActReluN1To1, /* min(max(-1, x), 1) */
  kTfLiteActRelu6,     /* min(max(0, x), 6) */
  kTfLiteActTanh,
  kTfLiteActSignBit,
  kTfLiteActSigmoid,
} TfLiteFusedActivation;

typedef struct {
  /* Version 1. */
  TfLitePadding padding;
  int stride_width;
  int stride_height;
  TfLiteFusedActivation activation;
  /* Version 2: dilation other than 1. */
  int dilation_width_factor;
  int dilation_height_factor;
} TfLiteConvParams;

typedef struct {
  TfLitePadding padding;
  int stride_width;
  int stride_height;
  int stride_depth;
  int dilation_width_factor;
  int dilation_height_factor;
  int dilation_depth_factor;
  TfLiteFusedActivation activation;
} TfLiteConv3DParams;

typedef TfLiteConv3DParams TfLiteConv3DTransposeParams;

typedef struct {
  TfLitePadding padding;
  int stride_width;
  int stride_height;
  int filter_width;
  int filter_height;
  TfLiteFusedActivation activation;
  struct {
    TfLitePaddingValues padding;
  } computed;
} TfLitePoolParams;

typedef struct {
  /* Version 1. */
  TfLitePadding padding;
  int stride_width;
  int stride_height;
  /* Redundant with the shapes and ignored by newer CPU kernels, but some
   * delegates still read it. */
  int depth_multiplier;
  TfLiteFusedActivation activation;
  /* Version 2. */
  int dilation_width_factor;
  int dilation_height_factor;
} TfLiteDepthwiseConvParams;

typedef struct {
  int rank;
  TfLiteFusedActivation activation;
  /* Version 4. */
  bool asymmetric_quantize_inputs;
} TfLiteSVDFParams;

typedef struct {
  TfLiteFusedActivation activation;
  /* Version 3. */
  bool asymmetric_quantize_inputs;
} TfLiteRNNParams;

typedef struct {
  bool time_major;
  TfLiteFusedActivation activation;
  /* Version 3. */
  bool asymmetric_quantize_inputs;
} TfLiteSequenceRNNParams;

typedef struct {
  bool time_major;
  TfLiteFusedActivation activation;
  bool merge_outputs;
  /* Version 3. */
  bool asymmetric_quantize_inputs;
} TfLiteBidirectionalSequenceRNNParams;

typedef enum {
  kTfLiteFullyConnectedWeightsFormatDefault = 0,
  kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8 = 1,
} TfLiteFullyConnectedWeightsFormat;

typedef struct {
  /* Version 1. */
  TfLiteFusedActivation activation;
  /* Version 2. */
  TfLiteFullyConnectedWeightsFormat weights_format;
  /* Version 5: output keeps the input's rank; all but the last dimension
   * match. */
  bool keep_num_dims;
  /* Version 7: hybrid ops quantize non-constant inputs asymmetrically. */
  bool asymmetric_quantize_inputs;
} TfLiteFullyConnectedParams;

typedef enum {
  kTfLiteLshProjectionUnknown = 0,
  kTfLiteLshProjectionSparse = 1,
  kTfLiteLshProjectionDense = 2,
} TfLiteLSHProjectionType;

typedef struct {
  TfLiteLSHProjectionType type;
} TfLiteLSHProjectionParams;

typedef struct {
  float beta;
} TfLiteSoftmaxParams;

typedef struct {
  int axis;
  TfLiteFusedActivation activation;
} TfLiteConcatenationParams;

typedef struct {
  TfLiteFusedActivation activation;
  /* Version 4. */
  bool pot_scale_int16;
} TfLiteAddParams;

typedef struct {
  EmptyStructPlaceholder placeholder;
} TfLiteSpaceToBatchNDParams;

typedef struct {
  EmptyStructPlaceholder placeholder;
} TfLiteBatchToSpaceNDParams;

typedef struct {
  bool adj_x;
  bool adj_y;
  /* Version 4: hybrid ops quantize non-constant inputs asymmetrically. */
  bool asymmetric_quantize_inputs;
} TfLiteBatchMatMulParams;

typedef struct {
  TfLiteFusedActivation activation;
} TfLiteMulParams;

typedef struct {
  TfLiteFusedActivation activation;
  /* Version 5. */
  bool pot_scale_int16;
} TfLiteSubParams;

typedef struct {
  TfLiteFusedActivation activation;
} TfLiteDivParams;

typedef struct {
  TfLiteFusedActivation activation;
} TfLiteL2NormParams;

typedef struct {
  int radius;
  float bias;
  float alpha;
  float beta;
} TfLiteLocalResponseNormParams;

typedef enum { kTfLiteLSTMFullKernel = 0, kTfLiteLSTMBasicKernel } TfLiteLSTMKernelType;

typedef struct {
  /* Version 1. */
  TfLiteFusedActivation activation;
  float cell_clip;
  float proj_clip;
  /* Version 2 (basic kernel needs version 2+). */
  TfLiteLSTMKernelType kernel_type;
  /* Version 4. */
  bool asymmetric_quantize_inputs;
} TfLiteLSTMParams;

typedef struct {
  TfLiteFusedActivation activation;
  float cell_clip;
  float proj_clip;
  /* First dimension is time (else batch). */
  bool time_major;
  /* Version 3. */
  bool asymmetric_quantize_inputs;
  /* Version 4. */
  bool diagonal_recurrent_tensors;
} TfLiteUnidirectionalSequenceLSTMParams;

typedef struct {
  /* Version 1. */
  TfLiteFusedActivation activation;
  float cell_clip;
  float proj_clip;
  /* Both directions go to the first output. */
  bool merge_outputs;
  /* Version 2. */
  bool time_major;
  /* Version 3. */
  bool asymmetric_quantize_inputs;
} TfLiteBidirectionalSequenceLSTMParams;

typedef struct {
  bool align_corners;
  /* TF2-style half-pixel sampling. */
  bool half_pixel_centers;
} TfLiteResizeBilinearParams;

typedef struct {
  bool align_corners;
  bool half_pixel_centers;
} TfLiteResizeNearestNeighborParams;

typedef struct {
  EmptyStructPlaceholder placeholder;
} TfLitePadParams;

typedef struct {
  EmptyStructPlaceholder placeholder;
} TfLitePadV2Params;

typedef struct {
  /* Only for old models; the shape now comes from the second input. */
  int32_t shape[TFLITE_RESHAPE_PARAMS_MAX_DIMENSION_COUNT];
  int num_dimensions;
} TfLiteReshapeParams;

typedef struct {
  int ngram_size;
  int max_skip_size;
  bool include_all_ngrams;
} TfLiteSkipGramParams;

typedef struct {
  int block_size;
} TfLiteSpaceToDepthParams;

typedef struct {
  int block_size;
} TfLiteDepthToSpaceParams;

typedef struct {
  TfLiteType in_data_type;
  TfLiteType out_data_type;
} TfLiteCastParams;

typedef enum {
  kTfLiteCombinerTypeSum = 0,
  kTfLiteCombinerTypeMean = 1,
  kTfLiteCombinerTypeSqrtn = 2,
} TfLiteCombinerType;

typedef struct {
  TfLiteCombinerType combiner;
} TfLiteEmbeddingLookupSparseParams;

typedef struct {
  int axis;
  int batch_dims;
} TfLiteGatherParams;

typedef struct {
  EmptyStructPlaceholder placeholder;
} TfLiteTransposeParams;

typedef struct {
  bool keep_dims;
} TfLiteReducerParams;

typedef struct {
  int num_splits;
} TfLiteSplitParams;

typedef struct {
  int num_splits;
} TfLiteSplitVParams;

typedef struct {
  /* At most 8 squeezed dimensions. */
  int32_t squeeze_dims[8];
  int num_squeeze_dims;
} TfLiteSqueezeParams;

typedef struct {
  int begin_mask;
  int end_mask;
  int ellipsis_mask;
  int new_axis_mask;
  int shrink_axis_mask;
  /* Version 8: `end` is an offset from `begin`. */
  bool offset;
} TfLiteStridedSliceParams;

typedef struct {
  TfLiteType output_type;
} TfLiteArgMaxParams;

typedef struct {
  TfLiteType output_type;
} TfLiteArgMinParams;

typedef struct {
  /* Version 1. */
  TfLitePadding padding;
  int stride_width;
  int stride_height;
  /* Version 4. */
  TfLiteFusedActivation activation;
} TfLiteTransposeConvParams;

typedef struct {
  bool validate_indices;
} TfLiteSparseToDenseParams;

typedef struct {
  TfLiteType out_type;
} TfLiteShapeParams;

typedef struct {
  EmptyStructPlaceholder placeholder;
} TfLiteRankParams;

typedef struct {
  /* Version 1. */
  float min;
  float max;
  int num_bits;
  /* Version 2. */
  bool narrow_range;
} TfLiteFakeQuantParams;

typedef struct {
  int values_count;
  int axis;
} TfLitePackParams;

typedef struct {
  int axis;
} TfLiteOneHotParams;

typedef struct {
  int num;
  int axis;
} TfLiteUnpackParams;

typedef struct {
  float alpha;
} TfLiteLeakyReluParams;

typedef struct {
  TfLiteType index_out_type;
} TfLiteUniqueParams;

typedef struct {
  int seq_dim;
  int batch_dim;
} TfLiteReverseSequenceParams;

typedef struct {
  EmptyStructPlaceholder placeholder;
} TfLiteMatrixDiagParams;

typedef struct {
  EmptyStructPlaceholder placeholder;
} TfLiteMatrixSetDiagParams;

typedef struct {
  int then_subgraph_index;
  int else_subgraph_index;
} TfLiteIfParams;

typedef struct {
  int cond_subgraph_index;
  int body_subgraph_index;
} TfLiteWhileParams;

typedef struct {
  bool exclusive;
  bool reverse;
} TfLiteCumsumParams;

typedef struct {
  int init_subgraph_index;
} TfLiteCallOnceParams;

typedef struct {
  int table_id;
  TfLiteType key_dtype;
  TfLiteType value_dtype;
} TfLiteHashtableParams;

typedef struct {
  const char* container;
  const char* shared_name;
} TfLiteVarHandleParams;

typedef struct {
  int seed;
  int seed2;
} TfLiteRandomParams;

typedef struct {
  int num_boundaries;
  /* Points into the model; not owned. */
  const float* boundaries;
} TfLiteBucketizeParams;

typedef struct {
  bool approximate;
} TfLiteGeluParams;

typedef struct {
  int64_t dimension;
} TfLiteStablehloConcatenateParams;

/* Attributes as in the StableHLO spec for scatter. */
typedef struct {
  bool indices_are_sorted;
  int64_t update_window_dims[TFLITE_STABLEHLO_SCATTER_PARAMS_MAX_DIMENSION_COUNT];
  int num_update_window_dims;
  int64_t inserted_window_dims[TFLITE_STABLEHLO_SCATTER_PARAMS_MAX_DIMENSION_COUNT];
  int num_inserted_window_dims;
  int64_t scatter_dims_to_operand_dims[TFLITE_STABLEHLO_SCATTER_PARAMS_MAX_DIMENSION_COUNT];
  int num_scatter_dims_to_operand_dims;
  int64_t index_vector_dim;
  bool unique_indices;
  int update_computation_subgraph_index;
} TfLiteStablehloScatterParams;

/* ---- Params of ops added after TFLite 2.14.1 (later TFLite / LiteRT). ---- */

#define TFLITE_STABLEHLO_GATHER_PARAMS_MAX_DIMENSION_COUNT 8
#define TFLITE_STABLEHLO_REDUCE_WINDOW_PARAMS_MAX_DIMENSION_COUNT 8
#define TFLITE_STABLEHLO_PAD_PARAMS_MAX_DIMENSION_COUNT 8
#define TFLITE_STABLEHLO_CASE_PARAMS_MAX_BRANCHES_COUNT 20

typedef enum {
  kTfLiteRngAlgorithmUnknown = 0,
  /* Chosen by the system for the device. */
  kTfLiteRngAlgorithmDefault,
  /* Philox (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3"). */
  kTfLiteRngAlgorithmPhilox,
  /* ThreeFry (same paper). */
  kTfLiteRngAlgorithmThreefry,
} TfLiteRngAlgorithm;

typedef struct {
  TfLiteRngAlgorithm algorithm;
} TfLiteStablehloRngBitGeneratorParams;

/* Attributes as in the StableHLO spec for gather. */
typedef struct {
  int64_t offset_dims[TFLITE_STABLEHLO_GATHER_PARAMS_MAX_DIMENSION_COUNT];
  int num_offset_dims;
  int64_t collapsed_slice_dims[TFLITE_STABLEHLO_GATHER_PARAMS_MAX_DIMENSION_COUNT];
  int num_collapsed_slice_dims;
  int64_t start_index_map[TFLITE_STABLEHLO_GATHER_PARAMS_MAX_DIMENSION_COUNT];
  int num_start_index_map;
  int64_t index_vector_dim;
  int64_t slice_sizes[TFLITE_STABLEHLO_GATHER_PARAMS_MAX_DIMENSION_COUNT];
  int num_slice_sizes;
  bool indices_are_sorted;
} TfLiteStablehloGatherParams;

/* Attributes as in the StableHLO spec for reduce_window; `padding` holds
 * (low, high) pairs. */
typedef struct {
  int64_t window_dimensions[TFLITE_STABLEHLO_REDUCE_WINDOW_PARAMS_MAX_DIMENSION_COUNT];
  int64_t window_strides[TFLITE_STABLEHLO_REDUCE_WINDOW_PARAMS_MAX_DIMENSION_COUNT];
  int64_t base_dilations[TFLITE_STABLEHLO_REDUCE_WINDOW_PARAMS_MAX_DIMENSION_COUNT];
  int64_t window_dilations[TFLITE_STABLEHLO_REDUCE_WINDOW_PARAMS_MAX_DIMENSION_COUNT];
  int64_t padding[2 * TFLITE_STABLEHLO_REDUCE_WINDOW_PARAMS_MAX_DIMENSION_COUNT];
  int body_subgraph_index;
} TfLiteStablehloReduceWindowParams;

/* Reduction of the (deprecated) REDUCE_WINDOW op. */
enum TfLiteReduceWindowFunction {
  TfLiteReduceWindowFunctionUnsupported,
  TfLiteReduceWindowFunctionAdd,
  TfLiteReduceWindowFunctionMul,
  TfLiteReduceWindowFunctionMin,
  TfLiteReduceWindowFunctionMax,
  TfLiteReduceWindowFunctionAll,
  TfLiteReduceWindowFunctionAny
};

typedef struct {
  enum TfLiteReduceWindowFunction reduce_function;
} TfLiteReduceWindowParams;

/* Attributes as in the StableHLO spec for pad. */
typedef struct {
  int64_t edge_padding_low[TFLITE_STABLEHLO_PAD_PARAMS_MAX_DIMENSION_COUNT];
  int64_t edge_padding_high[TFLITE_STABLEHLO_PAD_PARAMS_MAX_DIMENSION_COUNT];
  int64_t interior_padding[TFLITE_STABLEHLO_PAD_PARAMS_MAX_DIMENSION_COUNT];
} TfLiteStablehloPadParams;

/* A composite: decomposition subgraph plus flexbuffer attributes (points
 * into the model; not owned). */
typedef struct {
  const char* name;
  int32_t subgraph_index;
  int32_t version;
  const uint8_t* attributes;
  size_t attributes_size;
} TfLiteStablehloCompositeParams;

/* Attributes as in the StableHLO spec for case. */
typedef struct {
  int32_t branch_subgraph_indices[TFLITE_STABLEHLO_CASE_PARAMS_MAX_BRANCHES_COUNT];
  uint32_t num_branches;
} TfLiteStablehloCaseParams;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RUNTIME_C_BUILTIN_OP_DATA_H_ */
