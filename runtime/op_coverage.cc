#include "runtime/op_coverage.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "runtime/builtin_options.h"
#include "runtime/op_resolver.h"
#include "runtime/op_type_rules.h"

namespace touchstone {
namespace {

// "T,T->* : T=int8|int16" as "`T,T->*` (T: int8, int16)": pipes would split a markdown cell.
std::string SignatureCell(const std::string& signature) {
  const size_t colon = signature.find(':');
  std::string body = signature.substr(0, colon);
  while (!body.empty() && body.back() == ' ') body.pop_back();
  std::string cell = "`";
  for (char c : body) cell += c == '|' ? '/' : c;
  cell += "`";
  if (colon == std::string::npos) return cell;
  std::string domains = signature.substr(colon + 1);
  std::string text;
  for (char c : domains) {
    if (c == '|') {
      text += ", ";
    } else if (c == '=') {
      text += ": ";
    } else if (c != ' ') {
      text += c;
    } else if (!text.empty() && text.back() == ';') {
      text += ' ';
    }
  }
  return cell + " (" + text + ")";
}

std::string VerdictCell(const OpTypeRules& rules, TypeVerdict verdict) {
  std::string cell;
  for (const TypeRule& rule : rules) {
    if (rule.verdict != verdict) continue;
    if (!cell.empty()) cell += "; ";
    cell += SignatureCell(rule.signature);
  }
  if (rules.otherwise == verdict) cell += cell.empty() ? "anything else" : "; anything else";
  if (verdict == TypeVerdict::kRefuseAtPrepare && rules.max_input_rank > 0) {
    cell += (cell.empty() ? "" : "; ") + std::string("input rank above ") + std::to_string(rules.max_input_rank);
  }
  return cell.empty() ? "-" : cell;
}

}  // namespace

std::string CoverageTableMarkdown() {
  std::vector<std::pair<std::string, int>> ops;
  for (int code : BuiltinOpResolver::SupportedBuiltins()) ops.emplace_back(BuiltinOperatorName(code), code);
  std::sort(ops.begin(), ops.end());
  std::string table =
      "| op | versions | runs | refused at invoke | refused at prepare |\n"
      "|---|---|---|---|---|\n";
  for (const auto& op : ops) {
    const std::pair<int, int> versions = BuiltinOpResolver::RegisteredVersions(op.second);
    const std::string version_cell = versions.first == versions.second
                                         ? std::to_string(versions.first)
                                         : std::to_string(versions.first) + "-" + std::to_string(versions.second);
    const OpTypeRules* rules = TypeRulesFor(op.second);
    if (rules == nullptr) {
      table += "| " + op.first + " | " + version_cell + " | checked by its kernel | - | - |\n";
      continue;
    }
    table += "| " + op.first + " | " + version_cell + " | " + VerdictCell(*rules, TypeVerdict::kRun) + " | " +
             VerdictCell(*rules, TypeVerdict::kRefuseAtInvoke) + " | " +
             VerdictCell(*rules, TypeVerdict::kRefuseAtPrepare) + " |\n";
  }
  return table;
}

}  // namespace touchstone
