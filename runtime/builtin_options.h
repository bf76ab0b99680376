// Turns an operator's builtin options table into the TfLite*Params struct its kernel reads: the
// counterpart of TFLite's ParseOpData (tensorflow/lite/core/api/flatbuffer_conversions.cc), with
// the same field conversions, the same zero-filled struct when the table is absent (schema
// defaults apply only to fields of a table that is present), and the same checks.
#ifndef TOUCHSTONE_RUNTIME_BUILTIN_OPTIONS_H_
#define TOUCHSTONE_RUNTIME_BUILTIN_OPTIONS_H_

#include "runtime/schema/schema_generated.h"
#include "runtime/status.h"

namespace touchstone {

// Sets *builtin_data to a malloc'ed, zero-initialized TfLite*Params for `builtin_code` filled from
// op->builtin_options (or builtin_options_2), to be released with free(); to nullptr for operators
// without a params struct. Operators whose struct is an empty placeholder (PAD, TRANSPOSE,
// MATRIX_DIAG, ...) get a zeroed one where TFLite passes nullptr; their kernels read nothing.
// Errors (StatusCode::kInvalidInput, *builtin_data left nullptr) name the offending option, e.g.
// "Conv2DOptions.padding has unknown value 2"; callers add the operator as context. They cover
// enum values outside the schema, tensor types the C API lacks, vectors longer than the params
// array, required tables missing (LSTM, some StableHLO ops), DELEGATE and codes outside the schema.
Status ParseBuiltinOptions(const fb::Operator* op, int builtin_code, void** builtin_data);

// "CONV_2D" etc.; "UNKNOWN" for codes outside the schema's BuiltinOperator enum.
const char* BuiltinOperatorName(int builtin_code);

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_BUILTIN_OPTIONS_H_
