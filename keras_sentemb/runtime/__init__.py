"""Inference runtimes: where `encode` runs a model's traced function, and at what precision.

- `backend="tensorflow"` (the default for float32): the model's own `tf.function`, the
  exact graph that `export` writes; nothing extra to install.
- `backend="openvino"`: the same traced function converted to OpenVINO (it reads TensorFlow
  graphs) and compiled for the CPU, at `precision` "float32", "bfloat16" (needs a CPU with
  bf16: AVX-512 BF16 or AMX) or "int8" (NNCF static post-training quantisation, calibrated
  on sentences you give). `pip install "./keras-sentemb[openvino]"`.
- `backend="litert"`: the same function converted to LiteRT and run by its interpreter (XNNPACK),
  at "float32" or "int8" (dynamic range: int8 weights, activations quantised per token row as it
  runs; no calibration, and a text's vector does not depend on its batch). `pip install
  "./keras-sentemb[litert]"`.

See `resolve_runtime` for the rules, `OpenVINORuntime` and `litert_runtime.LiteRTRuntime` for what each
precision computes.
"""

from keras_sentemb.runtime.openvino_runtime import OpenVINORuntime, openvino_cpu_capabilities
from keras_sentemb.runtime.runtime_choice import BACKENDS, PRECISIONS, resolve_runtime

__all__ = ["BACKENDS", "PRECISIONS", "OpenVINORuntime", "openvino_cpu_capabilities", "resolve_runtime"]
