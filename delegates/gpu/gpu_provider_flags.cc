#include "delegates/gpu/gpu_provider_flags.h"

namespace touchstone {

DelegateProvider GpuProviderDeclaration() {
  return DeclareProvider(
      "GPU", "Touchstone's GPU delegate on Vulkan compute (lavapipe where there is no GPU)",
      {ProviderFlag::Bool("use_gpu", false, "apply the GPU delegate (Vulkan compute)"),
       ProviderFlag::Bool("gpu_precision_loss_allowed", true,
                          "compute in float16 where the device supports it (false: float32)"),
       ProviderFlag::Bool("gpu_experimental_enable_quant", true,
                          "run quantized models on the GPU (weights dequantized, activations kept on their "
                          "quantization grids)"),
       ProviderFlag::Bool("gpu_inference_for_sustained_speed", false,
                          "accepted for TFLite compatibility; Vulkan has no such hint"),
       ProviderFlag::String("gpu_backend", "",
                            "vulkan (the only backend; TFLite's cl and gl are accepted with a warning)")
           .OneOf({"", "vulkan", "cl", "gl"}),
       ProviderFlag::Int("gpu_device_index", -1,
                         "Vulkan device to use, in enumeration order (-1: the first discrete GPU, else "
                         "integrated, else any such as lavapipe)")
           .AtLeast(-1)},
      "use_gpu");
}

}  // namespace touchstone
