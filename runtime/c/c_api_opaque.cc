#include "runtime/c/c_api_opaque.h"

#include <cstdio>
#include <cstring>

namespace {

TfLiteContext* Classic(TfLiteOpaqueContext* context) { return reinterpret_cast<TfLiteContext*>(context); }
const TfLiteContext* Classic(const TfLiteOpaqueContext* context) {
  return reinterpret_cast<const TfLiteContext*>(context);
}
const TfLiteNode* Classic(const TfLiteOpaqueNode* node) { return reinterpret_cast<const TfLiteNode*>(node); }
const TfLiteTensor* Classic(const TfLiteOpaqueTensor* tensor) { return reinterpret_cast<const TfLiteTensor*>(tensor); }

// Tensor `t` of the context: through `tensors`, or GetTensor when the host keeps no array (as TFLite).
TfLiteTensor* TensorAt(const TfLiteContext* context, int t) {
  if (context->tensors != nullptr) return &context->tensors[t];
  return context->GetTensor != nullptr ? context->GetTensor(context, t) : nullptr;
}

TfLiteTensor* NodeTensor(const TfLiteContext* context, const TfLiteIntArray* list, int index) {
  if (list == nullptr || index < 0 || index >= list->size || list->data[index] < 0) return nullptr;
  return TensorAt(context, list->data[index]);
}

}  // namespace

extern "C" {

TfLiteRegistrationExternal* TfLiteRegistrationExternalCreate(int32_t builtin_code, const char* custom_name,
                                                             int version) {
  auto* registration = new TfLiteRegistrationExternal{};
  registration->custom_name = custom_name;
  registration->version = version;
  registration->builtin_code = builtin_code;
  registration->node_index = -1;
  return registration;
}

void TfLiteRegistrationExternalDelete(TfLiteRegistrationExternal* registration) { delete registration; }

int32_t TfLiteRegistrationExternalGetBuiltInCode(const TfLiteRegistrationExternal* registration) {
  return registration->builtin_code;
}

const char* TfLiteRegistrationExternalGetCustomName(const TfLiteRegistrationExternal* registration) {
  return registration->custom_name;
}

int TfLiteRegistrationExternalGetVersion(const TfLiteRegistrationExternal* registration) {
  return registration != nullptr ? registration->version : -1;
}

void TfLiteRegistrationExternalSetInit(TfLiteRegistrationExternal* registration,
                                       void* (*init)(TfLiteOpaqueContext* context, const char* buffer, size_t length)) {
  registration->init = init;
}

void TfLiteRegistrationExternalSetFree(TfLiteRegistrationExternal* registration,
                                       void (*free)(TfLiteOpaqueContext* context, void* data)) {
  registration->free = free;
}

void TfLiteRegistrationExternalSetPrepare(TfLiteRegistrationExternal* registration,
                                          TfLiteStatus (*prepare)(TfLiteOpaqueContext* context,
                                                                  TfLiteOpaqueNode* node)) {
  registration->prepare = prepare;
}

void TfLiteRegistrationExternalSetInvoke(TfLiteRegistrationExternal* registration,
                                         TfLiteStatus (*invoke)(TfLiteOpaqueContext* context, TfLiteOpaqueNode* node)) {
  registration->invoke = invoke;
}

TfLiteType TfLiteOpaqueTensorType(const TfLiteOpaqueTensor* opaque_tensor) { return Classic(opaque_tensor)->type; }

int32_t TfLiteOpaqueTensorNumDims(const TfLiteOpaqueTensor* opaque_tensor) {
  const TfLiteIntArray* dims = Classic(opaque_tensor)->dims;
  return dims != nullptr ? dims->size : -1;
}

int32_t TfLiteOpaqueTensorDim(const TfLiteOpaqueTensor* opaque_tensor, int32_t dim_index) {
  return Classic(opaque_tensor)->dims->data[dim_index];
}

size_t TfLiteOpaqueTensorByteSize(const TfLiteOpaqueTensor* opaque_tensor) { return Classic(opaque_tensor)->bytes; }

void* TfLiteOpaqueTensorData(const TfLiteOpaqueTensor* opaque_tensor) {
  return opaque_tensor != nullptr ? Classic(opaque_tensor)->data.data : nullptr;
}

const char* TfLiteOpaqueTensorName(const TfLiteOpaqueTensor* opaque_tensor) { return Classic(opaque_tensor)->name; }

TfLiteQuantizationParams TfLiteOpaqueTensorGetQuantizationParams(const TfLiteOpaqueTensor* opaque_tensor) {
  return Classic(opaque_tensor)->params;
}

TfLiteStatus TfLiteOpaqueTensorCopyFromBuffer(TfLiteOpaqueTensor* opaque_tensor, const void* input_data,
                                              size_t input_data_size) {
  auto* tensor = reinterpret_cast<TfLiteTensor*>(opaque_tensor);
  if (input_data_size != tensor->bytes) return kTfLiteError;
  if (input_data_size > 0) std::memcpy(tensor->data.raw, input_data, input_data_size);
  return kTfLiteOk;
}

TfLiteStatus TfLiteOpaqueTensorCopyToBuffer(const TfLiteOpaqueTensor* opaque_tensor, void* output_data,
                                            size_t output_data_size) {
  const TfLiteTensor* tensor = Classic(opaque_tensor);
  if (output_data_size != tensor->bytes) return kTfLiteError;
  if (output_data_size > 0) std::memcpy(output_data, tensor->data.raw, output_data_size);
  return kTfLiteOk;
}

const TfLiteOpaqueTensor* TfLiteOpaqueNodeGetInput(const TfLiteOpaqueContext* opaque_context,
                                                   const TfLiteOpaqueNode* opaque_node, int index) {
  return reinterpret_cast<const TfLiteOpaqueTensor*>(
      NodeTensor(Classic(opaque_context), Classic(opaque_node)->inputs, index));
}

TfLiteOpaqueTensor* TfLiteOpaqueNodeGetOutput(TfLiteOpaqueContext* opaque_context, const TfLiteOpaqueNode* opaque_node,
                                              int index) {
  return reinterpret_cast<TfLiteOpaqueTensor*>(
      NodeTensor(Classic(opaque_context), Classic(opaque_node)->outputs, index));
}

int TfLiteOpaqueNodeNumberOfInputs(const TfLiteOpaqueNode* opaque_node) { return Classic(opaque_node)->inputs->size; }

int TfLiteOpaqueNodeNumberOfOutputs(const TfLiteOpaqueNode* opaque_node) { return Classic(opaque_node)->outputs->size; }

void* TfLiteOpaqueNodeGetUserData(const TfLiteOpaqueNode* opaque_node) { return Classic(opaque_node)->user_data; }

void* TfLiteOpaqueNodeGetBuiltinData(const TfLiteOpaqueNode* opaque_node) { return Classic(opaque_node)->builtin_data; }

TfLiteStatus TfLiteOpaqueNodeGetCustomInitialData(const TfLiteOpaqueNode* opaque_node, const void** init_data,
                                                  int* size) {
  *init_data = Classic(opaque_node)->custom_initial_data;
  *size = Classic(opaque_node)->custom_initial_data_size;
  return kTfLiteOk;
}

TfLiteStatus TfLiteOpaqueNodeInputs(const TfLiteOpaqueNode* opaque_node, const int** inputs, int* num_inputs) {
  *inputs = Classic(opaque_node)->inputs->data;
  *num_inputs = Classic(opaque_node)->inputs->size;
  return kTfLiteOk;
}

TfLiteStatus TfLiteOpaqueNodeOutputs(const TfLiteOpaqueNode* opaque_node, const int** outputs, int* num_outputs) {
  *outputs = Classic(opaque_node)->outputs->data;
  *num_outputs = Classic(opaque_node)->outputs->size;
  return kTfLiteOk;
}

TfLiteStatus TfLiteOpaqueContextGetExecutionPlan(TfLiteOpaqueContext* opaque_context, TfLiteIntArray** execution_plan) {
  TfLiteContext* context = Classic(opaque_context);
  return context->GetExecutionPlan(context, execution_plan);
}

TfLiteStatus TfLiteOpaqueContextGetNodeAndRegistration(struct TfLiteOpaqueContext* opaque_context, int node_index,
                                                       TfLiteOpaqueNode** node,
                                                       TfLiteRegistrationExternal** registration_external) {
  TfLiteContext* context = Classic(opaque_context);
  TfLiteNode* classic_node = nullptr;
  TfLiteRegistration* registration = nullptr;
  const TfLiteStatus status = context->GetNodeAndRegistration(context, node_index, &classic_node, &registration);
  if (status != kTfLiteOk) return status;
  *node = reinterpret_cast<TfLiteOpaqueNode*>(classic_node);
  // TFLite would make a wrapper through its Subgraph here; this host always sets one.
  if (registration->registration_external == nullptr) return kTfLiteError;
  *registration_external = registration->registration_external;
  return kTfLiteOk;
}

TfLiteStatus TfLiteOpaqueContextReplaceNodeSubsetsWithDelegateKernels(struct TfLiteOpaqueContext* opaque_context,
                                                                      TfLiteRegistrationExternal* registration_external,
                                                                      const TfLiteIntArray* nodes_to_replace,
                                                                      TfLiteOpaqueDelegate* opaque_delegate) {
  TfLiteContext* context = Classic(opaque_context);
  // As TFLite: a zeroed classic registration whose only field is the external one, by value.
  TfLiteRegistration registration;
  std::memset(&registration, 0, sizeof(registration));
  registration.registration_external = registration_external;
  return context->ReplaceNodeSubsetsWithDelegateKernels(context, registration, nodes_to_replace,
                                                        reinterpret_cast<TfLiteDelegate*>(opaque_delegate));
}

TfLiteOpaqueTensor* TfLiteOpaqueContextGetOpaqueTensor(const TfLiteOpaqueContext* opaque_context, int index) {
  return reinterpret_cast<TfLiteOpaqueTensor*>(TensorAt(Classic(opaque_context), index));
}

TfLiteStatus TfLiteOpaqueContextResizeTensor(TfLiteOpaqueContext* opaque_context, TfLiteOpaqueTensor* tensor,
                                             TfLiteIntArray* new_size) {
  TfLiteContext* context = Classic(opaque_context);
  return context->ResizeTensor(context, reinterpret_cast<TfLiteTensor*>(tensor), new_size);
}

void TfLiteOpaqueContextReportErrorVa(struct TfLiteOpaqueContext* opaque_context, const char* format, va_list vlist) {
  TfLiteContext* context = Classic(opaque_context);
  char text[1024];
  std::vsnprintf(text, sizeof(text), format, vlist);
  context->ReportError(context, "%s", text);
}

void TfLiteOpaqueContextReportError(struct TfLiteOpaqueContext* opaque_context, const char* format, ...) {
  va_list args;
  va_start(args, format);
  TfLiteOpaqueContextReportErrorVa(opaque_context, format, args);
  va_end(args);
}

}  // extern "C"
