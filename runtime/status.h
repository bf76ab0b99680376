// Status values for Touchstone's C++ code. Errors carry a code that maps to the tools' exit codes
// (docs/exit-codes.md) and a message that gains context as it rises (file, subgraph, op, tensor).
// No exceptions cross module boundaries.
#ifndef TOUCHSTONE_RUNTIME_STATUS_H_
#define TOUCHSTONE_RUNTIME_STATUS_H_

#include <string>
#include <utility>

namespace touchstone {

// The same codes every binary exits with (see ../shared/reference/architecture.md).
enum class StatusCode : int {
  kOk = 0,
  kCheckFailed = 1,   // ran, and a requested check failed
  kUsage = 2,         // bad flag, bad flag value, missing required flag
  kInvalidInput = 3,  // unreadable or invalid model, image, label or ground-truth file
  kExecution = 4,     // a kernel or delegate failed; required full delegation did not happen
  kInconclusive = 5,  // a gate could not decide
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  int exit_code() const { return static_cast<int>(code_); }

  // Prefixes context: "model.tflite: subgraph 0: op 3 (CONV_2D): <message>".
  Status& WithContext(const std::string& context) & {
    if (!ok()) message_ = context + ": " + message_;
    return *this;
  }
  // On a temporary (`return f().WithContext(...)`): moved out, so that an ok status returned at every
  // Invoke is not copied.
  Status&& WithContext(const std::string& context) && {
    if (!ok()) message_ = context + ": " + message_;
    return std::move(*this);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status UsageError(std::string m) { return Status(StatusCode::kUsage, std::move(m)); }
inline Status InvalidInputError(std::string m) { return Status(StatusCode::kInvalidInput, std::move(m)); }
inline Status ExecutionError(std::string m) { return Status(StatusCode::kExecution, std::move(m)); }
inline Status CheckFailedError(std::string m) { return Status(StatusCode::kCheckFailed, std::move(m)); }

// A value or an error.
template <typename T>
class StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) {}            // NOLINT: implicit by design
  StatusOr(T value) : value_(std::move(value)), has_value_(true) {}  // NOLINT
  bool ok() const { return has_value_; }
  const Status& status() const { return status_; }
  T& value() { return value_; }
  const T& value() const { return value_; }
  T& operator*() { return value_; }
  T* operator->() { return &value_; }

 private:
  Status status_;
  T value_{};
  bool has_value_ = false;
};

}  // namespace touchstone

#define TS_RETURN_IF_ERROR(expr)              \
  do {                                        \
    ::touchstone::Status _ts_status = (expr); \
    if (!_ts_status.ok()) return _ts_status;  \
  } while (0)

// TS_ASSIGN_OR_RETURN(lhs, expr): evaluates expr, a StatusOr<T>; returns its status when it holds an
// error, else moves its value into lhs: a declaration ("auto model", "const Shape& shape") or a variable
// declared before. One statement; it declares a hidden variable, so it cannot be the sole statement of an
// unbraced if or loop.
#define TS_ASSIGN_OR_RETURN(lhs, ...) \
  TS_ASSIGN_OR_RETURN_IMPL_(TS_STATUS_CONCAT_(_ts_statusor_, __LINE__), lhs, __VA_ARGS__)

// Helpers of the macro above.
#define TS_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, ...) \
  auto statusor = (__VA_ARGS__);                      \
  if (!statusor.ok()) return statusor.status();       \
  lhs = std::move(statusor.value())
#define TS_STATUS_CONCAT_(a, b) TS_STATUS_CONCAT_IMPL_(a, b)
#define TS_STATUS_CONCAT_IMPL_(a, b) a##b

#endif  // TOUCHSTONE_RUNTIME_STATUS_H_
