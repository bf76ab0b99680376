#include "runtime/kernels/optimized/reference_paths.h"

#include <cstring>

namespace touchstone {
namespace optimized {

const std::vector<ReferencePath>& ReferencePaths() {
  static const std::vector<ReferencePath> table = {
      {"ADD", "int32,int64", "integer arithmetic on shape values and loop counters: a few elements"},
      {"ASSIGN_VARIABLE", "", "resource variables: a copy"},
      {"CALL_ONCE", "", "control flow: runs its subgraph at the first Invoke only"},
      {"CAST", "", "shape arithmetic on a few elements"},
      {"COMPLEX_ABS", "complex128", "double-precision magnitudes (complex64 has its own kernel)"},
      {"CONCATENATION", "uint8,int8",
       "inputs of different scales, requantized element by element: a detector's few thousand box scores"},
      {"COS", "", "a rotary embedding's angles, computed on a few thousand elements"},
      {"DEQUANTIZE", "float16",
       "float16 activations, converted element by element (float16 constants are converted in Prepare: kernel "
       "`prepare`)"},
      {"EQUAL", "", "a loop's condition"},
      {"EXPAND_DIMS", "", "shares its input's storage: no copy (one where the graph's input or output is involved)"},
      {"GATHER", "", "rows copied with memcpy"},
      {"L2_NORMALIZATION", "", "one row of a few hundred elements"},
      {"LEAKY_RELU", "", "a few hundred elements behind a dynamic shape (XNNPACK takes static ones)"},
      {"LESS", "", "a loop's condition"},
      {"LOG", "", "a spectrogram's log, once per model (yamnet)"},
      {"MIRROR_PAD", "", "rows copied with memcpy"},
      {"MUL", "int32,int64", "integer arithmetic on shape values: a few elements"},
      {"PACK", "", "shape arithmetic on a few elements"},
      {"READ_VARIABLE", "", "resource variables: a copy"},
      {"RESHAPE", "", "shares its input's storage: no copy (one where the graph's input or output is involved)"},
      {"RSQRT", "", "a layer norm's per-row factor: one element per row"},
      {"SCATTER_ND", "", "writes a few indexed elements"},
      {"SELECT_V2", "", "a mask over a few thousand elements"},
      {"SHAPE", "", "writes the input's shape"},
      {"SIN", "", "a rotary embedding's angles, computed on a few thousand elements"},
      {"SLICE", "", "rows copied with memcpy"},
      {"SOFTMAX", "int16",
       "16-bit activations: the reference's interpolated exp and reciprocal tables; no shared model has one"},
      {"SPLIT", "", "rows copied with memcpy"},
      {"SQUEEZE", "", "shares its input's storage: no copy (one where the graph's input or output is involved)"},
      {"STRIDED_SLICE", "", "rows copied with memcpy"},
      {"SVDF", "float32", "float and hybrid filters: a keyword spotter's few hundred multiply-adds"},
      {"TFLite_Detection_PostProcess", "", "non-maximum suppression over the detector's few thousand boxes"},
      {"TILE", "", "rows copied with memcpy"},
      {"TOPK_V2", "", "a partial sort of one row"},
      {"VAR_HANDLE", "", "resource variables: a handle"},
      {"WHILE", "", "control flow: runs its subgraphs' kernels"},
  };
  return table;
}

std::string ReferencePathsMarkdown() {
  std::string text = "| op | input types | why it stays on the reference kernel |\n|---|---|---|\n";
  for (const ReferencePath& path : ReferencePaths()) {
    std::string types = path.types[0] == '\0' ? "any" : path.types;
    for (size_t i = 0; (i = types.find(',', i)) != std::string::npos; i += 2) types.replace(i, 1, ", ");
    text += std::string("| ") + path.op + " | " + types + " | " + path.why + " |\n";
  }
  return text;
}

const ReferencePath* FindReferencePath(const std::string& op, const std::string& type) {
  for (const ReferencePath& path : ReferencePaths()) {
    if (op != path.op) continue;
    if (path.types[0] == '\0') return &path;
    // A comma-separated list: match one whole name.
    const char* p = path.types;
    while (*p != '\0') {
      const char* end = std::strchr(p, ',');
      const size_t length = end != nullptr ? static_cast<size_t>(end - p) : std::strlen(p);
      if (type.size() == length && type.compare(0, length, p, length) == 0) return &path;
      if (end == nullptr) break;
      p = end + 1;
    }
  }
  return nullptr;
}

}  // namespace optimized
}  // namespace touchstone
