/* The opaque C API of TFLite 2.14.1 (tensorflow/lite/core/c/c_api_opaque.h and
 * registration_external.h), with the same names, signatures and meaning, and the
 * layout of TfLiteRegistrationExternal (common_internal.h).
 *
 * A stable delegate (TFL_TheStableDelegate) compiles these functions into its
 * own shared object, as TFLite's build does, so they may only use what the
 * classic structs give: context function pointers and plain fields. None of
 * them reads TfLiteContext::impl_. The host in turn makes that sufficient: it
 * sets registration_external on every registration it hands out
 * (shared/reference/tflite-2.14.1-stable-delegate-abi.md, 3.4). */
#ifndef RUNTIME_C_C_API_OPAQUE_H_
#define RUNTIME_C_C_API_OPAQUE_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 72 bytes, TFLite 2.14.1's layout. node_index -1: the callbacks are in this
 * struct; otherwise it stands for the classic registration of that node (made
 * by the host for a delegate to read; the delegate never reads node_index). */
struct TfLiteRegistrationExternal {
  const char* custom_name;
  int version;
  void* (*init)(TfLiteOpaqueContext* context, const char* buffer, size_t length);
  void (*free)(TfLiteOpaqueContext* context, void* buffer);
  TfLiteStatus (*prepare)(TfLiteOpaqueContext* context, TfLiteOpaqueNode* node);
  TfLiteStatus (*invoke)(TfLiteOpaqueContext* context, TfLiteOpaqueNode* node);
  struct TfLiteAsyncKernel* (*async_kernel)(TfLiteOpaqueContext* context, TfLiteOpaqueNode* node);
  int32_t builtin_code;
  int node_index;
  uint64_t inplace_operator;
};

/* Allocated with C++ new (the host frees a delegate's with delete). */
TfLiteRegistrationExternal* TfLiteRegistrationExternalCreate(int32_t builtin_code, const char* custom_name,
                                                             int version);
void TfLiteRegistrationExternalDelete(TfLiteRegistrationExternal* registration);
int32_t TfLiteRegistrationExternalGetBuiltInCode(const TfLiteRegistrationExternal* registration);
const char* TfLiteRegistrationExternalGetCustomName(const TfLiteRegistrationExternal* registration);
int TfLiteRegistrationExternalGetVersion(const TfLiteRegistrationExternal* registration);
void TfLiteRegistrationExternalSetInit(TfLiteRegistrationExternal* registration,
                                       void* (*init)(TfLiteOpaqueContext* context, const char* buffer, size_t length));
void TfLiteRegistrationExternalSetFree(TfLiteRegistrationExternal* registration,
                                       void (*free)(TfLiteOpaqueContext* context, void* data));
void TfLiteRegistrationExternalSetPrepare(TfLiteRegistrationExternal* registration,
                                          TfLiteStatus (*prepare)(TfLiteOpaqueContext* context,
                                                                  TfLiteOpaqueNode* node));
void TfLiteRegistrationExternalSetInvoke(TfLiteRegistrationExternal* registration,
                                         TfLiteStatus (*invoke)(TfLiteOpaqueContext* context, TfLiteOpaqueNode* node));

/* Tensors. */
TfLiteType TfLiteOpaqueTensorType(const TfLiteOpaqueTensor* opaque_tensor);
int32_t TfLiteOpaqueTensorNumDims(const TfLiteOpaqueTensor* opaque_tensor);
int32_t TfLiteOpaqueTensorDim(const TfLiteOpaqueTensor* opaque_tensor, int32_t dim_index);
size_t TfLiteOpaqueTensorByteSize(const TfLiteOpaqueTensor* opaque_tensor);
void* TfLiteOpaqueTensorData(const TfLiteOpaqueTensor* opaque_tensor);
const char* TfLiteOpaqueTensorName(const TfLiteOpaqueTensor* opaque_tensor);
TfLiteQuantizationParams TfLiteOpaqueTensorGetQuantizationParams(const TfLiteOpaqueTensor* opaque_tensor);
TfLiteStatus TfLiteOpaqueTensorCopyFromBuffer(TfLiteOpaqueTensor* opaque_tensor, const void* input_data,
                                              size_t input_data_size);
TfLiteStatus TfLiteOpaqueTensorCopyToBuffer(const TfLiteOpaqueTensor* opaque_tensor, void* output_data,
                                            size_t output_data_size);

/* Nodes. Get{Input,Output} return NULL for an index out of range or an
 * absent (negative) tensor. */
const TfLiteOpaqueTensor* TfLiteOpaqueNodeGetInput(const TfLiteOpaqueContext* opaque_context,
                                                   const TfLiteOpaqueNode* opaque_node, int index);
TfLiteOpaqueTensor* TfLiteOpaqueNodeGetOutput(TfLiteOpaqueContext* opaque_context, const TfLiteOpaqueNode* opaque_node,
                                              int index);
int TfLiteOpaqueNodeNumberOfInputs(const TfLiteOpaqueNode* opaque_node);
int TfLiteOpaqueNodeNumberOfOutputs(const TfLiteOpaqueNode* opaque_node);
void* TfLiteOpaqueNodeGetUserData(const TfLiteOpaqueNode* opaque_node);
void* TfLiteOpaqueNodeGetBuiltinData(const TfLiteOpaqueNode* opaque_node);
TfLiteStatus TfLiteOpaqueNodeGetCustomInitialData(const TfLiteOpaqueNode* opaque_node, const void** init_data,
                                                  int* size);
TfLiteStatus TfLiteOpaqueNodeInputs(const TfLiteOpaqueNode* opaque_node, const int** inputs, int* num_inputs);
TfLiteStatus TfLiteOpaqueNodeOutputs(const TfLiteOpaqueNode* opaque_node, const int** outputs, int* num_outputs);

/* The context (delegate-mode functions: valid while a delegate prepares). */
TfLiteStatus TfLiteOpaqueContextGetExecutionPlan(TfLiteOpaqueContext* opaque_context, TfLiteIntArray** execution_plan);
TfLiteStatus TfLiteOpaqueContextGetNodeAndRegistration(struct TfLiteOpaqueContext* opaque_context, int node_index,
                                                       TfLiteOpaqueNode** node,
                                                       TfLiteRegistrationExternal** registration_external);
TfLiteStatus TfLiteOpaqueContextReplaceNodeSubsetsWithDelegateKernels(struct TfLiteOpaqueContext* opaque_context,
                                                                      TfLiteRegistrationExternal* registration_external,
                                                                      const TfLiteIntArray* nodes_to_replace,
                                                                      TfLiteOpaqueDelegate* opaque_delegate);
TfLiteOpaqueTensor* TfLiteOpaqueContextGetOpaqueTensor(const TfLiteOpaqueContext* opaque_context, int index);
TfLiteStatus TfLiteOpaqueContextResizeTensor(TfLiteOpaqueContext* opaque_context, TfLiteOpaqueTensor* tensor,
                                             TfLiteIntArray* new_size);
void TfLiteOpaqueContextReportError(struct TfLiteOpaqueContext* opaque_context, const char* format, ...);
void TfLiteOpaqueContextReportErrorVa(struct TfLiteOpaqueContext* opaque_context, const char* format, va_list vlist);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif /* RUNTIME_C_C_API_OPAQUE_H_ */
