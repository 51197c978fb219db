package parser

import (
	"strings"
)

// Message families of native runtimes and toolkits that raise their own
// out-of-memory errors outside the PyTorch/TF/JAX allocators. Each pattern
// carries a real line it reads.
var (
	// "Failed to CUDA calloc 8388608 bytes" (NCCL's own cudaMalloc, after
	// "ncclUnhandledCudaError: Call to CUDA function failed.")
	reNCCLAlloc = lazyRE(`Failed to CUDA (?:calloc|malloc|host alloc|hostAlloc|mallocAsync)(?: async)? (\d+) bytes`)
	// "Out of memory error on GPU 0. Cannot allocate 18.062744MB memory on GPU 0,
	// available memory is only 17.537501MB." (PaddlePaddle 2.x; newer releases
	// add "N memory has been allocated and" before "available")
	rePaddle = lazyRE(`Out of memory error on (GPU|XPU|NPU|MLU|CPU)\s*(\d+)\.(?:\s*Cannot allocate (\S+) memory on \w+ \d+,(?: (\S+) memory has been allocated and)? available memory is only (\S+?)\.?(?:\s|$))?`)
	// "model requires more system memory (164.8 GiB) than is available (13.4 GiB)" (Ollama)
	reOllama = lazyRE(`model requires more (system|GPU|gpu)? ?memory \(([^)]+)\) than is available \(([^)]+)\)`)
	// "vkAllocateMemory failed -2" (ncnn: VK_ERROR_OUT_OF_DEVICE_MEMORY = -2,
	// VK_ERROR_OUT_OF_HOST_MEMORY = -1)
	reVulkanFailed = lazyRE(`\b(vk[A-Z]\w*) failed (-[12])\b`)
	// "TT_FATAL: Out of Memory: Not enough space to allocate 167,772,160 B DRAM
	// buffer across 12 banks (allocated: 1,016,636,448 B, free: 55,185,344 B,
	// largest free block: 8,713,184 B)" (Tenstorrent tt-metal)
	reTTAlloc = lazyRE(`Not enough space to allocate ([\d,]+ ?B) (\w+)`)
	reTTField = lazyRE(`(allocated|free|largest free block): ([\d,]+ ?B)\b`)
	// "Buffer overflow when allocating memory for batch_prefill_tmp_v with
	// size 536346624 and alignment 16, but only 413138944 bytes available
	// in AlignedAllocator. Increase the workspace buffer size." (FlashInfer's
	// workspace allocator, under vLLM and SGLang; printed over four lines)
	reFlashInfer = lazyRE(`Buffer overflow when allocating memory for (\S+)\s+with size (\d+) and alignment \d+,\s*but only (\d+) bytes available`)
	// "[MPSNDArray initWithDevice:descriptor:] Error: total bytes of NDArray > 2**32"
	reMPSNDArray = lazyRE(`total bytes of NDArray > 2\*\*(\d+)`)
	// "Current platform can NOT allocate memory block with size larger than 4GB!" (IPEX)
	reXPULimit = lazyRE(`can NOT allocate memory block with size larger than (\d+ ?[KMGT]i?B)`)
	// "[1]    9301 killed     python3 scripts/dream.py" (zsh job control),
	// "[1]+  Killed                  python train.py" (bash)
	reJobKilled = lazyRE(`^[\]|%]?\s?\[\d+\]\s*[+-]?\s+(?:(\d+)\s+)?(?:killed|Killed)\s+(\S.*)$`)
	// "RuntimeError: Invalid buffer size: 12.00 GB" (PyTorch MPS)
	reMPSInvalidBuffer = lazyRE(`Invalid buffer size: (\d+(?:\.\d+)?\s?(?:[KMGTPE]i?B|bytes))`)
	// "tcmalloc: large alloc 24180850688 bytes == (nil) @ …" (nil: the allocation failed)
	reTcmalloc = lazyRE(`tcmalloc: large alloc (\d+) bytes`)
	// "ResourceExhaustedError: Fail to alloc memory of 564023296 size, error
	// code is 12." (PaddlePaddle's host allocators: posix_memalign's status,
	// 12 is ENOMEM)
	rePaddleHostAlloc = lazyRE(`Fail to alloc memory of (\d+) size`)
	// "Out of memory on device. To view more detail about available memory
	// on the GPU, use 'gpuDevice()'." (MATLAB's Parallel Computing Toolbox,
	// under "Error using vl_nnconv" or "Error using gpuArray/max")
	reMATLABDevice = lazyRE(`Out of memory on device\. To view more detail about available memory on the GPU`)
	// "mkl_malloc: failed to allocate memory" (Intel MKL's allocator, as
	// CTranslate2 raises it on the CPU)
	reMKLMalloc = lazyRE(`\bmkl_malloc: failed to allocate memory`)
	// "Due to the driver bug any subsequent OpenCL API call will cause
	// application hang, so GPU plugin can't finish correctly. Please try to
	// update the driver or reduce memory consumption (…)to avoid
	// CL_OUT_OF_RESOURCES exception" (OpenVINO's GPU plugin after the
	// OpenCL driver ran out of resources)
	reOpenVINOResources = lazyRE(`GPU plugin can't finish correctly\..*CL_OUT_OF_RESOURCES`)
	// "[GPU] Exceeded max size of memory object allocation: requested
	// 11271610368 bytes, but max alloc size supported by device is
	// 4294959104 bytes." (OpenVINO's GPU plugin, after its check
	// '!exceed_allocatable_mem_size' failed)
	reOpenVINOMaxAlloc = lazyRE(`Exceeded max size of memory object allocation(?:: [Rr]equested (\d+) bytes,? but max alloc size (?:supported by device )?is (\d+) bytes)?`)
	// "Could not allocate tensor with 58982400 bytes. There is not enough
	// GPU video memory available!" (torch-directml)
	reDirectML        = lazyRE(`(?:Could not allocate tensor with (\d+) bytes\. )?There is not enough GPU video memory available`)
	reWebGPUMaxBuffer = lazyRE(`Buffer size \((\d+)\) exceeds the max buffer size limit \((\d+)\)`)
	reJuliaCUDA       = lazyRE(`Out of GPU memory trying to allocate ` + size)
	reJuliaUsage      = lazyRE(`Effective GPU memory usage: [\d.]+% \(` + size + `\s*/\s*` + size + `\)`)
	// "radv/amdgpu: Not enough memory for command submission." (Mesa's
	// amdgpu winsys: the kernel refused a command submission for memory;
	// the device is lost next)
	reAMDGPUSubmit = lazyRE(`(?:(radv)/)?amdgpu: Not enough memory for command submission`)
)

// nativeMatchers are the families of native runtimes, tried after the
// framework allocators and before the generic device-runtime forms.
func nativeMatchers() []failureMatcher {
	return []failureMatcher{
		{
			// WebGPU (Dawn, in Chrome and WebLLM) refusing a buffer above the
			// device's limit: "Buffer size (870585948) exceeds the max buffer
			// size limit (536870912)."
			name:    "webgpu-max-buffer",
			anchors: []string{"exceeds the max buffer size limit"},
			locate:  reWebGPUMaxBuffer,
			kind:    KindGeneric,
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Device, ev.Variant = "webgpu", &Device{Type: "webgpu"}, "webgpu-max-buffer"
				if m := reWebGPUMaxBuffer.FindStringSubmatch(msg); m != nil {
					overMax(ev, m[1], m[2])
				}
			},
		},
		{
			// Julia's CUDA.jl: "ERROR: Out of GPU memory trying to allocate
			// 8.016 MiB", then "Effective GPU memory usage: 91.54% (14.446
			// GiB/15.782 GiB)" and the allocator's own lines
			name:    "julia-cuda",
			anchors: []string{"Out of GPU memory trying to allocate"},
			locate:  reJuliaCUDA,
			kind:    KindCUDARuntime,
			more:    func(msg string) bool { return !strings.Contains(msg, "Effective GPU memory usage") },
			cont: func(next string) bool {
				t := strings.TrimSpace(next)
				return strings.HasPrefix(t, "Effective GPU memory usage") || strings.HasPrefix(t, "Memory pool usage") || strings.HasPrefix(t, "CUDA allocator usage")
			},
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Device, ev.Variant = "julia", &Device{Type: "cuda"}, "julia-cuda"
				if m := reJuliaCUDA.FindStringSubmatch(msg); m != nil {
					requestOf(ev, m[1])
				}
				if m := reJuliaUsage.FindStringSubmatch(msg); m != nil {
					ev.TotalBytes = sizeOf(m[2])
					if used, total := sizeOf(m[1]), ev.TotalBytes; used != nil && total != nil && *total >= *used {
						free := *total - *used
						ev.FreeBytes = &free
					}
				}
			},
		},
		{
			// Unreal Engine's "Out of video memory trying to allocate a
			// texture! Make sure your video card has the minimum required
			// memory, try lowering the resolution and/or closing other
			// applications that are running. Exiting..." (its advice is part
			// of the fatal message)
			name:    "unreal-video-memory",
			anchors: []string{"Out of video memory trying to allocate"},
			locate:  lazyRE(`Out of video memory trying to allocate (?:a |the )?\w+`),
			kind:    KindGeneric,
			fill:    tag("unreal", "gpu", "unreal-video-memory"),
		},
		{
			// torch-directml's allocator: "Could not allocate tensor with
			// 58982400 bytes. There is not enough GPU video memory
			// available!" — a failure in its own words, with no level or
			// exception class on the line.
			name:    "directml-video-memory",
			anchors: []string{"not enough GPU video memory"},
			locate:  reDirectML,
			kind:    KindGeneric,
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Device, ev.Variant = "directml", &Device{Type: "directml"}, VariantDirectML
				if m := reDirectML.FindStringSubmatch(msg); m != nil && m[1] != "" {
					requestOf(ev, m[1]+" bytes")
				}
			},
		},
		{
			name:    "nccl-alloc",
			anchors: []string{"Failed to CUDA "},
			locate:  reNCCLAlloc,
			kind:    KindNCCL,
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Device = "nccl", &Device{Type: "cuda"}
				requestOf(ev, reNCCLAlloc.FindStringSubmatch(msg)[1])
			},
		},
		{
			name:    "paddle",
			anchors: []string{"Out of memory error on"},
			locate:  rePaddle,
			kind:    KindPaddle,
			fill:    fillPaddle,
		},
		{
			// PaddlePaddle 1.x's device-memory check in gpu_info.cc:
			// "paddle.fluid.core.EnforceNotMet: enforce allocating <= available
			// failed, 10513462067 > 1369702144", and from 1.5 "Enforce failed.
			// Expected allocating <= available, but received
			// allocating:10513462067 > available:1369702144."
			name:    "paddle-1x-enforce",
			anchors: []string{"allocating <= available"},
			locate:  rePaddleEnforce,
			kind:    KindPaddle,
			fill:    fillPaddleEnforce,
		},
		{
			name:    "paddle-host-alloc",
			anchors: []string{"Fail to alloc memory of"},
			locate:  rePaddleHostAlloc,
			kind:    KindCPU,
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Device, ev.Variant = "paddlepaddle", &Device{Type: "cpu"}, "paddle-host-alloc"
				requestOf(ev, rePaddleHostAlloc.FindStringSubmatch(msg)[1])
			},
		},
		{
			name:    "matlab-gpu",
			anchors: []string{"Out of memory on device. To view more detail"},
			locate:  reMATLABDevice,
			kind:    KindGeneric,
			fill:    tag("matlab", "cuda", "matlab-gpu"), // MATLAB's GPU arrays are CUDA's
		},
		{
			name:    "mkl-malloc",
			anchors: []string{"mkl_malloc: failed to allocate memory"},
			locate:  reMKLMalloc,
			kind:    KindCPU,
			fill:    tag("mkl", "cpu", "mkl-malloc"),
		},
		{
			name:    "openvino-gpu-resources",
			anchors: []string{"or reduce memory consumption"},
			locate:  reOpenVINOResources,
			kind:    KindGeneric,
			fill:    tag("openvino", "gpu", "openvino-cl-out-of-resources"),
		},
		{
			// OpenVINO's GPU plugin refusing one buffer above the device's
			// per-allocation maximum: "[GPU] Exceeded max size of memory
			// object allocation: requested 11271610368 bytes, but max alloc
			// size supported by device is 4294959104 bytes."
			name:    "openvino-max-alloc",
			anchors: []string{"Exceeded max size of memory object allocation"},
			locate:  reOpenVINOMaxAlloc,
			kind:    KindGeneric,
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Device, ev.Variant, ev.Hint = "openvino", &Device{Type: "gpu"}, "openvino-max-alloc", "allocation-limit"
				if m := reOpenVINOMaxAlloc.FindStringSubmatch(msg); m != nil && m[1] != "" {
					overMax(ev, m[1], m[2])
				}
			},
		},
		{
			name:    "amdgpu-command-submission",
			anchors: []string{"enough memory for command submission"},
			locate:  reAMDGPUSubmit,
			kind:    KindGeneric,
			fill: func(ev *Event, msg string) {
				ev.Device, ev.Variant = &Device{Type: "gpu"}, "amdgpu-command-submission"
				if m := reAMDGPUSubmit.FindStringSubmatch(msg); m != nil && m[1] != "" {
					ev.Device.Type = "vulkan" // radv is Mesa's Vulkan driver
				}
			},
		},
		{
			name:    "ollama-memory-check",
			anchors: []string{"memory ("},
			locate:  reOllama,
			kind:    KindCPU,
			fill: func(ev *Event, msg string) {
				m := reOllama.FindStringSubmatch(msg)
				ev.Framework, ev.Variant = "ollama", "ollama-memory-check"
				ev.Device = &Device{Type: "cpu"}
				if strings.EqualFold(m[1], "gpu") {
					ev.Kind, ev.Device.Type = KindCUDARuntime, "cuda"
				}
				ev.RequiredBytes, ev.AvailableBytes = sizeOf(m[2]), sizeOf(m[3])
			},
		},
		{
			name:    "vulkan",
			anchors: []string{"Memory failed -", "OUT_OF_DEVICE_MEMORY", "OUT_OF_HOST_MEMORY", "ErrorOutOfDeviceMemory", "ErrorOutOfHostMemory"},
			locate:  lazyRE(`\bvk[A-Z]\w*Memory failed -[12]\b|(?:\b[A-Z][^:]{0,120}: )?(?:VK_ERROR_OUT_OF_(?:DEVICE|HOST)_MEMORY|ErrorOutOf(?:Device|Host)Memory)`),
			kind:    KindCUDARuntime,
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Device = "vulkan", &Device{Type: "vulkan"}
				if m := reVulkanFailed.FindStringSubmatch(msg); m != nil {
					ev.Framework = "ncnn" // ncnn prints "vkAllocateMemory failed -2"
					if m[2] == "-1" {
						ev.Device.Type = "cpu" // VK_ERROR_OUT_OF_HOST_MEMORY
					}
				}
				if strings.Contains(msg, "HOST_MEMORY") || strings.Contains(msg, "OutOfHostMemory") {
					ev.Device.Type = "cpu"
				}
				if strings.Contains(msg, "exceeds device memory allocation limit") {
					ev.Hint = "allocation-limit"
				}
			},
		},
		{
			// FlashInfer's fixed workspace (vLLM's and SGLang's attention
			// backend) cannot hold a kernel's temporary buffer: the
			// workspace, not the device, is full.
			name:    "flashinfer-workspace",
			anchors: []string{"Buffer overflow when allocating memory for"},
			locate:  lazyRE(`Buffer overflow when allocating memory for`),
			kind:    KindGeneric,
			more: func(msg string) bool {
				return !strings.Contains(msg, "workspace buffer size") && len(msg) < 600
			},
			cont: func(next string) bool { return strings.HasPrefix(next, " ") || strings.HasPrefix(next, "Increase") },
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Device, ev.Variant = "flashinfer", &Device{Type: "cuda"}, VariantFlashInferWorkspace
				if m := reFlashInfer.FindStringSubmatch(msg); m != nil {
					requestOf(ev, m[2])
				}
			},
		},
		{
			// DeepSpeed inference's workspace check, raised when the memory
			// free after the weights is under the workspace's minimum:
			// "RuntimeError: Workspace can't be allocated, no enough
			// memory." (It prints "Requested:\t…\nFree:\t…\nTotal:\t…"
			// first; anchoring those lines would cost the prefilter a pass
			// of its own, so a paste cut before the error is not read.)
			name:    "deepspeed-inference-workspace",
			anchors: []string{"no enough memory"},
			locate:  lazyRE(`Workspace can't be allocated, no enough memory`),
			kind:    KindGeneric,
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Device, ev.Variant = "deepspeed", &Device{Type: "cuda"}, VariantDeepSpeedWorkspace
			},
		},
		{
			name:    "tt-metal",
			anchors: []string{"Not enough space to allocate"},
			locate:  lazyRE(`(?:TT_FATAL: )?(?:Out of Memory: )?Not enough space to allocate`),
			kind:    KindGeneric,
			more: func(msg string) bool {
				return !strings.Contains(msg, ")") && len(msg) < 600
			},
			fill: fillTT,
		},
		{
			name:    "mps-ndarray-limit",
			anchors: []string{"MPSNDArray"},
			locate:  lazyRE(`\S*MPSNDArray\.mm:\d+: failed assertion|\[MPSNDArray initWithDevice:descriptor:\] Error:`),
			kind:    KindMPS,
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Device, ev.Variant = "pytorch", &Device{Type: "mps"}, "mps-ndarray-limit"
				ev.Hint = "allocation-limit"
				if m := reMPSNDArray.FindStringSubmatch(msg); m != nil {
					if n := int64p(m[1]); n != nil && *n < 62 {
						v := int64(1) << *n
						ev.MaxAllocationBytes = &v
					}
				}
			},
		},
		{
			name:    "ggml-context",
			anchors: []string{"mem_buffer != NULL"},
			locate:  lazyRE(`GGML_ASSERT: \S+ ctx->mem_buffer != NULL`),
			kind:    KindCPU,
			fill:    tag("ggml", "cpu", "ggml-context-malloc"),
		},
		{
			// transformers refusing to load a bitsandbytes model that does not
			// fit: "ValueError: Some modules are dispatched on the CPU or the
			// disk. Make sure you have enough GPU RAM to fit the quantized model."
			name:    "bnb-quantized-fit",
			anchors: []string{"enough GPU RAM to fit"},
			locate:  lazyRE(`(?:Some modules are dispatched on the CPU or the disk\. )?Make sure you have enough GPU RAM to fit`),
			kind:    KindGeneric,
			more:    func(msg string) bool { return !strings.Contains(msg, "quantized model") },
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Variant = "transformers", "bnb-quantized-fit"
				ev.Device = &Device{Type: "cuda"}
			},
		},
		{
			// "RuntimeError: Invalid buffer size: 12.00 GB" (PyTorch MPS: one
			// buffer above Metal's maximum buffer length)
			name:    "mps-invalid-buffer",
			anchors: []string{"Invalid buffer size:"},
			locate:  reMPSInvalidBuffer,
			kind:    KindMPS,
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Device, ev.Variant, ev.Hint = "pytorch", &Device{Type: "mps"}, "mps-invalid-buffer", "allocation-limit"
				requestOf(ev, reMPSInvalidBuffer.FindStringSubmatch(msg)[1])
			},
		},
		{
			// "ERROR: Unexpected bus error encountered in worker. This might be
			// caused by insufficient shared memory (shm)." (PyTorch DataLoader)
			name:    "dataloader-shm",
			anchors: []string{"insufficient shared memory"},
			locate:  lazyRE(`(?:ERROR: )?Unexpected bus error encountered in worker\. This might be caused by insufficient shared memory|insufficient shared memory \(shm\)`),
			kind:    KindHostKill,
			fill: func(ev *Event, msg string) {
				ev.Device, ev.Signal, ev.Variant = &Device{Type: "cpu"}, "Bus error", "dataloader-shm"
			},
		},
		{
			// "OSError: [Errno 12] Cannot allocate memory", "bash: fork: Cannot
			// allocate memory": the kernel refused host memory (ENOMEM)
			name:    "enomem",
			anchors: []string{"Cannot allocate memory", "cannot allocate memory", "ENOMEM"},
			locate:  lazyRE(`(?:\[Errno 12\] |fork: )?[Cc]annot allocate memory|\bENOMEM\b`),
			// the dynamic loader's static TLS block is full (a preloaded
			// libgomp on a Jetson): no memory ran out
			not:  lazyRE(`cannot allocate memory in static TLS block`),
			kind: KindCPU,
			fill: tag("", "cpu", "enomem"),
		},
		{
			// Torch7's (Lua) host allocator: "$ Torch: not enough memory: you
			// tried to allocate 845GB. Buy new RAM! at …/TH/THGeneral.c:270",
			// "… you tried to reallocate 11GB."
			name:    "torch7-host",
			anchors: []string{"not enough memory: you tried to"},
			locate:  reTorch7Host,
			kind:    KindCPU,
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Device, ev.Variant = "torch7", &Device{Type: "cpu"}, "torch7-host"
				if m := reTorch7Host.FindStringSubmatch(msg); m != nil {
					requestOf(ev, m[1])
				}
			},
		},
		{
			// a Python traceback ending in a bare "MemoryError" (host memory)
			name:    "python-memoryerror",
			anchors: []string{"MemoryError"},
			locate:  lazyRE(`^\s*(?:[\w.]+\.)?MemoryError\s*:?\s*$`),
			kind:    KindCPU,
			fill:    tag("python", "cpu", "python-memoryerror"),
		},
		{
			name:    "tcmalloc-large-alloc",
			anchors: []string{"tcmalloc: large alloc"},
			locate:  reTcmalloc,
			kind:    KindCPU,
			fill: func(ev *Event, msg string) {
				ev.Device, ev.Variant = &Device{Type: "cpu"}, "tcmalloc-large-alloc"
				requestOf(ev, reTcmalloc.FindStringSubmatch(msg)[1])
				// "== 0x5581…" is an allocation that succeeded: only a log that
				// ends right after it (the kernel killed the process) makes it
				// the failure. "== (nil)" is the failure itself.
				ev.tentative = !strings.Contains(msg, "(nil)")
				ev.Suspected = ev.tentative
			},
		},
	}
}

// rePaddleEnforce reads both forms of PaddlePaddle 1.x's device-memory
// check: the request, then what was available, in bytes.
var rePaddleEnforce = lazyRE(`(?:enforce allocating <= available failed, (\d+) > (\d+)|Expected allocating <= available, but received allocating:(\d+) > available:(\d+))`)

// fillPaddleEnforce reads the request and the free bytes of the 1.x check,
// which gpu_info.cc makes on the CUDA device.
// tag is the fill of a family whose message carries no figures: it names
// the framework, the device type and the variant.
func tag(framework, device, variant string) func(*Event, string) {
	return func(ev *Event, _ string) {
		ev.Framework, ev.Device, ev.Variant = framework, &Device{Type: device}, variant
	}
}

func fillPaddleEnforce(ev *Event, msg string) {
	ev.Framework, ev.Device = "paddlepaddle", &Device{Type: "cuda"}
	m := rePaddleEnforce.FindStringSubmatch(msg)
	if m == nil {
		return
	}
	req, free := m[1], m[2]
	if req == "" {
		req, free = m[3], m[4]
	}
	ev.RequestedBytes, ev.FreeBytes = sizeOf(req), sizeOf(free)
}

func fillPaddle(ev *Event, msg string) {
	ev.Framework = "paddlepaddle"
	m := rePaddle.FindStringSubmatch(msg)
	if m == nil {
		return
	}
	ev.Device = &Device{Type: strings.ToLower(m[1]), Index: intp(m[2])}
	if ev.Device.Type == "gpu" {
		ev.Device.Type = "cuda"
	}
	if m[3] != "" {
		requestOf(ev, m[3])
		ev.FreeBytes = sizeOf(m[5])
	} else {
		ev.Truncated = true
	}
	if m[4] != "" {
		ev.AllocatedBytes = sizeOf(m[4])
	}
}

func fillTT(ev *Event, msg string) {
	ev.Framework, ev.Device, ev.Variant = "tt-metal", &Device{Type: "tenstorrent"}, "tt-metal-bank-allocator"
	if m := reTTAlloc.FindStringSubmatch(msg); m != nil {
		requestOf(ev, m[1])
	}
	for _, m := range reTTField.FindAllStringSubmatch(msg, 3) {
		v := sizeOf(m[2])
		switch m[1] {
		case "allocated":
			ev.AllocatedBytes = v
		case "free":
			ev.FreeBytes = v
		default:
			ev.LargestFreeBytes = v
		}
	}
	if !strings.Contains(msg, ")") {
		ev.Truncated = true
	}
}

// reTorch7Host reads Torch7's refused host allocation and its size.
var reTorch7Host = lazyRE(`Torch: not enough memory: you tried to (?:re)?allocate (\d+(?:\.\d+)?\s?[KMGTP]?B)`)
