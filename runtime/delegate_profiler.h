// The tflite::Profiler a subgraph's TfLiteContext::profiler points at while a NodeObserver is
// installed (Interpreter::SetNodeObserver). Delegates report the ops they run inside their kernel as
// TFLite's delegates do (TFLITE_SCOPED_DELEGATE_OPERATOR_PROFILE, or AddEvent with a time they
// measured themselves, e.g. on a GPU); each DELEGATE_OPERATOR_INVOKE_EVENT becomes one
// NodeObserver::DelegateOpFinished for the delegate node being invoked. Other event types are
// accepted and dropped: the interpreter times its own nodes.
#ifndef TOUCHSTONE_RUNTIME_DELEGATE_PROFILER_H_
#define TOUCHSTONE_RUNTIME_DELEGATE_PROFILER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/c/profiler.h"

namespace touchstone {

class NodeObserver;

class DelegateProfiler : public tflite::Profiler {
 public:
  explicit DelegateProfiler(int subgraph) : subgraph_(subgraph) {}

  // Where events go (null: nowhere).
  void set_observer(NodeObserver* observer) { observer_ = observer; }
  // The node whose kernel runs now; events are attributed to it.
  void set_current_node(int node_index) { current_node_ = node_index; }

  // The base class's shorter overloads stay callable on a DelegateProfiler.
  using tflite::Profiler::AddEvent;
  using tflite::Profiler::BeginEvent;
  using tflite::Profiler::EndEvent;
  uint32_t BeginEvent(const char* tag, EventType event_type, int64_t event_metadata1, int64_t event_metadata2) override;
  void EndEvent(uint32_t event_handle) override;
  void AddEvent(const char* tag, EventType event_type, uint64_t metric, int64_t event_metadata1,
                int64_t event_metadata2) override;

  // Microseconds of a monotonic clock (tests replace it).
  void SetClockForTesting(std::function<int64_t()> now_us) { now_us_ = std::move(now_us); }

 private:
  struct OpenEvent {
    std::string tag;
    int node_index;
    int64_t op_index;
    int64_t begin_us;
    bool in_use;
  };
  static bool Forwarded(EventType type);
  int64_t NowMicros() const;

  int subgraph_;
  NodeObserver* observer_ = nullptr;
  int current_node_ = -1;
  // Handle h (> 0) is slot h - 1; slots are reused once ended, so nesting costs no allocation after
  // the first run.
  std::vector<OpenEvent> open_;
  std::function<int64_t()> now_us_;
};

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_DELEGATE_PROFILER_H_
