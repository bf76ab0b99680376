#include "delegates/api/delegate_helpers.h"

#include "runtime/builtin_options.h"

namespace tflite {

std::string GetOpNameByRegistration(const TfLiteRegistration& registration) {
  const int op = registration.builtin_code;
  std::string result = touchstone::BuiltinOperatorName(op);
  if ((op == kTfLiteBuiltinCustom || op == kTfLiteBuiltinDelegate) && registration.custom_name != nullptr) {
    result += " " + std::string(registration.custom_name);
  }
  return result;
}

}  // namespace tflite
