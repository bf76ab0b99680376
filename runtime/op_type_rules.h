// Which tensor types each builtin op takes, as TensorFlow Lite 2.14.1's built-in kernels take them,
// and at which stage TFLite refuses the others: the source of truth the interpreter checks every
// builtin node against before its kernel's Prepare, and that docs/fidelity.md's op x type table is
// printed from (tools: op_coverage_table).
//
// A rule is a type signature and a verdict; an op's rules are tried in order, the first match decides,
// and an op's `otherwise` verdict covers a node no rule matches. A signature lists the node's inputs,
// then "->", then its outputs, each position one of:
//   float32, int8, ...   that type (several joined by '|': any of them)
//   T, U, ...            a type variable: every position naming it has the same type, which the
//                        part after ':' may restrict ("T=float32|int8; U=int32|int64")
//   *                    any type
//   -                    an omitted optional input
// A position ending in '?' may also be an omitted optional input; one ending in "..." stands for
// that position and every later one (one or more tensors, all matching it).
#ifndef TOUCHSTONE_RUNTIME_OP_TYPE_RULES_H_
#define TOUCHSTONE_RUNTIME_OP_TYPE_RULES_H_

#include <string>
#include <vector>

#include "runtime/c/common.h"

namespace touchstone {

enum class TypeVerdict {
  kRun,              // TFLite runs it (its kernel may still refuse other parameters)
  kRefuseAtPrepare,  // TFLite's Prepare refuses it (AllocateTensors fails)
  kRefuseAtInvoke,   // TFLite prepares it and its Eval refuses it (Invoke fails)
};

const char* TypeVerdictName(TypeVerdict verdict);

struct TypeRule {
  const char* signature = nullptr;  // null: an unused entry of OpTypeRules::rules
  TypeVerdict verdict = TypeVerdict::kRun;
};

// A plain aggregate, so that the table of every op's rules is constant data: nothing is built or
// allocated at start-up or at the first model's Init.
struct OpTypeRules {
  // The most rules an op has (CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED have 5); a table entry
  // with more does not compile.
  static constexpr int kMaxRules = 6;
  TypeRule rules[kMaxRules] = {};  // in order, up to the first unused entry
  TypeVerdict otherwise = TypeVerdict::kRefuseAtPrepare;
  // When above 0: TFLite's Prepare refuses a first input of a higher rank, whatever the types.
  int max_input_rank = 0;

  // The rules in use, for range-for.
  const TypeRule* begin() const { return rules; }
  const TypeRule* end() const {
    int count = 0;
    while (count < kMaxRules && rules[count].signature != nullptr) ++count;
    return rules + count;
  }
};

// TFLite 2.14.1's rules for a builtin op; null for the ops whose types their kernel alone checks
// (control flow, resource variables, the recurrent family).
const OpTypeRules* TypeRulesFor(int builtin_code);

// The builtin codes that have rules, ascending.
std::vector<int> BuiltinsWithTypeRules();

// The verdict for a node with these input and output types (kTfLiteNoType for an omitted optional
// input).
TypeVerdict JudgeTypes(const OpTypeRules& rules, const std::vector<TfLiteType>& inputs,
                       const std::vector<TfLiteType>& outputs);

// "(FLOAT32, INT32) -> (FLOAT32)", "-" for an omitted input.
std::string TypeSignatureText(const std::vector<TfLiteType>& inputs, const std::vector<TfLiteType>& outputs);

// Checks that every rule's signature parses; an empty string when they all do, else the first error.
std::string CheckTypeRuleSyntax();

// The signature's variables with their domains expanded: "T,T->T : T=int8|int16" gives
// "int8,int8->int8" and "int16,int16->int16". A variable without a domain stays as written.
std::vector<std::string> ExpandSignature(const char* signature);

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_OP_TYPE_RULES_H_
