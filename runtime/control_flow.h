// Ops that need the interpreter itself: control flow across subgraphs (WHILE, IF, CALL_ONCE) and
// resource variables (VAR_HANDLE, ASSIGN_VARIABLE, READ_VARIABLE). They live in runtime/ because
// kernels in runtime/kernels know only the C API.
#ifndef TOUCHSTONE_RUNTIME_CONTROL_FLOW_H_
#define TOUCHSTONE_RUNTIME_CONTROL_FLOW_H_

#include "runtime/c/common.h"

namespace touchstone {

TfLiteRegistration* Register_WHILE();
TfLiteRegistration* Register_IF();
TfLiteRegistration* Register_CALL_ONCE();
TfLiteRegistration* Register_VAR_HANDLE();
TfLiteRegistration* Register_ASSIGN_VARIABLE();
TfLiteRegistration* Register_READ_VARIABLE();

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_CONTROL_FLOW_H_
