/* TFLite 2.14.1's stable-delegate C ABI (core/acceleration/configuration/c/stable_delegate.h and
 * delegate_plugin.h): what a shared object exporting TFL_TheStableDelegate hands the host. Layouts as
 * measured against 2.14.1 (shared/reference/tflite-2.14.1-stable-delegate-abi.md); abi_test checks them. */
#ifndef RUNTIME_C_STABLE_DELEGATE_H_
#define RUNTIME_C_STABLE_DELEGATE_H_

#include "runtime/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The only ABI version there is; TFLite itself does not check it, Touchstone refuses any other. */
#define TFL_STABLE_DELEGATE_ABI_VERSION "1.0.0"

/* The exported data object's name (TFLite's kTfLiteStableDelegateSymbol). */
#define TFL_STABLE_DELEGATE_SYMBOL "TFL_TheStableDelegate"

/* `tflite_settings` points at a TFLiteSettings flatbuffer table (not at the buffer's start). */
typedef TfLiteDelegate* TfLiteOpaqueDelegatePluginCreateFunc(const void* tflite_settings);
typedef void TfLiteOpaqueDelegatePluginDestroyFunc(TfLiteDelegate* delegate);
typedef int TfLiteOpaqueDelegatePluginGetDelegateErrnoFunc(TfLiteDelegate* delegate);

/* 24 bytes. */
typedef struct TfLiteOpaqueDelegatePlugin {
  TfLiteOpaqueDelegatePluginCreateFunc* create;
  TfLiteOpaqueDelegatePluginDestroyFunc* destroy;
  TfLiteOpaqueDelegatePluginGetDelegateErrnoFunc* get_delegate_errno;
} TfLiteOpaqueDelegatePlugin;

/* 32 bytes. */
typedef struct TfLiteStableDelegate {
  const char* delegate_abi_version;
  const char* delegate_name;
  const char* delegate_version;
  const TfLiteOpaqueDelegatePlugin* delegate_plugin;
} TfLiteStableDelegate;

#ifdef __cplusplus
}  // extern "C"
#endif

#endif /* RUNTIME_C_STABLE_DELEGATE_H_ */
