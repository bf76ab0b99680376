#include "runtime/control_flow.h"

#include <cstring>
#include <string>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace {

// A tensor's type, shape and bytes, carried between subgraphs.
struct Value {
  TfLiteType type = kTfLiteNoType;
  std::vector<int> dims;
  std::vector<uint8_t> bytes;
};

// Copies a tensor's type, shape and bytes into existing storage (reusing its capacity); a tensor
// without a buffer gives zero bytes of its size.
void CopyValue(const TfLiteTensor* t, TfLiteType* type, std::vector<int>* dims, std::vector<uint8_t>* bytes) {
  *type = t->type;
  dims->assign(t->dims->data, t->dims->data + t->dims->size);
  if (t->data.raw != nullptr && t->bytes > 0) {
    bytes->assign(t->data.raw, t->data.raw + t->bytes);
  } else {
    bytes->assign(t->bytes, 0);
  }
}

Value ValueOf(const TfLiteTensor* t) {
  Value v;
  CopyValue(t, &v.type, &v.dims, &v.bytes);
  return v;
}

Subgraph* Self(TfLiteContext* context) { return static_cast<Subgraph*>(context->impl_); }

// The subgraph an op calls, or null (with an error reported) when the index is unusable.
Subgraph* Callee(TfLiteContext* context, int index, const char* role) {
  Subgraph* self = Self(context);
  Interpreter* interpreter = self->interpreter();
  if (index < 0 || index >= static_cast<int>(interpreter->subgraphs_size())) {
    TF_LITE_KERNEL_LOG(context, "%s subgraph index %d is out of range (the model has %d subgraphs)", role, index,
                       static_cast<int>(interpreter->subgraphs_size()));
    return nullptr;
  }
  if (index == self->index()) {
    TF_LITE_KERNEL_LOG(context, "%s subgraph %d is the calling subgraph itself", role, index);
    return nullptr;
  }
  return interpreter->subgraph(index);
}

// Runs `callee` on `inputs` and returns its outputs. Re-allocates the callee when shapes change.
TfLiteStatus Call(TfLiteContext* context, Subgraph* callee, const std::vector<Value>& inputs,
                  std::vector<Value>* outputs) {
  if (callee->invoking()) {
    TF_LITE_KERNEL_LOG(context, "subgraph %d is called recursively", callee->index());
    return kTfLiteError;
  }
  if (callee->inputs().size() != inputs.size()) {
    TF_LITE_KERNEL_LOG(context, "subgraph %d takes %d inputs, given %d", callee->index(),
                       static_cast<int>(callee->inputs().size()), static_cast<int>(inputs.size()));
    return kTfLiteError;
  }
  bool reallocate = !callee->tensors_allocated();
  for (size_t i = 0; i < inputs.size(); ++i) {
    TfLiteTensor* t = callee->tensor(callee->inputs()[i]);
    if (t->type != inputs[i].type) {
      TF_LITE_KERNEL_LOG(context, "subgraph %d input %d has type %s, given %s", callee->index(), static_cast<int>(i),
                         TfLiteTypeGetName(t->type), TfLiteTypeGetName(inputs[i].type));
      return kTfLiteError;
    }
    const std::vector<int> dims(t->dims->data, t->dims->data + t->dims->size);
    if (dims != inputs[i].dims) {
      Status s = callee->ResizeInputTensor(callee->inputs()[i], inputs[i].dims);
      if (!s.ok()) {
        TF_LITE_KERNEL_LOG(context, "%s", s.message().c_str());
        return kTfLiteError;
      }
      reallocate = true;
    }
  }
  if (reallocate) {
    Status s = callee->AllocateTensors();
    if (!s.ok()) {
      TF_LITE_KERNEL_LOG(context, "%s", s.message().c_str());
      return kTfLiteError;
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    TfLiteTensor* t = callee->tensor(callee->inputs()[i]);
    if (!inputs[i].bytes.empty() && t->data.raw != nullptr && t->bytes == inputs[i].bytes.size()) {
      std::memcpy(t->data.raw, inputs[i].bytes.data(), t->bytes);
    }
  }
  Status s = callee->Invoke();
  if (!s.ok()) {
    TF_LITE_KERNEL_LOG(context, "%s", s.message().c_str());
    return kTfLiteError;
  }
  outputs->clear();
  for (int index : callee->outputs()) outputs->push_back(ValueOf(callee->tensor(index)));
  return kTfLiteOk;
}

// Sizes a node output to a value of `type`, `dims` and `bytes` and copies it in (outputs of
// control-flow ops are dynamic).
TfLiteStatus WriteOutput(TfLiteContext* context, TfLiteTensor* output, TfLiteType type, const std::vector<int>& dims,
                         const std::vector<uint8_t>& bytes) {
  if (output->type != type) {
    TF_LITE_KERNEL_LOG(context, "output has type %s but the subgraph produced %s", TfLiteTypeGetName(output->type),
                       TfLiteTypeGetName(type));
    return kTfLiteError;
  }
  if (!DynamicTensorHasShape(output, static_cast<int>(dims.size()), dims.data())) {
    TfLiteIntArray* new_dims = TfLiteIntArrayCreate(static_cast<int>(dims.size()));
    for (size_t d = 0; d < dims.size(); ++d) new_dims->data[d] = dims[d];
    TF_LITE_ENSURE_OK(context, context->ResizeTensor(context, output, new_dims));
  }
  if (output->bytes != bytes.size()) {
    TF_LITE_KERNEL_LOG(context, "output needs %d bytes, the subgraph produced %d", static_cast<int>(output->bytes),
                       static_cast<int>(bytes.size()));
    return kTfLiteError;
  }
  if (!bytes.empty()) std::memcpy(output->data.raw, bytes.data(), bytes.size());
  return kTfLiteOk;
}

TfLiteStatus WriteOutput(TfLiteContext* context, TfLiteTensor* output, const Value& value) {
  return WriteOutput(context, output, value.type, value.dims, value.bytes);
}

TfLiteStatus SetOutputsDynamic(TfLiteContext* context, TfLiteNode* node) {
  for (int i = 0; i < tflite::NumOutputs(node); ++i) {
    TfLiteTensor* output;
    TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, i, &output));
    tflite::SetTensorToDynamic(output);
  }
  return kTfLiteOk;
}

std::vector<Value> NodeInputs(TfLiteContext* context, TfLiteNode* node, int first) {
  std::vector<Value> values;
  for (int i = first; i < tflite::NumInputs(node); ++i) values.push_back(ValueOf(tflite::GetInput(context, node, i)));
  return values;
}

// ---- WHILE ----

TfLiteStatus WhilePrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto* params = static_cast<const TfLiteWhileParams*>(node->builtin_data);
  TF_LITE_ENSURE(context, params != nullptr);
  Subgraph* cond = Callee(context, params->cond_subgraph_index, "WHILE cond");
  Subgraph* body = Callee(context, params->body_subgraph_index, "WHILE body");
  if (cond == nullptr || body == nullptr) return kTfLiteError;
  const size_t n = static_cast<size_t>(tflite::NumInputs(node));
  if (static_cast<size_t>(tflite::NumOutputs(node)) != n || cond->inputs().size() != n || body->inputs().size() != n ||
      body->outputs().size() != n || cond->outputs().size() != 1) {
    TF_LITE_KERNEL_LOG(context,
                       "WHILE has %d inputs and %d outputs; cond takes %d and gives %d; body takes %d and "
                       "gives %d (expected equal counts and one cond output)",
                       tflite::NumInputs(node), tflite::NumOutputs(node), static_cast<int>(cond->inputs().size()),
                       static_cast<int>(cond->outputs().size()), static_cast<int>(body->inputs().size()),
                       static_cast<int>(body->outputs().size()));
    return kTfLiteError;
  }
  const TfLiteTensor* cond_output = cond->tensor(cond->outputs()[0]);
  if (cond_output->type != kTfLiteBool) {
    TF_LITE_KERNEL_LOG(context, "WHILE cond subgraph output has type %s, expected BOOL",
                       TfLiteTypeGetName(cond_output->type));
    return kTfLiteError;
  }
  return SetOutputsDynamic(context, node);
}

TfLiteStatus WhileEval(TfLiteContext* context, TfLiteNode* node) {
  const auto* params = static_cast<const TfLiteWhileParams*>(node->builtin_data);
  Subgraph* cond = Callee(context, params->cond_subgraph_index, "WHILE cond");
  Subgraph* body = Callee(context, params->body_subgraph_index, "WHILE body");
  if (cond == nullptr || body == nullptr) return kTfLiteError;
  const int64_t max_iterations = Self(context)->interpreter()->options().max_loop_iterations;
  std::vector<Value> vars = NodeInputs(context, node, 0);
  std::vector<Value> result;
  for (int64_t iteration = 0;; ++iteration) {
    TF_LITE_ENSURE_OK(context, Call(context, cond, vars, &result));
    if (result.empty() || result[0].bytes.empty()) {
      TF_LITE_KERNEL_LOG(context, "WHILE cond subgraph produced an empty condition");
      return kTfLiteError;
    }
    if (result[0].bytes[0] == 0) break;
    if (iteration >= max_iterations) {
      TF_LITE_KERNEL_LOG(context,
                         "WHILE loop ran %lld iterations, the limit; stopped (raise the limit if the "
                         "model really needs more)",
                         static_cast<long long>(max_iterations));
      return kTfLiteError;
    }
    TF_LITE_ENSURE_OK(context, Call(context, body, vars, &result));
    vars.swap(result);
  }
  for (int i = 0; i < tflite::NumOutputs(node); ++i) {
    TF_LITE_ENSURE_OK(context, WriteOutput(context, tflite::GetOutput(context, node, i), vars[i]));
  }
  return kTfLiteOk;
}

// ---- IF ----

TfLiteStatus IfPrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto* params = static_cast<const TfLiteIfParams*>(node->builtin_data);
  TF_LITE_ENSURE(context, params != nullptr);
  TF_LITE_ENSURE(context, tflite::NumInputs(node) >= 1);
  Subgraph* then_branch = Callee(context, params->then_subgraph_index, "IF then");
  Subgraph* else_branch = Callee(context, params->else_subgraph_index, "IF else");
  if (then_branch == nullptr || else_branch == nullptr) return kTfLiteError;
  const TfLiteTensor* condition = tflite::GetInput(context, node, 0);
  if (condition == nullptr || tflite::NumElements(condition) != 1) {
    TF_LITE_KERNEL_LOG(context, "IF condition must have exactly one element");
    return kTfLiteError;
  }
  for (Subgraph* branch : {then_branch, else_branch}) {
    if (branch->inputs().size() + 1 != static_cast<size_t>(tflite::NumInputs(node)) ||
        branch->outputs().size() != static_cast<size_t>(tflite::NumOutputs(node))) {
      TF_LITE_KERNEL_LOG(context, "IF branch subgraph %d does not take the node's inputs and outputs", branch->index());
      return kTfLiteError;
    }
  }
  return SetOutputsDynamic(context, node);
}

TfLiteStatus IfEval(TfLiteContext* context, TfLiteNode* node) {
  const auto* params = static_cast<const TfLiteIfParams*>(node->builtin_data);
  const TfLiteTensor* condition = tflite::GetInput(context, node, 0);
  bool take_then = false;
  const size_t element = tflite::TfLiteTypeGetSize(condition->type);
  for (size_t b = 0; b < element; ++b) take_then |= condition->data.raw[b] != 0;
  Subgraph* branch = Callee(context, take_then ? params->then_subgraph_index : params->else_subgraph_index, "IF");
  if (branch == nullptr) return kTfLiteError;
  std::vector<Value> outputs;
  TF_LITE_ENSURE_OK(context, Call(context, branch, NodeInputs(context, node, 1), &outputs));
  for (int i = 0; i < tflite::NumOutputs(node); ++i) {
    TF_LITE_ENSURE_OK(context, WriteOutput(context, tflite::GetOutput(context, node, i), outputs[i]));
  }
  return kTfLiteOk;
}

// ---- CALL_ONCE ----

TfLiteStatus CallOncePrepare(TfLiteContext* context, TfLiteNode* node) {
  const auto* params = static_cast<const TfLiteCallOnceParams*>(node->builtin_data);
  TF_LITE_ENSURE(context, params != nullptr);
  Subgraph* init = Callee(context, params->init_subgraph_index, "CALL_ONCE init");
  if (init == nullptr) return kTfLiteError;
  if (!init->inputs().empty() || !init->outputs().empty() || tflite::NumInputs(node) != 0 ||
      tflite::NumOutputs(node) != 0) {
    TF_LITE_KERNEL_LOG(context, "CALL_ONCE and its init subgraph %d must have no inputs or outputs", init->index());
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus CallOnceEval(TfLiteContext* context, TfLiteNode* node) {
  const auto* params = static_cast<const TfLiteCallOnceParams*>(node->builtin_data);
  Subgraph* init = Callee(context, params->init_subgraph_index, "CALL_ONCE init");
  if (init == nullptr) return kTfLiteError;
  if (!Self(context)->interpreter()->MarkInitialized(init->index())) return kTfLiteOk;
  std::vector<Value> none;
  return Call(context, init, {}, &none);
}

// ---- Resource variables ----

TfLiteStatus VarHandlePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_EQ(context, tflite::NumOutputs(node), 1);
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, tflite::GetOutputSafe(context, node, 0, &output));
  if (output->type != kTfLiteResource && output->type != kTfLiteInt32) {
    TF_LITE_KERNEL_LOG(context, "VAR_HANDLE output has type %s, expected RESOURCE", TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  return context->ResizeTensor(context, output, tflite::CreateIntArray({1}));
}

// The node's resource id, looked up by name at its first Eval and kept in user_data (ids never change
// within an interpreter), so that later Evals build no strings.
void* VarHandleInit(TfLiteContext*, const char*, size_t) { return new int32_t(-1); }
void VarHandleFree(TfLiteContext*, void* buffer) { delete static_cast<int32_t*>(buffer); }

TfLiteStatus VarHandleEval(TfLiteContext* context, TfLiteNode* node) {
  int32_t* cached_id = static_cast<int32_t*>(node->user_data);  // VarHandleInit's
  if (*cached_id < 0) {
    const auto* params = static_cast<const TfLiteVarHandleParams*>(node->builtin_data);
    const std::string container = params != nullptr && params->container ? params->container : "";
    const std::string shared_name = params != nullptr && params->shared_name ? params->shared_name : "";
    *cached_id = Self(context)->interpreter()->ResourceId(container, shared_name);
  }
  std::memcpy(tflite::GetOutput(context, node, 0)->data.raw, cached_id, sizeof(*cached_id));
  return kTfLiteOk;
}

ResourceVariable* VariableOf(TfLiteContext* context, const TfLiteTensor* handle) {
  if (handle == nullptr || handle->bytes < sizeof(int32_t) || handle->data.raw == nullptr) {
    TF_LITE_KERNEL_LOG(context, "resource handle input is missing");
    return nullptr;
  }
  int32_t id;
  std::memcpy(&id, handle->data.raw, sizeof(id));
  ResourceVariable* variable = Self(context)->interpreter()->resource(id);
  if (variable == nullptr) TF_LITE_KERNEL_LOG(context, "resource id %d was never created by VAR_HANDLE", id);
  return variable;
}

TfLiteStatus AssignVariablePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_EQ(context, tflite::NumInputs(node), 2);
  return kTfLiteOk;
}

TfLiteStatus AssignVariableEval(TfLiteContext* context, TfLiteNode* node) {
  ResourceVariable* variable = VariableOf(context, tflite::GetInput(context, node, 0));
  if (variable == nullptr) return kTfLiteError;
  // Assigned in place, reusing the variable's buffers.
  CopyValue(tflite::GetInput(context, node, 1), &variable->type, &variable->dims, &variable->data);
  variable->assigned = true;
  return kTfLiteOk;
}

TfLiteStatus ReadVariablePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_EQ(context, tflite::NumInputs(node), 1);
  TF_LITE_ENSURE_EQ(context, tflite::NumOutputs(node), 1);
  return SetOutputsDynamic(context, node);
}

TfLiteStatus ReadVariableEval(TfLiteContext* context, TfLiteNode* node) {
  ResourceVariable* variable = VariableOf(context, tflite::GetInput(context, node, 0));
  if (variable == nullptr) return kTfLiteError;
  if (!variable->assigned) {
    TF_LITE_KERNEL_LOG(context, "READ_VARIABLE of a variable that was never assigned");
    return kTfLiteError;
  }
  return WriteOutput(context, tflite::GetOutput(context, node, 0), variable->type, variable->dims, variable->data);
}

TfLiteRegistration MakeRegistration(TfLiteStatus (*prepare)(TfLiteContext*, TfLiteNode*),
                                    TfLiteStatus (*eval)(TfLiteContext*, TfLiteNode*)) {
  TfLiteRegistration r;
  std::memset(&r, 0, sizeof(r));
  r.prepare = prepare;
  r.invoke = eval;
  return r;
}

}  // namespace

TfLiteRegistration* Register_WHILE() {
  static TfLiteRegistration r = MakeRegistration(WhilePrepare, WhileEval);
  return &r;
}
TfLiteRegistration* Register_IF() {
  static TfLiteRegistration r = MakeRegistration(IfPrepare, IfEval);
  return &r;
}
TfLiteRegistration* Register_CALL_ONCE() {
  static TfLiteRegistration r = MakeRegistration(CallOncePrepare, CallOnceEval);
  return &r;
}
TfLiteRegistration* Register_VAR_HANDLE() {
  static TfLiteRegistration r = [] {
    TfLiteRegistration registration = MakeRegistration(VarHandlePrepare, VarHandleEval);
    registration.init = VarHandleInit;
    registration.free = VarHandleFree;
    return registration;
  }();
  return &r;
}
TfLiteRegistration* Register_ASSIGN_VARIABLE() {
  static TfLiteRegistration r = MakeRegistration(AssignVariablePrepare, AssignVariableEval);
  return &r;
}
TfLiteRegistration* Register_READ_VARIABLE() {
  static TfLiteRegistration r = MakeRegistration(ReadVariablePrepare, ReadVariableEval);
  return &r;
}

}  // namespace touchstone
