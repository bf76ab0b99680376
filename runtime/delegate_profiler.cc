#include "runtime/delegate_profiler.h"

#include <chrono>

#include "runtime/interpreter.h"

namespace touchstone {

bool DelegateProfiler::Forwarded(EventType type) {
  // TFLite's summarizer lists DELEGATE_PROFILED_OPERATOR_INVOKE_EVENT among the operator-wise rows;
  // here both kinds are ops inside the delegate node (nested under it, "Delegate internal" table).
  return type == EventType::DELEGATE_OPERATOR_INVOKE_EVENT ||
         type == EventType::DELEGATE_PROFILED_OPERATOR_INVOKE_EVENT;
}

int64_t DelegateProfiler::NowMicros() const {
  if (now_us_) return now_us_();
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint32_t DelegateProfiler::BeginEvent(const char* tag, EventType event_type, int64_t event_metadata1,
                                      int64_t event_metadata2) {
  (void)event_metadata2;
  // Handle 0 means "not recorded"; EndEvent ignores it.
  if (observer_ == nullptr || !Forwarded(event_type)) return 0;
  size_t slot = 0;
  while (slot < open_.size() && open_[slot].in_use) ++slot;
  if (slot == open_.size()) open_.push_back(OpenEvent());
  OpenEvent& e = open_[slot];
  e.tag = tag != nullptr ? tag : "";
  e.node_index = current_node_;
  e.op_index = event_metadata1;
  e.in_use = true;
  e.begin_us = NowMicros();
  return static_cast<uint32_t>(slot + 1);
}

void DelegateProfiler::EndEvent(uint32_t event_handle) {
  const int64_t end_us = NowMicros();
  if (event_handle == 0 || event_handle > open_.size()) return;
  OpenEvent& e = open_[event_handle - 1];
  if (!e.in_use) return;
  e.in_use = false;
  if (observer_ != nullptr) {
    observer_->DelegateOpFinished(subgraph_, e.node_index, e.tag, static_cast<int>(e.op_index), end_us - e.begin_us);
  }
}

void DelegateProfiler::AddEvent(const char* tag, EventType event_type, uint64_t metric, int64_t event_metadata1,
                                int64_t event_metadata2) {
  (void)event_metadata2;
  if (observer_ == nullptr || !Forwarded(event_type)) return;
  observer_->DelegateOpFinished(subgraph_, current_node_, tag != nullptr ? tag : "", static_cast<int>(event_metadata1),
                                static_cast<int64_t>(metric));
}

}  // namespace touchstone
