// Checks that Touchstone's C API has TensorFlow Lite 2.14.1's binary layout.
//
// The layout rows and enum values come from
// shared/reference/tflite-2.14.1-abi.md and, for the stable-delegate and
// opaque structs, shared/reference/tflite-2.14.1-stable-delegate-abi.md (g++
// on x86-64 with TFLite 2.14.1's own headers). Offsets and sizes are only asserted on LP64 targets, where
// that table applies; enum values are asserted everywhere. The last tests
// exercise the helpers in common.cc.

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include <gtest/gtest.h>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/c/c_api_opaque.h"
#include "runtime/c/c_api_types.h"
#include "runtime/c/common.h"
#include "runtime/c/stable_delegate.h"

namespace {

#if defined(__x86_64__) || defined(__aarch64__)
#define TOUCHSTONE_LP64 1
#define REQUIRE_LP64() \
  do {                 \
  } while (0)
#else
#define TOUCHSTONE_LP64 0
#define REQUIRE_LP64() GTEST_SKIP() << "layout table is for LP64 targets"
#endif

// Offset and size of one field.
#define EXPECT_FIELD(type, field, offset, size)                                      \
  do {                                                                               \
    EXPECT_EQ(offsetof(type, field), size_t{offset}) << #type "::" #field " offset"; \
    EXPECT_EQ(sizeof(type::field), size_t{size}) << #type "::" #field " size";       \
  } while (0)

// ---- Struct layouts (one test per table in the reference) ----

TEST(AbiLayout, TfLiteIntArray) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteIntArray), 4u);
  EXPECT_FIELD(TfLiteIntArray, size, 0, 4);
  EXPECT_EQ(offsetof(TfLiteIntArray, data), 4u);  // flexible array
}

TEST(AbiLayout, TfLiteFloatArray) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteFloatArray), 4u);
  EXPECT_FIELD(TfLiteFloatArray, size, 0, 4);
  EXPECT_EQ(offsetof(TfLiteFloatArray, data), 4u);  // flexible array
}

TEST(AbiLayout, TfLiteQuantizationParams) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteQuantizationParams), 8u);
  EXPECT_FIELD(TfLiteQuantizationParams, scale, 0, 4);
  EXPECT_FIELD(TfLiteQuantizationParams, zero_point, 4, 4);
}

TEST(AbiLayout, TfLiteQuantization) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteQuantization), 16u);
  EXPECT_FIELD(TfLiteQuantization, type, 0, 4);
  EXPECT_FIELD(TfLiteQuantization, params, 8, 8);
}

TEST(AbiLayout, TfLiteAffineQuantization) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteAffineQuantization), 24u);
  EXPECT_FIELD(TfLiteAffineQuantization, scale, 0, 8);
  EXPECT_FIELD(TfLiteAffineQuantization, zero_point, 8, 8);
  EXPECT_FIELD(TfLiteAffineQuantization, quantized_dimension, 16, 4);
}

TEST(AbiLayout, TfLiteDimensionMetadata) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteDimensionMetadata), 24u);
  EXPECT_FIELD(TfLiteDimensionMetadata, format, 0, 4);
  EXPECT_FIELD(TfLiteDimensionMetadata, dense_size, 4, 4);
  EXPECT_FIELD(TfLiteDimensionMetadata, array_segments, 8, 8);
  EXPECT_FIELD(TfLiteDimensionMetadata, array_indices, 16, 8);
}

TEST(AbiLayout, TfLiteSparsity) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteSparsity), 32u);
  EXPECT_FIELD(TfLiteSparsity, traversal_order, 0, 8);
  EXPECT_FIELD(TfLiteSparsity, block_map, 8, 8);
  EXPECT_FIELD(TfLiteSparsity, dim_metadata, 16, 8);
  EXPECT_FIELD(TfLiteSparsity, dim_metadata_size, 24, 4);
}

TEST(AbiLayout, TfLiteTensor) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteTensor), 112u);
  EXPECT_FIELD(TfLiteTensor, type, 0, 4);
  EXPECT_FIELD(TfLiteTensor, data, 8, 8);
  EXPECT_FIELD(TfLiteTensor, dims, 16, 8);
  EXPECT_FIELD(TfLiteTensor, params, 24, 8);
  EXPECT_FIELD(TfLiteTensor, allocation_type, 32, 4);
  EXPECT_FIELD(TfLiteTensor, bytes, 40, 8);
  EXPECT_FIELD(TfLiteTensor, allocation, 48, 8);
  EXPECT_FIELD(TfLiteTensor, name, 56, 8);
  EXPECT_FIELD(TfLiteTensor, delegate, 64, 8);
  EXPECT_FIELD(TfLiteTensor, buffer_handle, 72, 4);
  EXPECT_FIELD(TfLiteTensor, data_is_stale, 76, 1);
  EXPECT_FIELD(TfLiteTensor, is_variable, 77, 1);
  EXPECT_FIELD(TfLiteTensor, quantization, 80, 16);
  EXPECT_FIELD(TfLiteTensor, sparsity, 96, 8);
  EXPECT_FIELD(TfLiteTensor, dims_signature, 104, 8);
}

TEST(AbiLayout, TfLiteEvalTensor) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteEvalTensor), 24u);
  EXPECT_FIELD(TfLiteEvalTensor, data, 0, 8);
  EXPECT_FIELD(TfLiteEvalTensor, dims, 8, 8);
  EXPECT_FIELD(TfLiteEvalTensor, type, 16, 4);
}

TEST(AbiLayout, TfLiteNode) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteNode), 80u);
  EXPECT_FIELD(TfLiteNode, inputs, 0, 8);
  EXPECT_FIELD(TfLiteNode, outputs, 8, 8);
  EXPECT_FIELD(TfLiteNode, intermediates, 16, 8);
  EXPECT_FIELD(TfLiteNode, temporaries, 24, 8);
  EXPECT_FIELD(TfLiteNode, user_data, 32, 8);
  EXPECT_FIELD(TfLiteNode, builtin_data, 40, 8);
  EXPECT_FIELD(TfLiteNode, custom_initial_data, 48, 8);
  EXPECT_FIELD(TfLiteNode, custom_initial_data_size, 56, 4);
  EXPECT_FIELD(TfLiteNode, delegate, 64, 8);
  EXPECT_FIELD(TfLiteNode, might_have_side_effect, 72, 1);
}

TEST(AbiLayout, TfLiteRegistration) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteRegistration), 88u);
  EXPECT_FIELD(TfLiteRegistration, init, 0, 8);
  EXPECT_FIELD(TfLiteRegistration, free, 8, 8);
  EXPECT_FIELD(TfLiteRegistration, prepare, 16, 8);
  EXPECT_FIELD(TfLiteRegistration, invoke, 24, 8);
  EXPECT_FIELD(TfLiteRegistration, profiling_string, 32, 8);
  EXPECT_FIELD(TfLiteRegistration, builtin_code, 40, 4);
  EXPECT_FIELD(TfLiteRegistration, custom_name, 48, 8);
  EXPECT_FIELD(TfLiteRegistration, version, 56, 4);
  EXPECT_FIELD(TfLiteRegistration, registration_external, 64, 8);
  EXPECT_FIELD(TfLiteRegistration, async_kernel, 72, 8);
  EXPECT_FIELD(TfLiteRegistration, inplace_operator, 80, 8);
}

TEST(AbiLayout, TfLiteExternalContext) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteExternalContext), 16u);
  EXPECT_FIELD(TfLiteExternalContext, type, 0, 4);
  EXPECT_FIELD(TfLiteExternalContext, Refresh, 8, 8);
}

TEST(AbiLayout, TfLiteContext) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteContext), 200u);
  EXPECT_FIELD(TfLiteContext, tensors_size, 0, 8);
  EXPECT_FIELD(TfLiteContext, GetExecutionPlan, 8, 8);
  EXPECT_FIELD(TfLiteContext, tensors, 16, 8);
  EXPECT_FIELD(TfLiteContext, impl_, 24, 8);
  EXPECT_FIELD(TfLiteContext, ResizeTensor, 32, 8);
  EXPECT_FIELD(TfLiteContext, ReportError, 40, 8);
  EXPECT_FIELD(TfLiteContext, AddTensors, 48, 8);
  EXPECT_FIELD(TfLiteContext, GetNodeAndRegistration, 56, 8);
  EXPECT_FIELD(TfLiteContext, ReplaceNodeSubsetsWithDelegateKernels, 64, 8);
  EXPECT_FIELD(TfLiteContext, recommended_num_threads, 72, 4);
  EXPECT_FIELD(TfLiteContext, GetExternalContext, 80, 8);
  EXPECT_FIELD(TfLiteContext, SetExternalContext, 88, 8);
  EXPECT_FIELD(TfLiteContext, allow_fp32_relax_to_fp16, 96, 1);
  EXPECT_FIELD(TfLiteContext, profiler, 104, 8);
  EXPECT_FIELD(TfLiteContext, AllocatePersistentBuffer, 112, 8);
  EXPECT_FIELD(TfLiteContext, AllocateBufferForEval, 120, 8);
  EXPECT_FIELD(TfLiteContext, RequestScratchBufferInArena, 128, 8);
  EXPECT_FIELD(TfLiteContext, GetScratchBuffer, 136, 8);
  EXPECT_FIELD(TfLiteContext, ResizeTensorExplicit, 144, 8);
  EXPECT_FIELD(TfLiteContext, PreviewDelegatePartitioning, 152, 8);
  EXPECT_FIELD(TfLiteContext, GetTensor, 160, 8);
  EXPECT_FIELD(TfLiteContext, GetEvalTensor, 168, 8);
  EXPECT_FIELD(TfLiteContext, GetModelMetadata, 176, 8);
  EXPECT_FIELD(TfLiteContext, AcquireSubgraphContext, 184, 8);
  EXPECT_FIELD(TfLiteContext, ReleaseSubgraphContext, 192, 8);
}

TEST(AbiLayout, TfLiteDelegate) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteDelegate), 56u);
  EXPECT_FIELD(TfLiteDelegate, data_, 0, 8);
  EXPECT_FIELD(TfLiteDelegate, Prepare, 8, 8);
  EXPECT_FIELD(TfLiteDelegate, CopyFromBufferHandle, 16, 8);
  EXPECT_FIELD(TfLiteDelegate, CopyToBufferHandle, 24, 8);
  EXPECT_FIELD(TfLiteDelegate, FreeBufferHandle, 32, 8);
  EXPECT_FIELD(TfLiteDelegate, flags, 40, 8);
  EXPECT_FIELD(TfLiteDelegate, opaque_delegate_builder, 48, 8);
}

TEST(AbiLayout, TfLiteDelegateParams) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteDelegateParams), 32u);
  EXPECT_FIELD(TfLiteDelegateParams, delegate, 0, 8);
  EXPECT_FIELD(TfLiteDelegateParams, nodes_to_replace, 8, 8);
  EXPECT_FIELD(TfLiteDelegateParams, input_tensors, 16, 8);
  EXPECT_FIELD(TfLiteDelegateParams, output_tensors, 24, 8);
}

TEST(AbiLayout, TfLiteCustomAllocation) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteCustomAllocation), 16u);
  EXPECT_FIELD(TfLiteCustomAllocation, data, 0, 8);
  EXPECT_FIELD(TfLiteCustomAllocation, bytes, 8, 8);
}

// ---- Enum values ----

TEST(AbiEnums, TfLiteStatus) {
  EXPECT_EQ(kTfLiteOk, 0);
  EXPECT_EQ(kTfLiteError, 1);
  EXPECT_EQ(kTfLiteDelegateError, 2);
  EXPECT_EQ(kTfLiteApplicationError, 3);
  EXPECT_EQ(kTfLiteDelegateDataNotFound, 4);
  EXPECT_EQ(kTfLiteDelegateDataWriteError, 5);
  EXPECT_EQ(kTfLiteDelegateDataReadError, 6);
  EXPECT_EQ(kTfLiteUnresolvedOps, 7);
  EXPECT_EQ(kTfLiteCancelled, 8);
}

TEST(AbiEnums, TfLiteType) {
  EXPECT_EQ(kTfLiteNoType, 0);
  EXPECT_EQ(kTfLiteFloat32, 1);
  EXPECT_EQ(kTfLiteInt32, 2);
  EXPECT_EQ(kTfLiteUInt8, 3);
  EXPECT_EQ(kTfLiteInt64, 4);
  EXPECT_EQ(kTfLiteString, 5);
  EXPECT_EQ(kTfLiteBool, 6);
  EXPECT_EQ(kTfLiteInt16, 7);
  EXPECT_EQ(kTfLiteComplex64, 8);
  EXPECT_EQ(kTfLiteInt8, 9);
  EXPECT_EQ(kTfLiteFloat16, 10);
  EXPECT_EQ(kTfLiteFloat64, 11);
  EXPECT_EQ(kTfLiteComplex128, 12);
  EXPECT_EQ(kTfLiteUInt64, 13);
  EXPECT_EQ(kTfLiteResource, 14);
  EXPECT_EQ(kTfLiteVariant, 15);
  EXPECT_EQ(kTfLiteUInt32, 16);
  EXPECT_EQ(kTfLiteUInt16, 17);
  EXPECT_EQ(kTfLiteInt4, 18);
}

TEST(AbiEnums, TfLiteAllocationType) {
  EXPECT_EQ(kTfLiteMemNone, 0);
  EXPECT_EQ(kTfLiteMmapRo, 1);
  EXPECT_EQ(kTfLiteArenaRw, 2);
  EXPECT_EQ(kTfLiteArenaRwPersistent, 3);
  EXPECT_EQ(kTfLiteDynamic, 4);
  EXPECT_EQ(kTfLitePersistentRo, 5);
  EXPECT_EQ(kTfLiteCustom, 6);
  EXPECT_EQ(kTfLiteVariantObject, 7);
}

TEST(AbiEnums, TfLiteQuantizationType) {
  EXPECT_EQ(kTfLiteNoQuantization, 0);
  EXPECT_EQ(kTfLiteAffineQuantization, 1);
}

TEST(AbiEnums, TfLiteDelegateFlags) {
  EXPECT_EQ(kTfLiteDelegateFlagsNone, 0);
  EXPECT_EQ(kTfLiteDelegateFlagsAllowDynamicTensors, 1);
  EXPECT_EQ(kTfLiteDelegateFlagsRequirePropagatedShapes, 2);
  EXPECT_EQ(kTfLiteDelegateFlagsPerOperatorProfiling, 4);
}
// ---- Further layout facts of TFLite 2.14.1 not in the table ----

TEST(AbiLayout, LegacyRegistrationsArePrefixes) {
  REQUIRE_LP64();
  // Each legacy struct must end before the first field it lacks.
  EXPECT_EQ(sizeof(TfLiteRegistration_V1), 64u);
  EXPECT_EQ(sizeof(TfLiteRegistration_V2), 72u);
  EXPECT_EQ(sizeof(TfLiteRegistration_V3), 80u);
  EXPECT_LE(sizeof(TfLiteRegistration_V1), offsetof(TfLiteRegistration, registration_external));
  EXPECT_LE(sizeof(TfLiteRegistration_V2), offsetof(TfLiteRegistration, async_kernel));
  EXPECT_LE(sizeof(TfLiteRegistration_V3), offsetof(TfLiteRegistration, inplace_operator));
  EXPECT_EQ(offsetof(TfLiteRegistration_V1, version), offsetof(TfLiteRegistration, version));
  EXPECT_EQ(offsetof(TfLiteRegistration_V2, registration_external),
            offsetof(TfLiteRegistration, registration_external));
  EXPECT_EQ(offsetof(TfLiteRegistration_V3, async_kernel), offsetof(TfLiteRegistration, async_kernel));
}

TEST(AbiLayout, OtherCommonTypes) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLitePtrUnion), 8u);
  EXPECT_EQ(sizeof(TfLiteComplex64), 8u);
  EXPECT_EQ(sizeof(TfLiteComplex128), 16u);
  EXPECT_EQ(sizeof(TfLiteFloat16), 2u);
  EXPECT_EQ(sizeof(TfLiteInPlaceOp), 8u);
  EXPECT_EQ(sizeof(TfLiteOpaqueDelegateParams), 40u);
  EXPECT_EQ(sizeof(TfLiteOpaqueDelegateBuilder), 48u);
  EXPECT_EQ(offsetof(TfLiteOpaqueDelegateBuilder, flags), 40u);
}

// ---- Stable-delegate and opaque structs (stable-delegate facts file, section 1) ----

TEST(AbiLayout, TfLiteStableDelegate) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteStableDelegate), 32u);
  EXPECT_EQ(alignof(TfLiteStableDelegate), 8u);
  EXPECT_FIELD(TfLiteStableDelegate, delegate_abi_version, 0, 8);
  EXPECT_FIELD(TfLiteStableDelegate, delegate_name, 8, 8);
  EXPECT_FIELD(TfLiteStableDelegate, delegate_version, 16, 8);
  EXPECT_FIELD(TfLiteStableDelegate, delegate_plugin, 24, 8);
  EXPECT_STREQ(TFL_STABLE_DELEGATE_ABI_VERSION, "1.0.0");
  EXPECT_STREQ(TFL_STABLE_DELEGATE_SYMBOL, "TFL_TheStableDelegate");
}

TEST(AbiLayout, TfLiteOpaqueDelegatePlugin) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteOpaqueDelegatePlugin), 24u);
  EXPECT_EQ(alignof(TfLiteOpaqueDelegatePlugin), 8u);
  EXPECT_FIELD(TfLiteOpaqueDelegatePlugin, create, 0, 8);
  EXPECT_FIELD(TfLiteOpaqueDelegatePlugin, destroy, 8, 8);
  EXPECT_FIELD(TfLiteOpaqueDelegatePlugin, get_delegate_errno, 16, 8);
}

TEST(AbiLayout, TfLiteOpaqueDelegateBuilder) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteOpaqueDelegateBuilder), 48u);
  EXPECT_EQ(alignof(TfLiteOpaqueDelegateBuilder), 8u);
  EXPECT_FIELD(TfLiteOpaqueDelegateBuilder, data, 0, 8);
  EXPECT_FIELD(TfLiteOpaqueDelegateBuilder, Prepare, 8, 8);
  EXPECT_FIELD(TfLiteOpaqueDelegateBuilder, CopyFromBufferHandle, 16, 8);
  EXPECT_FIELD(TfLiteOpaqueDelegateBuilder, CopyToBufferHandle, 24, 8);
  EXPECT_FIELD(TfLiteOpaqueDelegateBuilder, FreeBufferHandle, 32, 8);
  EXPECT_FIELD(TfLiteOpaqueDelegateBuilder, flags, 40, 8);
  EXPECT_EQ(sizeof(TfLiteBufferHandle), 4u);
}

TEST(AbiLayout, TfLiteRegistrationExternal) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteRegistrationExternal), 72u);
  EXPECT_EQ(alignof(TfLiteRegistrationExternal), 8u);
  EXPECT_FIELD(TfLiteRegistrationExternal, custom_name, 0, 8);
  EXPECT_FIELD(TfLiteRegistrationExternal, version, 8, 4);
  EXPECT_FIELD(TfLiteRegistrationExternal, init, 16, 8);
  EXPECT_FIELD(TfLiteRegistrationExternal, free, 24, 8);
  EXPECT_FIELD(TfLiteRegistrationExternal, prepare, 32, 8);
  EXPECT_FIELD(TfLiteRegistrationExternal, invoke, 40, 8);
  EXPECT_FIELD(TfLiteRegistrationExternal, async_kernel, 48, 8);
  EXPECT_FIELD(TfLiteRegistrationExternal, builtin_code, 56, 4);
  EXPECT_FIELD(TfLiteRegistrationExternal, node_index, 60, 4);
  EXPECT_FIELD(TfLiteRegistrationExternal, inplace_operator, 64, 8);
}

TEST(AbiLayout, TfLiteOpaqueDelegateParams) {
  REQUIRE_LP64();
  EXPECT_EQ(sizeof(TfLiteOpaqueDelegateParams), 40u);
  EXPECT_FIELD(TfLiteOpaqueDelegateParams, delegate, 0, 8);
  EXPECT_FIELD(TfLiteOpaqueDelegateParams, delegate_data, 8, 8);
  EXPECT_FIELD(TfLiteOpaqueDelegateParams, nodes_to_replace, 16, 8);
  EXPECT_FIELD(TfLiteOpaqueDelegateParams, input_tensors, 24, 8);
  EXPECT_FIELD(TfLiteOpaqueDelegateParams, output_tensors, 32, 8);
  EXPECT_EQ(sizeof(TfLiteDelegateParams), 32u);
  EXPECT_FIELD(TfLiteDelegateParams, delegate, 0, 8);
  EXPECT_FIELD(TfLiteDelegateParams, nodes_to_replace, 8, 8);
  EXPECT_FIELD(TfLiteDelegateParams, input_tensors, 16, 8);
  EXPECT_FIELD(TfLiteDelegateParams, output_tensors, 24, 8);
}

// What the opaque functions compiled into a delegate do (facts file 1. and 3.7).
TEST(OpaqueApi, RegistrationExternalCreateAndAccessors) {
  TfLiteRegistrationExternal* r = TfLiteRegistrationExternalCreate(kTfLiteBuiltinDelegate, "vendor", 3);
  EXPECT_EQ(TfLiteRegistrationExternalGetBuiltInCode(r), kTfLiteBuiltinDelegate);
  EXPECT_STREQ(TfLiteRegistrationExternalGetCustomName(r), "vendor");
  EXPECT_EQ(TfLiteRegistrationExternalGetVersion(r), 3);
  EXPECT_EQ(r->node_index, -1);
  EXPECT_EQ(r->init, nullptr);
  EXPECT_EQ(r->invoke, nullptr);
  EXPECT_EQ(r->inplace_operator, 0u);
  EXPECT_EQ(TfLiteRegistrationExternalGetVersion(nullptr), -1);
  TfLiteRegistrationExternalDelete(r);
}

TfLiteRegistration g_seen_registration;
TfLiteStatus RecordReplace(TfLiteContext*, TfLiteRegistration registration, const TfLiteIntArray*, TfLiteDelegate*) {
  g_seen_registration = registration;
  return kTfLiteOk;
}

TEST(OpaqueApi, ReplaceNodeSubsetsPassesAZeroedRegistrationWithTheExternalOnly) {
  TfLiteContext context;
  memset(&context, 0, sizeof(context));
  context.ReplaceNodeSubsetsWithDelegateKernels = RecordReplace;
  memset(&g_seen_registration, 0xab, sizeof(g_seen_registration));
  TfLiteRegistrationExternal* r = TfLiteRegistrationExternalCreate(kTfLiteBuiltinDelegate, "vendor", 1);
  TfLiteIntArray* nodes = TfLiteIntArrayCreate(0);
  ASSERT_EQ(TfLiteOpaqueContextReplaceNodeSubsetsWithDelegateKernels(reinterpret_cast<TfLiteOpaqueContext*>(&context),
                                                                     r, nodes, nullptr),
            kTfLiteOk);
  EXPECT_EQ(g_seen_registration.registration_external, r);
  EXPECT_EQ(g_seen_registration.init, nullptr);
  EXPECT_EQ(g_seen_registration.invoke, nullptr);
  EXPECT_EQ(g_seen_registration.custom_name, nullptr);
  EXPECT_EQ(g_seen_registration.builtin_code, 0);
  TfLiteIntArrayFree(nodes);
  TfLiteRegistrationExternalDelete(r);
}

TEST(OpaqueApi, NodeInputsOutOfRangeOrAbsentAreNull) {
  TfLiteTensor tensors[2];
  memset(tensors, 0, sizeof(tensors));
  TfLiteContext context;
  memset(&context, 0, sizeof(context));
  context.tensors = tensors;
  context.tensors_size = 2;
  TfLiteNode node;
  memset(&node, 0, sizeof(node));
  node.inputs = TfLiteIntArrayCreate(2);
  node.inputs->data[0] = 1;
  node.inputs->data[1] = kTfLiteOptionalTensor;
  node.outputs = TfLiteIntArrayCreate(0);
  auto* opaque_context = reinterpret_cast<TfLiteOpaqueContext*>(&context);
  auto* opaque_node = reinterpret_cast<TfLiteOpaqueNode*>(&node);
  EXPECT_EQ(TfLiteOpaqueNodeGetInput(opaque_context, opaque_node, 0),
            reinterpret_cast<TfLiteOpaqueTensor*>(&tensors[1]));
  EXPECT_EQ(TfLiteOpaqueNodeGetInput(opaque_context, opaque_node, 1), nullptr);
  EXPECT_EQ(TfLiteOpaqueNodeGetInput(opaque_context, opaque_node, 2), nullptr);
  EXPECT_EQ(TfLiteOpaqueNodeGetOutput(opaque_context, opaque_node, 0), nullptr);
  EXPECT_EQ(TfLiteOpaqueNodeNumberOfInputs(opaque_node), 2);
  TfLiteIntArrayFree(node.inputs);
  TfLiteIntArrayFree(node.outputs);
}

// ---- Other constants of the 2.14.1 headers ----

TEST(AbiEnums, CommonConstants) {
  EXPECT_EQ(kTfLiteOptionalTensor, -1);
  EXPECT_EQ(kTfLiteNullBufferHandle, -1);
  EXPECT_EQ(kTfLiteEigenContext, 0);
  EXPECT_EQ(kTfLiteCpuBackendContext, 3);
  EXPECT_EQ(kTfLiteMaxExternalContexts, 4);
  EXPECT_EQ(kTfLiteDimDense, 0);
  EXPECT_EQ(kTfLiteDimSparseCSR, 1);
  EXPECT_EQ(kTfLiteCustomAllocationFlagsSkipAlignCheck, 1);
  EXPECT_EQ(kTfLiteInplaceOpDataUnmodified, 1u);
  EXPECT_EQ(kTfLiteInplaceInputCanBeSharedWithCorrespondingOutput, 2u);
  EXPECT_EQ(kTfLiteInplaceOpInput0Shared, 4u);
  EXPECT_EQ(kTfLiteInplaceOpInput2Shared, 16u);
  EXPECT_EQ(kTfLiteMaxSharableOpInputs, 3);
}

TEST(AbiEnums, BuiltinOperators) {
  // Values are the schema's BuiltinOperator numbers.
  EXPECT_EQ(kTfLiteBuiltinAdd, 0);
  EXPECT_EQ(kTfLiteBuiltinConv2d, 3);
  EXPECT_EQ(kTfLiteBuiltinFullyConnected, 9);
  EXPECT_EQ(kTfLiteBuiltinCustom, 32);
  EXPECT_EQ(kTfLiteBuiltinDelegate, 51);
  EXPECT_EQ(kTfLiteBuiltinPlaceholderForGreaterOpCodes, 127);
  EXPECT_EQ(kTfLiteBuiltinGelu, 150);
  EXPECT_EQ(kTfLiteBuiltinRightShift, 161);
  EXPECT_EQ(kTfLiteBuiltinStablehloScatter, 190);
  EXPECT_EQ(kTfLiteBuiltinStablehloTranspose, 202);
  EXPECT_EQ(kTfLiteBuiltinReduceWindow, 205);
  EXPECT_EQ(kTfLiteBuiltinStablehloCase, 209);
}

TEST(AbiEnums, BuiltinOpData) {
  EXPECT_EQ(kTfLitePaddingSame, 1);
  EXPECT_EQ(kTfLitePaddingValid, 2);
  EXPECT_EQ(kTfLiteActRelu6, 3);
  EXPECT_EQ(kTfLiteActSigmoid, 6);
  EXPECT_EQ(kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8, 1);
  EXPECT_EQ(kTfLiteLSTMBasicKernel, 1);
  EXPECT_EQ(kTfLiteCombinerTypeSqrtn, 2);
  EXPECT_EQ(kTfLiteMirrorPaddingSymmetric, 2);
  EXPECT_EQ(TFLITE_RESHAPE_PARAMS_MAX_DIMENSION_COUNT, 8);
  EXPECT_EQ(sizeof(TfLiteReshapeParams), 36u);
  EXPECT_EQ(sizeof(TfLiteSqueezeParams), 36u);
}

// ---- common.cc behaviour ----

TEST(CommonHelpers, IntArray) {
  TfLiteIntArray* a = TfLiteIntArrayCreate(3);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->size, 3);
  a->data[0] = 1;
  a->data[1] = 2;
  a->data[2] = 3;
  const int expected[] = {1, 2, 3};
  EXPECT_EQ(TfLiteIntArrayEqualsArray(a, 3, expected), 1);
  EXPECT_EQ(TfLiteIntArrayEqualsArray(a, 2, expected), 0);
  EXPECT_EQ(TfLiteIntArrayEqualsArray(nullptr, 0, expected), 1);
  TfLiteIntArray* b = TfLiteIntArrayCopy(a);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(TfLiteIntArrayEqual(a, b), 1);
  b->data[2] = 4;
  EXPECT_EQ(TfLiteIntArrayEqual(a, b), 0);
  EXPECT_EQ(TfLiteIntArrayEqual(a, nullptr), 0);
  EXPECT_EQ(TfLiteIntArrayCopy(nullptr), nullptr);
  EXPECT_EQ(TfLiteIntArrayGetSizeInBytes(3), sizeof(int) * 4);
  TfLiteIntArrayFree(a);
  TfLiteIntArrayFree(b);

  TfLiteFloatArray* f = TfLiteFloatArrayCreate(2);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->size, 2);
  EXPECT_EQ(TfLiteFloatArrayGetSizeInBytes(2), 12);
  TfLiteFloatArrayFree(f);
}

TEST(CommonHelpers, TypeNames) {
  EXPECT_STREQ(TfLiteTypeGetName(kTfLiteFloat32), "FLOAT32");
  EXPECT_STREQ(TfLiteTypeGetName(kTfLiteInt4), "INT4");
  EXPECT_STREQ(TfLiteTypeGetName(kTfLiteNoType), "NOTYPE");
  EXPECT_STREQ(TfLiteTypeGetName(static_cast<TfLiteType>(31)), "Unknown type");
}

TEST(CommonHelpers, ReallocOnlyTouchesOwnedBuffers) {
  TfLiteTensor t{};
  t.allocation_type = kTfLiteDynamic;
  ASSERT_EQ(TfLiteTensorRealloc(8, &t), kTfLiteOk);
  ASSERT_NE(t.data.raw, nullptr);
  EXPECT_EQ(t.bytes, 8u);
  memcpy(t.data.raw, "abcdefgh", 8);
  ASSERT_EQ(TfLiteTensorRealloc(4096, &t), kTfLiteOk);
  EXPECT_EQ(t.bytes, 4096u);
  EXPECT_EQ(memcmp(t.data.raw, "abcdefgh", 8), 0);  // kept on growth
  TfLiteTensorDataFree(&t);
  EXPECT_EQ(t.data.raw, nullptr);

  TfLiteTensor ro{};
  ro.allocation_type = kTfLitePersistentRo;
  ASSERT_EQ(TfLiteTensorRealloc(16, &ro), kTfLiteOk);
  EXPECT_NE(ro.data.raw, nullptr);
  TfLiteTensorDataFree(&ro);

  char arena[8];
  TfLiteTensor a{};
  a.allocation_type = kTfLiteArenaRw;
  a.data.raw = arena;
  a.bytes = sizeof(arena);
  EXPECT_EQ(TfLiteTensorRealloc(64, &a), kTfLiteOk);
  EXPECT_EQ(a.data.raw, arena);  // not ours to resize
  EXPECT_EQ(a.bytes, sizeof(arena));

  EXPECT_EQ(TfLiteTensorRealloc(8, nullptr), kTfLiteError);
}

TEST(CommonHelpers, TensorFreeReleasesEverything) {
  TfLiteTensor t{};
  t.allocation_type = kTfLiteDynamic;
  ASSERT_EQ(TfLiteTensorRealloc(16, &t), kTfLiteOk);
  t.dims = TfLiteIntArrayCreate(2);
  t.dims_signature = TfLiteIntArrayCreate(2);
  auto* affine = static_cast<TfLiteAffineQuantization*>(malloc(sizeof(TfLiteAffineQuantization)));
  affine->scale = TfLiteFloatArrayCreate(1);
  affine->zero_point = TfLiteIntArrayCreate(1);
  affine->quantized_dimension = 0;
  t.quantization.type = kTfLiteAffineQuantization;
  t.quantization.params = affine;
  t.sparsity = static_cast<TfLiteSparsity*>(calloc(1, sizeof(TfLiteSparsity)));
  t.sparsity->traversal_order = TfLiteIntArrayCreate(2);
  TfLiteTensorFree(&t);
  EXPECT_EQ(t.data.raw, nullptr);
  EXPECT_EQ(t.dims, nullptr);
  EXPECT_EQ(t.dims_signature, nullptr);
  EXPECT_EQ(t.quantization.type, kTfLiteNoQuantization);
  EXPECT_EQ(t.quantization.params, nullptr);
  EXPECT_EQ(t.sparsity, nullptr);
}

TEST(CommonHelpers, TensorCopy) {
  float src_data[2] = {1.5f, -2.0f};
  float dst_data[2] = {0, 0};
  TfLiteTensor src{};
  src.type = kTfLiteFloat32;
  src.data.f = src_data;
  src.bytes = sizeof(src_data);
  src.dims = TfLiteIntArrayCreate(1);
  src.dims->data[0] = 2;
  TfLiteTensor dst{};
  dst.data.f = dst_data;
  dst.bytes = sizeof(dst_data);
  ASSERT_EQ(TfLiteTensorCopy(&src, &dst), kTfLiteOk);
  EXPECT_EQ(dst.type, kTfLiteFloat32);
  EXPECT_EQ(dst_data[1], -2.0f);
  EXPECT_EQ(TfLiteIntArrayEqual(src.dims, dst.dims), 1);
  dst.bytes = 4;
  EXPECT_EQ(TfLiteTensorCopy(&src, &dst), kTfLiteError);
  EXPECT_EQ(TfLiteTensorCopy(nullptr, &dst), kTfLiteOk);
  TfLiteIntArrayFree(src.dims);
  TfLiteIntArrayFree(dst.dims);
}

struct Counter : AbstractVariantData<Counter> {
  explicit Counter(int v) : value(v) {}
  Counter(const Counter&) = default;
  int value;
};

TEST(CommonHelpers, VariantTensors) {
  TfLiteTensor src{};
  src.type = kTfLiteVariant;
  ASSERT_EQ(TfLiteTensorVariantRealloc<Counter>(&src, 7), kTfLiteOk);
  EXPECT_EQ(src.allocation_type, kTfLiteVariantObject);
  TfLiteTensor dst{};
  dst.type = kTfLiteVariant;
  dst.allocation_type = kTfLiteVariantObject;
  ASSERT_EQ(TfLiteTensorCopy(&src, &dst), kTfLiteOk);
  auto* copy = static_cast<Counter*>(static_cast<VariantData*>(dst.data.data));
  EXPECT_EQ(copy->value, 7);
  EXPECT_NE(dst.data.data, src.data.data);
  TfLiteTensorDataFree(&src);
  TfLiteTensorDataFree(&dst);
  EXPECT_EQ(dst.data.data, nullptr);
}

TEST(CommonHelpers, Delegates) {
  TfLiteDelegate d = TfLiteDelegateCreate();
  EXPECT_EQ(d.data_, nullptr);
  EXPECT_EQ(d.Prepare, nullptr);
  EXPECT_EQ(d.flags, kTfLiteDelegateFlagsNone);
  EXPECT_EQ(d.opaque_delegate_builder, nullptr);

  int payload = 0;
  TfLiteOpaqueDelegateBuilder builder{};
  builder.data = &payload;
  builder.flags = kTfLiteDelegateFlagsAllowDynamicTensors;
  TfLiteOpaqueDelegate* opaque = TfLiteOpaqueDelegateCreate(&builder);
  ASSERT_NE(opaque, nullptr);
  EXPECT_EQ(TfLiteOpaqueDelegateGetData(opaque), &payload);
  TfLiteOpaqueDelegateDelete(opaque);
  EXPECT_EQ(TfLiteOpaqueDelegateCreate(nullptr), nullptr);
  TfLiteOpaqueDelegateDelete(nullptr);

  d.data_ = &payload;
  EXPECT_EQ(TfLiteOpaqueDelegateGetData(&d), &payload);
}

}  // namespace
