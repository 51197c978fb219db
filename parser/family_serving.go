package parser

// Serving engines and native model runtimes: vLLM, TGI, ggml/llama.cpp, MegEngine, MLX/Metal, and the CPU allocators.

import (
	"strconv"
	"strings"
)

var (
	reCPUBytes    = lazyRE(`you tried to allocate (\d+) bytes`)
	reNumpy       = lazyRE(`Unable to allocate ` + `(\d+(?:\.\d*)?\s?(?:[KMGTPE]i?B|bytes|B))` + ` for an array with shape \(([^)]*)\)(?: and data type ([<>|=]?\w+))?`)
	reGGMLAlloc   = lazyRE(`allocating ` + size + ` on device (\d+)`)
	reGGMLUnable  = lazyRE(`unable to allocate (\S+) buffer`)
	reGGMLBuffer  = lazyRE(`failed to allocate (?:(\S+) )?buffer of size (\d+)`)
	reVulkanAlloc = lazyRE(`Device memory allocation of size (\d+) failed`)
	reMegRequest  = lazyRE(`requesting (\d+) bytes`)
	reMegDevice   = lazyRE(`device=(\d+) mem_free=` + size + ` mem_tot=` + size)
	reMetalMalloc = lazyRE(`Attempting to allocate (\d+) bytes(?: which is greater than the maximum allowed buffer size of (\d+) bytes)?`)
	reMetalGGML   = lazyRE(`failed to allocate buffer, size = ` + size + `(?:, max buffer size = ` + size + `)?`)
	// "[malloc_or_wait] Unable to allocate 134217728 bytes." (MLX until
	// 0.24), "[malloc] Unable to allocate 2147483648 bytes." (MLX since)
	reMLXMemoryLimit = lazyRE(`\[malloc(?:_or_wait)?\] Unable to allocate (\d+ bytes)`)
	// "ggml_metal_add_buffer: buffer 'data' size 18300780544 is larger than buffer maximum of 17179869184"
	reGGMLMetalBuffer = lazyRE(`(?:\w+: )?buffer '([^']*)' size (\d+) is larger than buffer maximum of (\d+)`)
	// "newBufferWith*:length 0x6692c000 must not exceed 1024 MB."
	reMetalValidation = lazyRE(`newBuffer\S*:length (0x[0-9a-fA-F]+|\d+) must not exceed (\d+ ?[KMG]i?B)`)
	// "needs 3046637568 B > budget -1868787708 B"
	reCacheBudgetNeeds = lazyRE(`needs (\d+) ?(?:B|bytes)\b`)
	reTGITokens        = lazyRE(`Not enough memory to handle (\d+) (?:prefill |total )?tokens`)
	reVLLMV0           = lazyRE(`max seq len \((\d+)\) is larger than the maximum number of tokens that can be stored in KV cache \((\d+)\)`)
	reVLLMV1           = lazyRE(`max seq len \((\d+)\),? \(?` + size + ` KV cache is needed, which is larger than the available KV cache memory \(` + size + `\)`)
	reVLLMEstimated    = lazyRE(`estimated maximum model length is (\d+)`)
	reVLLMStartup      = lazyRE(`Free memory on device \S*?\s*\[?(\w+)?:?(\d+)?\s*\]?\s*\(([\d.]+)/([\d.]+) GiB\) on startup is less than desired GPU memory utilization \(([\d.]+), ([\d.]+) GiB\)`)
)

func fillVLLM(ev *Event, msg string) {
	ev.Framework, ev.Device = "vllm", &Device{Type: "cuda"}
	if m := reVLLMV0.FindStringSubmatch(msg); m != nil {
		ev.MaxModelLen, ev.KVCacheTokens = int64p(m[1]), int64p(m[2])
		ev.Variant = "vllm-v0"
	}
	if m := reVLLMV1.FindStringSubmatch(msg); m != nil {
		ev.MaxModelLen = int64p(m[1])
		requestOf(ev, m[2])
		ev.KVCacheAvailableBytes = sizeOf(m[3])
		ev.Variant = "vllm-v1"
	}
	if m := reVLLMEstimated.FindStringSubmatch(msg); m != nil {
		ev.EstimatedMaxLen = int64p(m[1])
	}
	if m := reVLLMStartup.FindStringSubmatch(msg); m != nil {
		if m[2] != "" {
			ev.Device.Index = intp(m[2])
		}
		ev.FreeBytes = sizeOf(m[3] + " GiB")
		ev.TotalBytes = sizeOf(m[4] + " GiB")
		requestOf(ev, m[6]+" GiB")
		ev.Variant = "vllm-startup"
	}
	if strings.Contains(msg, "No available memory for the cache blocks") {
		ev.Variant = "vllm-no-cache-blocks"
	}
}

// fillTGI reads text-generation-inference's warm-up refusal: "Not enough
// memory to handle 131122 prefill tokens. You need to decrease
// `--max-batch-prefill-tokens`". TGI raises it when the CUDA OOM of its
// start-up prefill batch is caught, so the batch's tokens are all it says.
// The message names no device: TGI runs on CUDA, ROCm and Gaudi alike.
func fillTGI(ev *Event, msg string) {
	ev.Framework, ev.Variant = "tgi", "tgi-warmup"
	if m := reTGITokens.FindStringSubmatch(msg); m != nil {
		ev.PrefillTokens = int64p(m[1])
	}
}

func fillCPU(ev *Event, msg string) {
	ev.Framework, ev.Device = "pytorch", &Device{Type: "cpu"}
	if m := reCPUBytes.FindStringSubmatch(msg); m != nil {
		requestOf(ev, m[1])
	}
	if m := reNumpy.FindStringSubmatch(msg); m != nil {
		ev.Framework = "numpy"
		requestOf(ev, strings.Replace(m[1], ". ", " ", 1))
		for _, d := range strings.Split(m[2], ",") {
			if n, err := strconv.ParseInt(strings.TrimSpace(d), 10, 64); err == nil {
				ev.TensorShape = append(ev.TensorShape, n)
			}
		}
		ev.TensorDType = m[3]
		// the exact size, where the printed one is rounded ("139. MiB" for
		// shape (9131294, 2) float64: 146,100,704 bytes)
		ev.TensorBytes = tensorBytes(ev.TensorShape, m[3])
	}
}

func fillGGML(ev *Event, msg string) {
	ev.Framework = "ggml"
	ev.Device = &Device{Type: "cuda"}
	switch {
	case reGGMLAlloc.MatchString(msg):
		m := reGGMLAlloc.FindStringSubmatch(msg)
		requestOf(ev, m[1])
		ev.Device.Index = intp(m[2])
	case reMegRequest.MatchString(msg):
		ev.Framework = "megengine"
		requestOf(ev, reMegRequest.FindStringSubmatch(msg)[1]+" bytes")
	case reVulkanAlloc.MatchString(msg):
		requestOf(ev, reVulkanAlloc.FindStringSubmatch(msg)[1])
		ev.Device.Type = "vulkan"
	case reMetalGGML.MatchString(msg):
		ev.Kind = KindMPS
		ev.Device.Type = "mps"
		m := reMetalGGML.FindStringSubmatch(msg)
		requestOf(ev, m[1])
		if m[2] != "" {
			// "failed to allocate buffer, size = 40544.00 MiB, max buffer size = 27648.00 MiB"
			ev.MaxAllocationBytes = sizeOf(m[2])
		}
	case reGGMLBuffer.MatchString(msg):
		m := reGGMLBuffer.FindStringSubmatch(msg)
		requestOf(ev, m[2])
		name := m[1]
		if name == "" && strings.Contains(msg, "_cpu_") {
			name = "CPU" // ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer …
		}
		ev.Device = ggmlDevice(name)
	case reGGMLUnable.MatchString(msg):
		ev.Device = ggmlDevice(reGGMLUnable.FindStringSubmatch(msg)[1])
	}
	switch ev.Device.Type {
	case "mps":
		ev.Kind = KindMPS
	case "cpu":
		ev.Kind = KindCPU // a host buffer: RAM, not the GPU
	}
	if m := reMegDevice.FindStringSubmatch(msg); m != nil {
		ev.Device.Index = intp(m[1])
		ev.FreeBytes = sizeOf(m[2])
		ev.TotalBytes = sizeOf(m[3])
	}
	if strings.Contains(msg, "exceeds device memory allocation limit") {
		ev.Hint = "allocation-limit"
	}
}

// ggmlDevice reads a ggml buffer-type name ("CUDA0", "Metal", "Vulkan0").
func ggmlDevice(name string) *Device {
	d := &Device{Type: "cuda"}
	up := strings.ToUpper(name)
	switch {
	case strings.HasPrefix(up, "CUDA"):
		if n := strings.TrimPrefix(up, "CUDA"); n != "" {
			d.Index = intp(n)
		}
	case strings.HasPrefix(up, "METAL"), strings.HasPrefix(up, "MTL"):
		d.Type = "mps"
	case strings.HasPrefix(up, "ROCM"), strings.HasPrefix(up, "HIP"):
		d.Type = "rocm"
	case strings.HasPrefix(up, "CPU"):
		d.Type = "cpu"
	default:
		d.Type = "vulkan"
	}
	return d
}

// fillMetalValidation reads the Metal validation layer's assertion: the
// buffer's length, printed in hexadecimal or decimal bytes, and the
// device's maximum buffer length.
func fillMetalValidation(ev *Event, msg string) {
	ev.Framework, ev.Device, ev.Variant = "metal", &Device{Type: "mps"}, "metal-validation"
	if m := reMetalValidation.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.ParseInt(m[1], 0, 64); err == nil && n > 0 {
			ev.RequestedBytes = &n
		}
		ev.MaxAllocationBytes = sizeOf(m[2])
	}
}

// fillGGMLMetalBuffer reads llama.cpp's Metal buffer check: the buffer's
// name, its size and the device's maximum buffer length, in bytes.
func fillGGMLMetalBuffer(ev *Event, msg string) {
	ev.Framework, ev.Device, ev.Variant = "ggml", &Device{Type: "mps"}, "ggml-metal-buffer"
	if m := reGGMLMetalBuffer.FindStringSubmatch(msg); m != nil {
		overMax(ev, m[2], m[3])
	}
}

// fillMetal reads MLX's Metal allocator: a buffer above Metal's maximum
// length ("[metal::malloc] Attempting to allocate N bytes which is greater
// than the maximum allowed buffer size of M bytes"), or a request past
// MLX's own memory limit once the scheduled work has drained
// ("[malloc_or_wait] Unable to allocate N bytes.", "[malloc] …" in current
// MLX; variant "mlx-memory-limit").
func fillMetal(ev *Event, msg string) {
	ev.Framework, ev.Device, ev.Variant = "mlx", &Device{Type: "mps"}, "metal"
	if m := reMLXMemoryLimit.FindStringSubmatch(msg); m != nil {
		ev.Variant, ev.RequestedBytes = VariantMLXMemoryLimit, sizeOf(m[1])
		return
	}
	if m := reMetalMalloc.FindStringSubmatch(msg); m != nil {
		requestOf(ev, m[1])
		if m[2] != "" {
			ev.MaxAllocationBytes = sizeOf(m[2])
		}
	}
}

// fillCacheBudget reads a serving engine's refusal of a cache budget too
// small for its minimum plan: what the plan needs is the request.
func fillCacheBudget(ev *Event, msg string) {
	ev.Variant = "cache-budget-too-small"
	if m := reGenericExc.FindStringSubmatch(msg); m != nil {
		ev.Exception = Optional(m[1])
	}
	if m := reCacheBudgetNeeds.FindStringSubmatch(msg); m != nil {
		requestOf(ev, m[1]+" bytes")
	}
}
