// A dump of the interpreter's tensors and nodes in the layout of TFLite's PrintInterpreterState
// (optional_debug_tools.h), for benchmark_model's --print_preinvoke_state / --print_postinvoke_state:
// per subgraph its inputs and outputs, every tensor (name, type, allocation type, bytes, shape, offset
// in its arena), every node (operator, delegation, its tensors), the execution plan and the delegate
// kernels, then the memory totals.
#ifndef TOUCHSTONE_EVALUATION_INTERPRETER_STATE_H_
#define TOUCHSTONE_EVALUATION_INTERPRETER_STATE_H_

#include <string>

#include "runtime/interpreter.h"

namespace touchstone {

struct InterpreterStateFormat {
  int tensor_name_length = 25;  // TFLite's --tensor_name_display_length
  int tensor_type_length = 15;  // --tensor_type_display_length
  int alloc_type_length = 18;   // --alloc_type_display_length
};

std::string DescribeInterpreterState(Interpreter* interpreter, const InterpreterStateFormat& format);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_INTERPRETER_STATE_H_
