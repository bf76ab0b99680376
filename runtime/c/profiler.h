// TFLite 2.14's tflite::Profiler (tensorflow/lite/core/api/profiler.h): the interface
// TfLiteContext::profiler points at, with the same event types, virtual functions in the same order
// (so a delegate built against TFLite's header calls the right slot), and the scoped helpers and
// macros delegate code uses (TFLITE_SCOPED_DELEGATE_OPERATOR_PROFILE). Header only: an external
// delegate plugin includes it without linking anything of ours.
//
// TfLiteContext::profiler is non-null only while someone profiles (benchmark_model
// --enable_op_profiling); delegates read it at Eval and report nothing when it is null.
#ifndef TOUCHSTONE_RUNTIME_C_PROFILER_H_
#define TOUCHSTONE_RUNTIME_C_PROFILER_H_

#include <cstdint>

namespace tflite {

class Profiler {
 public:
  // Bit flags, so that a profiler can filter the types it records with a mask.
  enum class EventType {
    // No meaning attached to the metadata.
    DEFAULT = 1,
    // A node of the interpreter's plan: metadata1 is the node index, metadata2 the subgraph index.
    OPERATOR_INVOKE_EVENT = 1 << 1,
    // An op a delegate ran inside its kernel: metadata1 is the op's index in the delegate's own
    // numbering (TFLite's summarizer names it "Delegate/<tag>:<metadata1>").
    DELEGATE_OPERATOR_INVOKE_EVENT = 1 << 2,
    // A delegate op shown among the operator-wise rows rather than under "Delegate internal".
    DELEGATE_PROFILED_OPERATOR_INVOKE_EVENT = 1 << 3,
    // Runtime instrumentation (overall status, delegate status, latency of the whole inference).
    GENERAL_RUNTIME_INSTRUMENTATION_EVENT = 1 << 4,
    // Telemetry (TFLite's experimental/telemetry); accepted and ignored here.
    TELEMETRY_EVENT = 1 << 5,
    TELEMETRY_REPORT_SETTINGS = 1 << 6,
    TELEMETRY_DELEGATE_EVENT = 1 << 7,
    TELEMETRY_DELEGATE_REPORT_SETTINGS = 1 << 8,
  };

  virtual ~Profiler() {}

  // Starts an event and returns its handle for EndEvent. The metadata means what the event type says.
  virtual uint32_t BeginEvent(const char* tag, EventType event_type, int64_t event_metadata1,
                              int64_t event_metadata2) = 0;
  uint32_t BeginEvent(const char* tag, EventType event_type, int64_t event_metadata) {
    return BeginEvent(tag, event_type, event_metadata, /*event_metadata2=*/0);
  }

  // Ends an event, replacing its metadata (for values known only at the end). By default the
  // metadata is dropped.
  virtual void EndEvent(uint32_t event_handle, int64_t event_metadata1, int64_t event_metadata2) {
    (void)event_metadata1;
    (void)event_metadata2;
    EndEvent(event_handle);
  }
  virtual void EndEvent(uint32_t event_handle) = 0;

  // An event measured by the caller: for [DELEGATE_]OPERATOR_INVOKE_EVENT, `metric` is its elapsed
  // time in microseconds (what TFLite's summarizer assumes). Used for times known only afterwards,
  // such as GPU timestamps.
  void AddEvent(const char* tag, EventType event_type, uint64_t metric, int64_t event_metadata) {
    AddEvent(tag, event_type, metric, event_metadata, /*event_metadata2=*/0);
  }
  virtual void AddEvent(const char* tag, EventType event_type, uint64_t metric, int64_t event_metadata1,
                        int64_t event_metadata2) {
    (void)tag;
    (void)event_type;
    (void)metric;
    (void)event_metadata1;
    (void)event_metadata2;
  }

  // An event carrying a payload (TFLite: telemetry settings). Ignored unless a profiler wants it.
  virtual void AddEventWithData(const char* tag, EventType event_type, const void* data) {
    (void)tag;
    (void)event_type;
    (void)data;
  }

 protected:
  friend class ScopedProfile;
};

// An event from construction to destruction; nothing when `profiler` is null. `tag` must outlive
// the event (a string literal, usually).
class ScopedProfile {
 public:
  ScopedProfile(Profiler* profiler, const char* tag, Profiler::EventType event_type = Profiler::EventType::DEFAULT,
                int64_t event_metadata = 0)
      : profiler_(profiler), event_handle_(0) {
    if (profiler_ != nullptr) event_handle_ = profiler_->BeginEvent(tag, event_type, event_metadata);
  }
  ~ScopedProfile() {
    if (profiler_ != nullptr) profiler_->EndEvent(event_handle_);
  }
  ScopedProfile(const ScopedProfile&) = delete;
  ScopedProfile& operator=(const ScopedProfile&) = delete;

 protected:
  Profiler* profiler_;
  uint32_t event_handle_;
};

class ScopedOperatorProfile : public ScopedProfile {
 public:
  ScopedOperatorProfile(Profiler* profiler, const char* tag, int node_index)
      : ScopedProfile(profiler, tag, Profiler::EventType::OPERATOR_INVOKE_EVENT, static_cast<uint32_t>(node_index)) {}
};

class ScopedDelegateOperatorProfile : public ScopedProfile {
 public:
  ScopedDelegateOperatorProfile(Profiler* profiler, const char* tag, int node_index)
      : ScopedProfile(profiler, tag, Profiler::EventType::DELEGATE_OPERATOR_INVOKE_EVENT,
                      static_cast<uint32_t>(node_index)) {}
};

// Like ScopedProfile, with the delegate's and the interpreter's status passed to EndEvent.
class ScopedRuntimeInstrumentationProfile {
 public:
  ScopedRuntimeInstrumentationProfile(Profiler* profiler, const char* tag) : profiler_(profiler) {
    if (profiler_ != nullptr) {
      event_handle_ = profiler_->BeginEvent(tag, Profiler::EventType::GENERAL_RUNTIME_INSTRUMENTATION_EVENT,
                                            /*event_metadata=*/-1);
    }
  }
  void set_runtime_status(int64_t delegate_status, int64_t interpreter_status) {
    if (profiler_ == nullptr) return;
    delegate_status_ = delegate_status;
    interpreter_status_ = interpreter_status;
  }
  ~ScopedRuntimeInstrumentationProfile() {
    if (profiler_ != nullptr) profiler_->EndEvent(event_handle_, delegate_status_, interpreter_status_);
  }
  ScopedRuntimeInstrumentationProfile(const ScopedRuntimeInstrumentationProfile&) = delete;
  ScopedRuntimeInstrumentationProfile& operator=(const ScopedRuntimeInstrumentationProfile&) = delete;

 private:
  Profiler* profiler_ = nullptr;
  uint32_t event_handle_ = 0;
  int64_t delegate_status_ = 0;
  int64_t interpreter_status_ = 0;
};

}  // namespace tflite

#define TFLITE_VARNAME_UNIQ_IMPL(name, ctr) name##ctr
#define TFLITE_VARNAME_UNIQ(name, ctr) TFLITE_VARNAME_UNIQ_IMPL(name, ctr)

#define TFLITE_SCOPED_TAGGED_DEFAULT_PROFILE(profiler, tag) \
  tflite::ScopedProfile TFLITE_VARNAME_UNIQ(_profile_, __COUNTER__)((profiler), (tag))

#define TFLITE_SCOPED_TAGGED_OPERATOR_PROFILE(profiler, tag, node_index) \
  tflite::ScopedOperatorProfile TFLITE_VARNAME_UNIQ(_profile_, __COUNTER__)((profiler), (tag), (node_index))

#define TFLITE_SCOPED_DELEGATE_OPERATOR_PROFILE(profiler, tag, node_index) \
  tflite::ScopedDelegateOperatorProfile TFLITE_VARNAME_UNIQ(_profile_, __COUNTER__)((profiler), (tag), (node_index))

#define TFLITE_ADD_RUNTIME_INSTRUMENTATION_EVENT(profiler, tag, event_metadata1, event_metadata2)                     \
  do {                                                                                                                \
    if (profiler) {                                                                                                   \
      const auto handle = profiler->BeginEvent(                                                                       \
          tag, tflite::Profiler::EventType::GENERAL_RUNTIME_INSTRUMENTATION_EVENT, event_metadata1, event_metadata2); \
      profiler->EndEvent(handle);                                                                                     \
    }                                                                                                                 \
  } while (false)

#endif  // TOUCHSTONE_RUNTIME_C_PROFILER_H_
