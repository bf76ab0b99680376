// From a tensor's TfLiteType to the C++ type a templated kernel takes: a kernel names the element
// types it supports once, as a TypeList, and both checks (IsOneOf) and dispatches (DispatchType)
// against that one list.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_TYPE_DISPATCH_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_TYPE_DISPATCH_H_

#include <cstdint>
#include <type_traits>

#include "runtime/c/common.h"

namespace touchstone {

// The TfLiteType whose elements are stored as T (undefined for any other T).
template <typename T>
struct TfLiteTypeFor;
template <TfLiteType kType>
using TfLiteTypeConstant = std::integral_constant<TfLiteType, kType>;
template <>
struct TfLiteTypeFor<float> : TfLiteTypeConstant<kTfLiteFloat32> {};
template <>
struct TfLiteTypeFor<double> : TfLiteTypeConstant<kTfLiteFloat64> {};
template <>
struct TfLiteTypeFor<bool> : TfLiteTypeConstant<kTfLiteBool> {};
template <>
struct TfLiteTypeFor<int8_t> : TfLiteTypeConstant<kTfLiteInt8> {};
template <>
struct TfLiteTypeFor<uint8_t> : TfLiteTypeConstant<kTfLiteUInt8> {};
template <>
struct TfLiteTypeFor<int16_t> : TfLiteTypeConstant<kTfLiteInt16> {};
template <>
struct TfLiteTypeFor<uint16_t> : TfLiteTypeConstant<kTfLiteUInt16> {};
template <>
struct TfLiteTypeFor<int32_t> : TfLiteTypeConstant<kTfLiteInt32> {};
template <>
struct TfLiteTypeFor<uint32_t> : TfLiteTypeConstant<kTfLiteUInt32> {};
template <>
struct TfLiteTypeFor<int64_t> : TfLiteTypeConstant<kTfLiteInt64> {};
template <>
struct TfLiteTypeFor<uint64_t> : TfLiteTypeConstant<kTfLiteUInt64> {};

template <typename T>
constexpr TfLiteType TfLiteTypeOf() {
  return TfLiteTypeFor<T>::value;
}

template <typename... Ts>
struct TypeList {};

// True when `type` is stored as one of Ts.
template <typename... Ts>
constexpr bool IsOneOf(TypeList<Ts...>, TfLiteType type) {
  return ((type == TfLiteTypeOf<Ts>()) || ...);
}

// fn(T()) for the T among Ts that stores `type`; otherwise() when none does.
template <typename... Ts, typename Fn, typename Otherwise>
auto DispatchType(TypeList<Ts...>, TfLiteType type, Fn&& fn, Otherwise&& otherwise) -> decltype(otherwise()) {
  decltype(otherwise()) result{};
  const bool found = ((type == TfLiteTypeOf<Ts>() && (result = fn(Ts()), true)) || ...);
  return found ? result : otherwise();
}

// An Eval's dispatch over the types its Prepare accepted: fn(T()) for the T among Ts that stores
// `type`, then kTfLiteOk; kTfLiteError when none does.
template <typename... Ts, typename Fn>
TfLiteStatus EvalForType(TypeList<Ts...> types, TfLiteType type, Fn&& fn) {
  return DispatchType(
      types, type,
      [&](auto t) {
        fn(t);
        return kTfLiteOk;
      },
      [] { return kTfLiteError; });
}

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_TYPE_DISPATCH_H_
