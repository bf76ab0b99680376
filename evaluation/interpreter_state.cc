#include "evaluation/interpreter_state.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "evaluation/fixed_width.h"

namespace touchstone {
namespace {

template <typename... Args>
void Append(std::string* out, fmt::format_string<Args...> format, Args&&... args) {
  fmt::format_to(std::back_inserter(*out), format, std::forward<Args>(args)...);
}

// A column of TFLite's tensor table ("%-*s"): padded to `width` bytes, as printf pads.
std::string Column(const std::string& text, int width) { return PadRight(text, static_cast<size_t>(std::abs(width))); }

const char* AllocTypeName(TfLiteAllocationType type) {
  switch (type) {
    case kTfLiteMemNone:
      return "kTfLiteMemNone";
    case kTfLiteMmapRo:
      return "kTfLiteMmapRo";
    case kTfLiteDynamic:
      return "kTfLiteDynamic";
    case kTfLiteArenaRw:
      return "kTfLiteArenaRw";
    case kTfLiteArenaRwPersistent:
      return "kTfLiteArenaRwPersistent";
    case kTfLitePersistentRo:
      return "kTfLitePersistentRo";
    case kTfLiteCustom:
      return "kTfLiteCustom";
    default:
      break;
  }
  return "(invalid)";
}

std::string TypeName(TfLiteType type) { return std::string("kTfLite") + TfLiteTypeGetName(type); }

// Cuts `text` to `limit` characters, marking the cut with "..." (at the end, or at the start).
std::string Truncate(const std::string& text, int limit, bool at_end) {
  if (limit < 0 || static_cast<int>(text.size()) <= limit) return text;
  if (limit <= 3) return std::string(static_cast<size_t>(limit), '.');
  if (at_end) return text.substr(0, static_cast<size_t>(limit - 3)) + "...";
  return "..." + text.substr(text.size() - static_cast<size_t>(limit - 3));
}

// "[0-3,7]" (runs of consecutive values collapsed), "(null)" when empty.
std::string IntList(const std::vector<int>& v, bool collapse = true) {
  if (v.empty()) return "(null)";
  std::string out = "[";
  size_t i = 0;
  while (i < v.size()) {
    size_t j = i;
    while (collapse && j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (i > 0) out += ",";
    if (j == i) {
      out += std::to_string(v[i]);
    } else if (j == i + 1) {
      out += std::to_string(v[i]) + "," + std::to_string(v[j]);
    } else {
      out += std::to_string(v[i]) + "-" + std::to_string(v[j]);
    }
    i = j + 1;
  }
  return out + "]";
}

std::vector<int> ToVector(const TfLiteIntArray* a) {
  std::vector<int> v;
  for (int i = 0; a != nullptr && i < a->size; ++i) v.push_back(a->data[i]);
  return v;
}

std::string TotalBytes(Subgraph* s, const std::vector<int>& tensors) {
  size_t total = 0;
  for (int t : tensors) {
    if (t >= 0 && static_cast<size_t>(t) < s->tensors_size()) total += s->tensor(t)->bytes;
  }
  return fmt::format(" -> {}B ({:.2f}MB)\n", total, static_cast<double>(total) / (1 << 20));
}

}  // namespace

std::string DescribeInterpreterState(Interpreter* interpreter, const InterpreterStateFormat& format) {
  std::string out;
  const size_t num_subgraphs = interpreter->subgraphs_size();
  Append(&out, "Interpreter has {} subgraphs.\n\n", num_subgraphs);
  size_t total_arena = 0, total_dynamic = 0;
  for (size_t i = 0; i < num_subgraphs; ++i) {
    Subgraph* s = interpreter->subgraph(static_cast<int>(i));
    total_arena += s->arena_bytes();
    total_dynamic += s->dynamic_bytes();
    Append(&out, "-----------Subgraph-{} has {} tensors and {} nodes------------\n", i, s->tensors_size(),
           s->nodes_size());
    Append(&out, "{} Inputs: {}", s->inputs().size(), IntList(s->inputs()));
    out += TotalBytes(s, s->inputs());
    Append(&out, "{} Outputs: {}", s->outputs().size(), IntList(s->outputs()));
    out += TotalBytes(s, s->outputs());
    out += "\n";
    // Arena offsets: from the lowest address among the arena tensors.
    uintptr_t arena_start = std::numeric_limits<uintptr_t>::max();
    for (size_t t = 0; t < s->tensors_size(); ++t) {
      const TfLiteTensor* tensor = s->tensor(static_cast<int>(t));
      if (tensor->allocation_type == kTfLiteArenaRw && tensor->data.raw != nullptr) {
        arena_start = std::min(arena_start, reinterpret_cast<uintptr_t>(tensor->data.raw));
      }
    }
    Append(&out, "Tensor {:>3} {} {} {} {:<18} {:<10} {:<16}\n", "ID", Column("Name", format.tensor_name_length),
           Column("Type", format.tensor_type_length), Column("AllocType", format.alloc_type_length), "Size (Bytes/MB)",
           "Shape", "MemAddr-Offset");
    std::map<TfLiteAllocationType, std::pair<int, size_t>> by_alloc;
    for (size_t t = 0; t < s->tensors_size(); ++t) {
      const TfLiteTensor* tensor = s->tensor(static_cast<int>(t));
      by_alloc[tensor->allocation_type].first += 1;
      by_alloc[tensor->allocation_type].second += tensor->bytes;
      int64_t start = -1;
      if (tensor->allocation_type == kTfLiteArenaRw && tensor->data.raw != nullptr) {
        start = static_cast<int64_t>(reinterpret_cast<uintptr_t>(tensor->data.raw) - arena_start);
      }
      const int64_t end = start < 0 ? -1 : start + static_cast<int64_t>(tensor->bytes);
      Append(&out, "Tensor {:>3} {} {} {} {:<8} / {:.2f} {} [{}, {})\n", t,
             Column(Truncate(tensor->name != nullptr ? tensor->name : "(nil)", format.tensor_name_length, true),
                    format.tensor_name_length),
             Column(Truncate(TypeName(tensor->type), format.tensor_type_length, false), format.tensor_type_length),
             Column(Truncate(AllocTypeName(tensor->allocation_type), format.alloc_type_length, false),
                    format.alloc_type_length),
             tensor->bytes, static_cast<double>(tensor->bytes) / (1 << 20), IntList(ToVector(tensor->dims), false),
             start, end);
    }
    out += "\n";
    for (const auto& entry : by_alloc) {
      Append(&out, "{} Info: {} tensors, {} bytes ({:.3f} MB)\n", AllocTypeName(entry.first), entry.second.first,
             entry.second.second, static_cast<double>(entry.second.second) / (1 << 20));
    }
    Append(&out, "Arena planned for this subgraph: {} bytes ({:.3f} MB)\n\n", s->arena_bytes(),
           static_cast<double>(s->arena_bytes()) / (1 << 20));

    // Which nodes a delegate kernel replaced.
    std::map<int, int> replaced_by;
    bool has_delegate = false;
    for (size_t n = 0; n < s->nodes_size(); ++n) {
      const TfLiteNode& node = s->node(static_cast<int>(n));
      if (node.delegate == nullptr || node.builtin_data == nullptr) continue;
      has_delegate = true;
      const auto* params = static_cast<const TfLiteDelegateParams*>(node.builtin_data);
      for (int replaced : ToVector(params->nodes_to_replace)) replaced_by[replaced] = static_cast<int>(n);
    }
    for (size_t n = 0; n < s->nodes_size(); ++n) {
      const TfLiteNode& node = s->node(static_cast<int>(n));
      if (node.inputs == nullptr) continue;  // freed
      const TfLiteRegistration& reg = s->registration(static_cast<int>(n));
      std::string status;
      const bool replaced = replaced_by.count(static_cast<int>(n)) != 0;
      if (node.delegate == nullptr) {
        status = replaced ? "(delegated by node " + std::to_string(replaced_by[static_cast<int>(n)]) + ")"
                          : "(not delegated)";
      }
      if (reg.custom_name != nullptr) {
        Append(&out, "Node {:>3} Operator Custom Name {} {}\n", n, reg.custom_name, status);
      } else {
        Append(&out, "Node {:>3} Operator Builtin Code {:>3} {} {}\n", n, reg.builtin_code,
               s->op_name(static_cast<int>(n)), status);
      }
      const std::vector<int> none;
      Append(&out, "  {} Input Tensors:{}", node.inputs->size,
             IntList(ToVector(node.inputs), node.delegate != nullptr));
      out += TotalBytes(s, replaced ? none : ToVector(node.inputs));
      Append(&out, "  {} Output Tensors:{}", node.outputs->size, IntList(ToVector(node.outputs)));
      out += TotalBytes(s, replaced ? none : ToVector(node.outputs));
      if (node.intermediates != nullptr && node.intermediates->size > 0) {
        Append(&out, "  {} Intermediate Tensors:{}", node.intermediates->size, IntList(ToVector(node.intermediates)));
        out += TotalBytes(s, replaced ? none : ToVector(node.intermediates));
      }
      if (node.temporaries != nullptr && node.temporaries->size > 0) {
        Append(&out, "  {} Temporary Tensors:{}", node.temporaries->size, IntList(ToVector(node.temporaries)));
        out += TotalBytes(s, replaced ? none : ToVector(node.temporaries));
      }
    }
    Append(&out, "\nExecution plan as the list of {} nodes invoked in-order: {}\n", s->execution_plan().size(),
           IntList(s->execution_plan()));
    if (has_delegate) {
      out += "Among these nodes in the execution plan:\n";
      for (int n : s->execution_plan()) {
        const TfLiteNode& node = s->node(n);
        if (node.delegate == nullptr || node.builtin_data == nullptr) continue;
        const char* name = s->registration(n).custom_name;
        const auto* params = static_cast<const TfLiteDelegateParams*>(node.builtin_data);
        Append(&out, "  Node {} is a {} node, which has delegated {} nodes: {}\n", n, name != nullptr ? name : "[n/a]",
               params->nodes_to_replace->size, IntList(ToVector(params->nodes_to_replace)));
      }
    }
    Append(&out, "--------------Subgraph-{} dump has completed--------------\n\n", i);
  }
  out += "--------------Memory Arena Status Start--------------\n";
  const size_t total = total_arena + total_dynamic;
  Append(&out, "Total memory usage: {} bytes ({:.3f} MB)\n", total, static_cast<double>(total) / (1 << 20));
  Append(&out, "- Total arena memory usage: {} bytes ({:.3f} MB)\n", total_arena,
         static_cast<double>(total_arena) / (1 << 20));
  Append(&out, "- Total dynamic memory usage: {} bytes ({:.3f} MB)\n", total_dynamic,
         static_cast<double>(total_dynamic) / (1 << 20));
  out += "--------------Memory Arena Status End--------------\n";
  return out;
}

}  // namespace touchstone
