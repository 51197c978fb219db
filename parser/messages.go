package parser

import (
	"strconv"
	"strings"
)

// A failureMatcher recognises one family of memory-failure messages
// (research/formats.md §1–5). Matchers are tried in order on each candidate
// line; the first whose anchor and locator match owns the line.
type failureMatcher struct {
	name    string
	anchors []string // the line must contain one of these (cheap test first)
	locate  finder   // finds where the failure's text starts
	kind    string
	// more reports whether msg, as read so far, continues on the next line.
	more func(msg string) bool
	// cont reports whether a following line belongs to the message; nil
	// means the default test for hard-wrapped prose (isContinuation).
	cont func(next string) bool
	// contMsg, when set, replaces cont with a test that also sees the
	// message read so far.
	contMsg func(msg, next string) bool
	// closes says that the message ends with a known last clause: one
	// that ends while more still asks for a line is truncated.
	closes bool
	// judge, when set, decides whether a located line is a failure and
	// names the words that made it one (the generic tier); prefix is the
	// line's stripped logger and launcher tags.
	judge func(text, prefix string) ([]string, bool)
	// not, when set, names the lines locate finds that are no failure of
	// this family: its own known false positives ("libgomp.so.1: cannot
	// allocate memory in static TLS block" is the loader's, not ENOMEM's)
	not  *lazyRegexp
	fill func(ev *Event, msg string)
}

// A finder locates a failure's text in a line: a *regexp.Regexp, or a
// *lazyRegexp compiled on first use.
type finder interface {
	FindStringIndex(s string) []int
}

const size = `(\d+(?:\.\d+)?\s?(?:bytes|KiB|MiB|GiB|TiB|PiB|EiB|KB|MB|GB|TB|PB|EB|kB|B|K|M|G|T)?)`

// Clause patterns of the PyTorch caching allocator message, every era.
var (
	reAsyncDevice   = lazyRE(`Allocation on device(?: (\d+))?`)
	reAsyncField    = lazyRE(`(Currently allocated|Requested|Device limit|Free \(according to CUDA\)|PyTorch limit \(set by user-supplied memory fraction\))\s*:\s*` + size)
	reXLABytes      = lazyRE(`(?:trying to allocate|allocating) (\d+(?:\.\d+)?\s?(?:bytes|[KMGTPE]iB|B)?)`)
	reXLARequest    = lazyRE(`Failed to allocate request for ` + size + ` \((\d+)B\) on device ordinal (\d+)`)
	reXLAFromDevice = lazyRE(`failed to allocate ` + size + ` \((\d+) bytes\) from device`)
	// a TPU program's reservation: "RESOURCE_EXHAUSTED: Attempting to
	// reserve 6.48G at the bottom of memory. That was not possible. There
	// are 6.78G free, 0B reserved, and 3.33G reservable."
	reXLAReserve = lazyRE(`Attempting to reserve (\d+(?:\.\d+)?[KMGTP]?i?B?) at the (?:bottom|top) of memory\. That was not possible\.(?: There are (\d+(?:\.\d+)?[KMGTP]?i?B?) free)?`)
	// "DataLoader worker (pid 1817) is killed by signal: Killed.", "DataLoader
	// worker (pid 8102) is killed by signal: Terminated.", PaddlePaddle's
	// "DataLoader process (pid 3063) exited is killed by signal: Killed"
	reDataLoaderKill = lazyRE(`DataLoader (worker|process) \(pid(?:\(s\))? (\d+)[\d, ]*\) (?:exited )?is killed by signal: ([A-Za-z][A-Za-z ]*[A-Za-z])`)
)

// reTFHandleMemory is the device memory TensorFlow logs after a cuDNN
// handle it could not create.
var reTFHandleMemory = lazyRE(`Memory usage: (\d+) bytes free, (\d+) bytes total`)

// reRMM is RAPIDS' allocation failure, with the request when it says it.
var reRMM = lazyRE(`std::bad_alloc: out_of_memory(?:: CUDA error \(failed to allocate (\d+) bytes\))?`)

// failureMatchers lists the message families in the order they are tried.
// Specific forms come before generic ones that would also match them.
func failureMatchers() []failureMatcher {
	var ms []failureMatcher
	ms = append(ms, cupyMatchers()...)
	ms = append(ms, frameworkMatchers()...)
	ms = append(ms, nativeMatchers()...)
	ms = append(ms, windowsMatchers()...)
	ms = append(ms, runtimeMatchers()...)
	ms = append(ms, reshapedMatchers()...)
	return append(ms, genericMatcher())
}

// frameworkMatchers are the framework allocators' own messages.
func frameworkMatchers() []failureMatcher {
	return []failureMatcher{
		{
			name:    "mps",
			closes:  true,
			anchors: []string{"MPS backend out of memory"},
			locate:  lazyRE(`MPS backend out of memory`),
			kind:    KindMPS,
			more: func(msg string) bool {
				return !strings.Contains(msg, "Tried to allocate") || !strings.Contains(msg, " pool")
			},
			fill: fillMPS,
		},
		{
			name:    "torch-allocator",
			closes:  true,
			anchors: []string{"Tried to allocate"},
			locate:  lazyRE(`(?:Current platform can NOT allocate memory block with size larger than \w+! |\b\w+ out of memory\. )?Tried to allocate`),
			more:    torchMore,
			fill:    fillTorch,
		},
		{
			// PyTorch's caching allocator with expandable segments when the
			// driver refuses to map more of a segment: "[W831 10:32:25.2550
			// CUDACachingAllocator.cpp:508] expandable_segments: memory
			// mapping failed with OOM on device 0 while trying to map
			// 20971520 bytes (free: 15663104, total: 33671348224)." The
			// allocator then frees its cache and retries; a failure that
			// follows is its own event.
			name:    "torch-expandable-map",
			anchors: []string{"memory mapping failed with OOM"},
			locate:  reExpandableMap,
			kind:    KindCUDA,
			fill:    fillExpandableMap,
		},
		{
			name:    "torch-cudamallocasync",
			closes:  true,
			anchors: []string{"Allocation on device"},
			locate:  reAsyncDevice,
			kind:    KindCUDA,
			more: func(msg string) bool {
				return !strings.Contains(msg, "PyTorch limit") || !reAsyncField.MatchString(msg[strings.Index(msg, "PyTorch limit"):])
			},
			cont: func(next string) bool {
				t := strings.TrimSpace(next)
				return t != "" && (reAsyncField.MatchString(t) || strings.HasPrefix(t, ":") || strings.HasPrefix(t, "PyTorch limit") || strings.HasPrefix(t, "Currently allocated") || strings.HasPrefix(t, "Requested") || strings.HasPrefix(t, "Device limit") || strings.HasPrefix(t, "Free (according"))
			},
			fill: fillAsync,
		},
		{
			name:    "mlx-metal",
			anchors: []string{"[metal::malloc]", "[malloc_or_wait]", "[malloc] Unable", "Insufficient Memory", "kIOGPUCommandBufferCallbackErrorOutOfMemory", "maximum allowed buffer size"},
			locate:  lazyRE(`\[metal::malloc\]|\[malloc(?:_or_wait)?\] Unable to allocate \d+ bytes|Attempting to allocate \d+ bytes which is greater than the maximum allowed buffer size|\[METAL\].*Insufficient Memory|Insufficient Memory \(00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory\)`),
			kind:    KindMPS,
			more: func(msg string) bool {
				return strings.Contains(msg, "Attempting to allocate") && strings.Contains(msg, "which is") && !strings.HasSuffix(strings.TrimSpace(msg), "bytes.")
			},
			fill: fillMetal,
		},
		{
			// Metal's API validation layer (MTLDebugDevice) asserting on a
			// buffer longer than the device's maximum:
			// "newBufferWith*:length 0x6692c000 must not exceed 1024 MB."
			name:    "metal-validation",
			anchors: []string{"must not exceed"},
			locate:  reMetalValidation,
			kind:    KindMPS,
			fill:    fillMetalValidation,
		},
		{
			// llama.cpp's Metal backend refusing one buffer above the
			// device's maximum buffer length: "ggml_metal_add_buffer: buffer
			// 'data' size 18300780544 is larger than buffer maximum of
			// 17179869184"
			name:    "ggml-metal-buffer",
			anchors: []string{"larger than buffer maximum"},
			locate:  reGGMLMetalBuffer,
			kind:    KindMPS,
			fill:    fillGGMLMetalBuffer,
		},
		{
			// TensorFlow 1.x's copy into a device tensor whose allocation
			// failed: "InternalError (see above for traceback): Dst tensor
			// is not initialized." — the GPU ran out of memory for it (a
			// suspected memory failure: the message does not say so). Only
			// the graph-mode form is read: its anchor shares the pass on
			// "(", and TensorFlow 2's bare "InternalError: Dst tensor …"
			// would need a pass of its own.
			name:    "tf-dst-tensor",
			anchors: []string{"(see above for traceback): Dst tensor is not initialized"},
			locate:  lazyRE(`Dst tensor is not initialized`),
			kind:    KindTF,
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Variant, ev.Suspected = "tensorflow", "tf-dst-tensor", true
				ev.Device = &Device{Type: "cuda"}
			},
		},
		{
			name:    "tensorflow",
			anchors: []string{"OOM when allocating", "ran out of memory trying to allocate", "Ran out of memory trying to allocate"},
			locate:  lazyRE(`OOM when allocating|Allocator \(\w+\) ran out of memory trying to allocate \S+ \(rounded|Ran out of memory trying`),
			// "Ran out of memory trying to allocate 1.24GiB. The caller
			// indicates that this is not a failure, but may mean that there
			// could be performance gains if more memory is available." (the
			// BFC allocator, for a request its caller falls back from)
			not:  lazyRE(`The caller indicates that this is not a failure`),
			kind: KindTF,
			// graph mode names the op on the next line: "\t [[{{node model/conv2d/Conv2D}}]]"
			// (a wrap can cut that node line too: it is read to its "]]")
			more: func(msg string) bool {
				return strings.Contains(msg, "OOM when allocating") && (!strings.Contains(msg, "[[") || !strings.Contains(msg, "]]"))
			},
			contMsg: func(msg, next string) bool {
				if strings.Contains(msg, "[[") {
					return isContinuation(next)
				}
				return strings.HasPrefix(strings.TrimSpace(next), "[[")
			},
			fill: fillTF,
		},
		{
			name:    "xla",
			anchors: []string{"RESOURCE_EXHAUSTED", "Resource exhausted", "Out of memory allocating", "Failed to allocate request for", "from device: CUDA_ERROR_OUT_OF_MEMORY", "from device: HIP_ERROR_OutOfMemory", "bytes) from device", "Ran out of memory in memory space"},
			locate:  lazyRE(`(?:OP_REQUIRES failed at \S+ : )?RESOURCE_EXHAUSTED|Resource exhausted|Out of memory allocating|Failed to allocate request for|failed to allocate \S+ \(\d+ bytes\) from device|XLA:TPU compile permanent error`),
			kind:    KindXLA,
			more: func(msg string) bool {
				return !reXLABytes.MatchString(msg) && !reXLARequest.MatchString(msg) && !reXLAFromDevice.MatchString(msg) && !reXLAReserve.MatchString(msg) && !strings.Contains(msg, "hbm")
			},
			fill: fillXLA,
		},
		{
			name:    "vllm",
			anchors: []string{"No available memory for the cache blocks", "stored in KV cache", "KV cache is needed", "on startup is less than desired GPU memory utilization"},
			locate:  lazyRE(`No available memory for the cache blocks|The model's max seq len|To serve at least one request|Free memory on device`),
			kind:    KindServing,
			fill:    fillVLLM,
		},
		{
			// vLLM's memory profile leaving nothing for the KV cache: "model
			// weights take 5.20GiB; non_torch_memory takes 0.03GiB; PyTorch
			// activation peak memory takes 1.42GiB; the rest of the memory
			// reserved for KV Cache is -1.05GiB." It is logged at INFO just
			// before vLLM raises "No available memory for the cache
			// blocks": a failure when that error was not pasted, and
			// superseded by it when it was.
			name:    "vllm-negative-kv",
			anchors: []string{"KV Cache is -"},
			locate:  lazyRE(`(?:model weights take \S+; .*)?the rest of the memory reserved for KV Cache is -` + size),
			kind:    KindServing,
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Device, ev.Variant = "vllm", &Device{Type: "cuda"}, "vllm-negative-kv"
				ev.tentative, ev.headerOnly = true, true
			},
		},
		{
			// SGLang's model runner when the memory left for its KV pool
			// after the weights is not enough: "RuntimeError: Not enough
			// memory. Please try to increase --mem-fraction-static. Current
			// value: self.server_args.mem_fraction_static=0.2"
			name:    "sglang",
			anchors: []string{"Please try to increase --mem-fraction-static"},
			locate:  lazyRE(`Not enought? memory\. Please try to increase --mem-fraction-static`), // early releases spelt it "enought"
			kind:    KindServing,
			fill:    func(ev *Event, msg string) { ev.Framework, ev.Variant = "sglang", "sglang-mem-fraction" },
		},
		{
			// a serving engine refusing to start when the memory left for
			// its cache cannot hold its smallest plan: "AssertionError:
			// cache budget too small: minimum plan (moe=1024 slots, kv=128
			// pages) needs 3046637568 B > budget -1868787708 B (raise
			// memory_ratio, lower kv_reserve_tokens, or free GPU memory)"
			name:    "cache-budget",
			anchors: []string{"budget too small"},
			// raised (an exception's class before it), or with the plan's
			// need against the budget; a notice that some budget is small
			// ("WARNING: memory budget too small for prefetching") is neither
			locate: lazyRE(`[\w.]*(?:Error|Exception):\s*(?i:(?:memory|cache|kv[ _-]?cache) )budget too small|(?i:(?:memory|cache|kv[ _-]?cache) )budget too small\b.*\bneeds \d+ ?(?:B|bytes)\b`),
			kind:   KindServing,
			fill:   fillCacheBudget,
		},
		{
			name:    "tgi",
			anchors: []string{"Not enough memory to handle"},
			locate:  lazyRE(`Not enough memory to handle \d+ (?:prefill |total )?tokens`),
			kind:    KindServing,
			fill:    fillTGI,
		},
		{
			name:    "cpu-allocator",
			anchors: []string{"DefaultCPUAllocator", "CPUAllocator.cpp", "Unable to allocate"},
			locate:  lazyRE(`\[enforce fail at [^\]]*CPUAllocator\.cpp:\d+\][^.]*\. (?:DefaultCPUAllocator|\d+ vs \d+)|\[enforce fail at [^\]]*alloc_cpu\.cpp:\d+\]|DefaultCPUAllocator: (?:can't allocate memory|not enough memory)|Unable to allocate \d.* for an array with shape`),
			kind:    KindCPU,
			fill:    fillCPU,
		},
		{
			name:    "thc",
			anchors: []string{"error (2) : out of memory", "error=2 : out of memory"},
			locate:  lazyRE(`cuda runtime error \(2\) : out of memory|THCudaCheck FAIL .*error=2 : out of memory`),
			kind:    KindCUDA,
			fill: func(ev *Event, msg string) {
				ev.Variant = "torch-0.x-thc"
				ev.Framework = "pytorch"
				ev.Device = &Device{Type: "cuda"}
			},
		},
		{
			// mshadow (MXNet) checks the handle's creation: "Check failed:
			// err == CUBLAS_STATUS_SUCCESS (1 vs. 0) : Create cublas handle
			// failed" — status 1, not initialised, most often for want of
			// memory
			name:    "cublas",
			anchors: []string{"CUBLAS_STATUS_ALLOC_FAILED", "CUBLAS_STATUS_NOT_INITIALIZED", "CUBLAS_STATUS_SUCCESS"},
			locate:  lazyRE(`(?:CUDA error: |failed to create cublas handle: )?CUBLAS_STATUS_(?:ALLOC_FAILED|NOT_INITIALIZED)|Check failed: err == CUBLAS_STATUS_SUCCESS \(\d+ vs\. 0\)\s*:\s*Create cublas handle failed`),
			kind:    KindCUBLAS,
			fill: func(ev *Event, msg string) {
				ev.Device = &Device{Type: "cuda"}
				// CNTK and ONNX Runtime name the GPU after the status:
				// "CUBLAS failure 3: CUBLAS_STATUS_ALLOC_FAILED ; GPU=0 ; hostname=…"
				if d := genericDevice(msg); d != nil && d.Index != nil {
					ev.Device.Index = d.Index
				}
				// cublasCreate fails to initialise most often for want of memory
				ev.Suspected = !strings.Contains(msg, "ALLOC_FAILED")
			},
		},
		{
			// TensorFlow's cuda_dnn.cc words a handle that could not be
			// created ("Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
			// most often for want of memory its BFC allocator already took)
			// and its convolution layers then fail with "Failed to get
			// convolution algorithm. This is probably because cuDNN failed to
			// initialize, so try looking to see if a warning log message was
			// printed above." (on ROCm: "… because MIOpen failed to initialize")
			name: "cudnn",
			// darknet stops when no convolution algorithm's workspace fits
			// in the memory left: "Error: cuDNN isn't found FWD algo for
			// convolution." (and "BWD filter", "BWD data"); PyTorch raises
			// "RuntimeError: Unable to find a valid cuDNN algorithm to run
			// convolution" when every algorithm failed, most often for want
			// of workspace memory (a suspected memory failure)
			anchors: []string{"CUDNN_STATUS_", "get convolution algorithm", "algo for convolution", "Unable to find a valid cuDNN algorithm"},
			locate:  lazyRE(`(?i:cudnn(?: Frontend)? (?:error|failure)|Could not create cudnn handle):? ?CUDNN_STATUS_(?:ALLOC_FAILED|INTERNAL_ERROR_HOST_ALLOCATION_FAILED|INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED|INTERNAL_ERROR|NOT_INITIALIZED|EXECUTION_FAILED|MAPPING_ERROR|NOT_SUPPORTED)|CUDNN_STATUS_(?:ALLOC_FAILED|INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)|Failed to get convolution algorithm\. This is probably because (?:cuDNN|MIOpen) failed to initialize|cuDNN isn't found (?:FWD|BWD(?: filter| data)?) algo for convolution|Unable to find a valid cuDNN algorithm to run convolution`),
			kind:    KindCUDNN,
			// TensorFlow logs the device's memory on the next line:
			// "Memory usage: 393216 bytes free, 6233587712 bytes total."
			more: func(msg string) bool {
				return strings.Contains(msg, "Could not create cudnn handle") && !strings.Contains(msg, "Memory usage:")
			},
			cont: func(next string) bool { return strings.HasPrefix(strings.TrimSpace(next), "Memory usage: ") },
			fill: func(ev *Event, msg string) {
				ev.Device = &Device{Type: "cuda"}
				ev.Suspected = !strings.Contains(msg, "ALLOC_FAILED") && !strings.Contains(msg, "ALLOCATION_FAILED")
				if m := reTFHandleMemory.FindStringSubmatch(msg); m != nil {
					ev.FreeBytes, ev.TotalBytes = sizeOf(m[1]+" bytes"), sizeOf(m[2]+" bytes")
				}
				switch {
				case strings.Contains(msg, "Failed to get convolution algorithm"):
					ev.Framework = "tensorflow"
					if strings.Contains(msg, "MIOpen") {
						ev.Device.Type = "rocm" // TensorFlow on ROCm names MIOpen
					}
				case strings.Contains(msg, "cuDNN isn't found"):
					ev.Framework = "darknet"
				case strings.Contains(msg, "valid cuDNN algorithm"):
					ev.Framework = "pytorch"
				}
			},
		},
		{
			name:    "nccl",
			anchors: []string{"'out of memory'"},
			locate:  lazyRE(`Cuda failure (?:2 )?'out of memory'`),
			kind:    KindNCCL,
			fill:    func(ev *Event, msg string) { ev.Device = &Device{Type: "cuda"}; ev.Framework = "nccl" },
		},
	}
}

// runtimeMatchers are device runtimes, native libraries and host kills.
func runtimeMatchers() []failureMatcher {
	return []failureMatcher{
		{
			name:    "ggml",
			anchors: []string{"cudaMalloc failed", "failed to allocate", "Device memory allocation of size", "unable to allocate"},
			locate:  lazyRE(`\w*: allocating \S+ \w+ on device \d+: cudaMalloc failed: out of memory|cudaMalloc failed while requesting|Device memory allocation of size \d+ failed|\w*: failed to allocate (?:\S+ )?buffer of size \d+|\w*: error: failed to allocate buffer, size =|unable to allocate \S+ buffer`),
			kind:    KindCUDARuntime,
			fill:    fillGGML,
		},
		{
			// RAPIDS' memory manager (cuDF, cuML, cudf-polars):
			// "MemoryError: std::bad_alloc: out_of_memory: CUDA error
			// (failed to allocate 21130403977 bytes) at: …/rmm/mr/
			// cuda_async_view_memory_resource.hpp:86: cudaErrorMemoryAllocation
			// out of memory"
			name:    "rmm",
			anchors: []string{"bad_alloc: out_of_memory"},
			locate:  reRMM,
			kind:    KindCUDARuntime,
			fill: func(ev *Event, msg string) {
				ev.Framework, ev.Device, ev.Variant = "rmm", &Device{Type: "cuda"}, "rmm-bad-alloc"
				if m := reRMM.FindStringSubmatch(msg); m != nil && m[1] != "" {
					requestOf(ev, m[1]+" bytes")
				}
			},
		},
		{
			name:    "cuda-runtime",
			anchors: []string{"error: out of memory", "error out of memory", "cudaErrorMemoryAllocation", "CUDA_ERROR_OUT_OF_MEMORY"},
			// StreamExecutor's driver call, whose request comes first:
			// "failed to alloc 1433389056 bytes unified memory; result:
			// CUDA_ERROR_OUT_OF_MEMORY: out of memory", "failed to alloc
			// 67108864 bytes on host: CUDA_ERROR_OUT_OF_MEMORY" (pinned host
			// memory); the driver call that creates the context: "failed
			// call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY:
			// out of memory; total memory reported: 11523260416"
			locate: lazyRE(`(?:failed to alloc \d+ bytes[^;:]*[;:] (?:result: )?|failed call to cu\w+: )?(?:CUDA_ERROR_OUT_OF_MEMORY|cudaErrorMemoryAllocation)|(?:CUDA|HIP) (?:runtime |driver )?error: out of memory|(?:CUDA|HIP|cuda) failed with error out of memory`),
			kind:   KindCUDARuntime,
			fill: func(ev *Event, msg string) {
				ev.Device = &Device{Type: "cuda"}
				if strings.HasPrefix(msg, "HIP") {
					ev.Device.Type = "rocm"
				}
				if m := reSEAlloc.FindStringSubmatch(msg); m != nil {
					ev.Variant = "stream-executor-alloc"
					requestOf(ev, m[1]+" bytes")
					if m[2] != "" {
						// pinned host memory: host RAM's failure
						ev.Kind, ev.Device = KindCPU, &Device{Type: "cpu"}
					}
				}
				if strings.HasPrefix(msg, "failed call to cuDevicePrimaryCtxRetain") || strings.HasPrefix(msg, "failed call to cuCtxCreate") {
					// No context, so nothing of this process's is on the
					// device yet.
					ev.Variant = VariantContextCreate
				}
				if m := reSETotal.FindStringSubmatch(msg); m != nil {
					ev.TotalBytes = int64p(m[1])
				}
				if strings.Contains(msg, "failed with error out of memory") {
					// CTranslate2's CUDA check (faster-whisper, and other
					// C++ runtimes built on it) words its failure so.
					ev.Framework = "ctranslate2"
				}
			},
		},
		{
			name:    "kernel-oom-killer",
			anchors: []string{"Killed process", "Kill process", "oom-kill:", "invoked oom-killer"},
			locate:  lazyRE(`(?:Memory cgroup out of memory|Out of memory(?: \(oom_kill_allocating_task\))?): Kill(?:ed)? process \d+|^Killed process \d+|oom-kill:constraint=|\S+ invoked oom-killer`),
			kind:    KindHostKill,
			fill:    fillKernelKill,
		},
		{
			// Hadoop YARN's NodeManager killing a container over its memory
			// limit (Spark executors): "Container killed by YARN for
			// exceeding memory limits. 7.2 GB of 4.2 GB virtual memory used."
			// (Spark 2.4 and later: "… for exceeding physical memory
			// limits. 11.4 GB of 11 GB physical memory used."), and Hadoop's
			// "Container [pid=4733,containerID=…] is running beyond virtual
			// memory limits. Current usage: 351.6 MB of 1 GB physical memory
			// used; 2.2 GB of 2.1 GB virtual memory used"
			name:    "yarn-container-limit",
			anchors: []string{"for exceeding memory limits", "for exceeding physical memory limits", "for exceeding virtual memory limits", "beyond physical memory limits", "beyond virtual memory limits"},
			locate:  reYARNKill,
			kind:    KindHostKill,
			fill:    fillYARNKill,
		},
		{
			// a batch scheduler's or cluster's kill for memory, in its own
			// words: PBS ("=>> PBS: job killed: mem 38427376kb exceeded
			// limit 33554432kb", "… vmem 3372163072 exceeded limit
			// 2147483648", "… mem job total 115343360 kb exceeded limit …"),
			// LSF ("TERM_MEMLIMIT: job killed after reaching LSF memory usage
			// limit."), Ray's raylet before its memory monitor's wording
			// ("System memory low at node with IP 172.31.66.10. Used memory
			// (54.90GB) / total capacity (57.60GB) (0.95307) exceeds threshold
			// 0.95, killing latest task"), Dask's nanny ("Worker exceeded 95%
			// memory budget. Restarting") and the kubelet's eviction ("The
			// node was low on resource: memory.")
			name:    "scheduler-memory-kill",
			anchors: []string{"PBS: job killed: ", "job killed after reaching LSF memory usage limit", "System memory low at node", "% memory budget", "low on resource: memory"},
			locate:  reSchedulerKill,
			kind:    KindHostKill,
			fill:    fillSchedulerKill,
		},
		{
			// Ray's memory monitor killing a worker before the kernel would
			// ("Task was killed due to the node running low on memory.",
			// "2 worker(s) were killed …" from Ray 2.55) and the raylet's
			// summary of such kills ("3 Workers (tasks / actors) killed due
			// to memory pressure (OOM)"; a count of 0 is none). A dead
			// actor whose exit Ray explains by a list of "potential root
			// causes", the OOM killer first, is a possible kill only
			// (variant ray-worker-died): Ray prints that list after any
			// unexpected exit; a warning of a retried task is no failure.
			name:    "ray-memory-monitor",
			anchors: []string{"running low on memory", "killed due to memory pressure", "killed by SIGKILL by OOM killer", "Memory on the node (IP:"},
			// the kill message's second sentence alone, when a paste lost
			// the first: "Memory on the node (IP: 10.0.3.220, ID: d8d8…)
			// where the task (task ID: …, name=…) was running was 29.98GB /
			// 31.12GB (0.963), which exceeds the memory usage threshold"
			locate: lazyRE(`(?:Task was|worker\(s\) were) killed due to the node running low on memory|Memory on the node \(IP: [^)]*\) where the (?:task|actor)|\b[1-9]\d* Workers? \(tasks / actors\) killed due to memory pressure \(OOM\)|The actor is dead because its worker process has died\..*The process is killed by SIGKILL by OOM killer`),
			kind:   KindHostKill,
			more: func(msg string) bool {
				return strings.Contains(msg, "running low on memory") && !strings.Contains(msg, "Memory on the node")
			},
			cont: func(next string) bool {
				return strings.HasPrefix(strings.TrimSpace(next), "Memory on the node")
			},
			fill: fillRayKill,
		},
		{
			name:    "dataloader-killed",
			anchors: []string{"is killed by signal", "exited unexpectedly"},
			locate:  lazyRE(`DataLoader (?:worker|process) \(pid(?:\(s\))? [\d, ]+\) (?:(?:exited )?is killed by signal: (?:Killed|Bus error|Terminated)|exited unexpectedly)`),
			kind:    KindHostKill,
			fill: func(ev *Event, msg string) {
				ev.Device = &Device{Type: "cpu"}
				if m := reDataLoaderKill.FindStringSubmatch(msg); m != nil {
					ev.PID = int64p(m[2])
					ev.Signal = m[3]
					if m[1] == "process" {
						ev.Framework = "paddle"
					}
				}
				// A worker that exited with no signal caught was most often
				// killed by the kernel before it could report; a SIGTERM
				// is what memory monitors (earlyoom, a Kubernetes eviction,
				// a batch system over its limit) send first, and also what
				// a main process sends its workers on shutdown: suspected.
				ev.Suspected = ev.Signal == "" || ev.Signal == "Terminated"
			},
		},
		{
			// a process killed by signal 9, in the words of a shell ("Killed",
			// also after a progress line's "...": "Solving environment:
			// ...working... Killed"; "zsh: killed", "[1]+ Killed python train.py", "run.sh: line 30:
			// 23195 Killed", and the same in other languages: "行 30: 23195
			// 已杀死"), a launcher ("failed (exitcode: -9)",
			// DeepSpeed's "exits with return code = -9", "exit code 137",
			// BuildKit's "exit code: 137", a job runner's "terminated with
			// exit code (137)", a negative status ("Process finished with
			// exit code -9": a child ended by signal 9),
			// a Kubernetes container
			// status's "exitCode: 137" and kubectl describe's "Exit Code:
			// 137"), Python's subprocess
			// ("returned non-zero exit status -9.", "died with
			// <Signals.SIGKILL: 9>."), Go's os/exec ("llama runner process
			// has terminated: signal: killed", Ollama), a scheduler ("Detected 1 oom-kill
			// event", "Exceeded job memory limit", "OOMKilled"), systemd
			// ("A process of this unit has been killed by the OOM killer.",
			// "Failed with result 'oom-kill'."), runc ("container init was
			// OOM-killed (memory limit too low?)"), Colab ("Your session
			// crashed after using all available RAM") or Jupyter ("The
			// kernel appears to have died")
			name:    "sigkill",
			anchors: []string{"Killed", "killed", "exitcode: -9", "exitcode  : -9", "exits with return code = -9", "exitCode: 137", "exitCode\": 137", "Exit Code:", "non-zero exit status -9", "<Signals.SIGKILL: 9>", "signal: killed", "Signal 9 (SIGKILL)", "oom-kill event", "oom_kill event", "Out Of Memory", "exceeded memory limit", "memory limit", "OOMKilled", "init was OOM-killed", "by the OOM killer", "all available RAM", "result 'oom-kill'", "appears to have died", "exit code 137", "exit status 137", "exit code: 137", "exit code (137)", "exit code -9", "exit code: -9", "exit code (-9)", "exited with code 137", "terminated by signal 9", "interrupted by signal 9", "Getötet", "Processus arrêté", "Terminado (killed)", "Ucciso", "Morto", "Убито", "已杀死"},
			locate:  lazyRE(`(?:^|[\]|%]|\.\.\.)\s*(?:Killed|Getötet|Processus arrêté|Terminado \(killed\)|Ucciso|Morto|Убито|已杀死)(?: \(core dumped\)| \(Speicherabzug geschrieben\))?\s*$|(?:^|[\]|%]\s?)\[\d+\]\s*[+-]?\s+(?:\d+\s+)?(?:killed|Killed)\s+\S|(?:line|行|Zeile|ligne|línea|riga|строка) \d+:\s+\d+ (?:Killed|已杀死|Getötet|Processus arrêté|Terminado \(killed\)|Ucciso|Morto|Убито)(?:\s|$)|\bexit(?:ed with)? (?:code|status):? \(?137\)?(?:[^\w.]|$)|\bexit code:? \(?-9\)?(?:[^\w.]|$)|\bexitCode"?:\s*137\b|\bExit Code:\s+137\b|(?:terminated|interrupted) by signal 9\b|(?:^|[\]|%]\s?)zsh: killed\s|failed \(exitcode: -9\)|exitcode\s*: -9 \(pid|exits with return code = -9|returned non-zero exit status -9\b|died with <Signals\.SIGKILL: 9>|\b(?:terminated|exited|failed|exit status|process)\b[^:]*: signal: killed"?\s*$|Signal 9 \(SIGKILL\) received|Detected \d+ oom[-_]kill event|task \d+: Out Of Memory|exceeded memory limit \(\d+ > \d+\)|Exceeded (?:job|step) memory limit|\bOOMKilled\b|(?:\bkubelet\b.*?)?container init was OOM-killed \(memory limit too low\?\)|has been killed by the OOM killer|Your session crashed after using all available RAM|Failed with result 'oom-kill'|The kernel appears to have died`),
			kind:    KindHostKill,
			fill:    fillSigkill,
		},
	}
}

func intp(s string) *int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return nil
	}
	return &n
}

func int64p(s string) *int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// reshapedMatchers read PyTorch's message as a paste or a person reshaped
// it; they come after every exact family, so that a line an exact pattern
// reads is never read here.
func reshapedMatchers() []failureMatcher {
	return []failureMatcher{
		{
			// the message retyped or re-cased by hand: "cuda out of memory. tried
			// to allocate 20.00 mib (gpu 0; 4.00 gib total capacity; …)",
			// "cuda out of memory, tried to allocate 50MiB(GPU 0; 1.96GiB
			// totalcapacity;…"
			name:    "torch-allocator-retyped",
			closes:  true,
			anchors: []string{"tried to allocate", "TRIED TO ALLOCATE", "Tried To Allocate", "triedtoallocate"},
			locate:  lazyRE(`(?i)\b\w+ ?out ?of ?memory[.,;:]? ?tried ?to ?allocate`),
			more:    func(msg string) bool { return torchMore(canonTorch(msg)) },
			fill: func(ev *Event, msg string) {
				fillTorch(ev, canonTorch(msg))
				ev.Variant += "-retyped"
			},
		},
		{
			// PyTorch's sentence without its clauses: cut right after it, or
			// wrapped before "Tried to allocate" (read on the next lines)
			name:    "torch-sentence",
			closes:  true,
			anchors: []string{"out of memory"},
			locate:  lazyRE(`\b(?:CUDA|HIP|XPU|NPU|MUSA|MLU) out of memory\.?\s*$`),
			more: func(msg string) bool {
				return !strings.Contains(msg, "Tried to allocate") || torchMore(msg)
			},
			contMsg: func(msg, next string) bool {
				if strings.Contains(msg, "Tried to allocate") {
					return isContinuation(next)
				}
				t := strings.TrimSpace(next)
				return strings.HasPrefix(t, "Tried to allocate") || strings.HasPrefix(t, "(GPU ") || strings.HasPrefix(t, "GPU ")
			},
			fill: func(ev *Event, msg string) {
				fillTorch(ev, msg)
				if !strings.Contains(msg, "Tried to allocate") {
					ev.Variant = "torch-sentence-only"
				}
			},
		},
	}
}

// find is where m's failure starts in text, nil when m finds none or text
// is one of m's known false positives.
func (m *failureMatcher) find(text string) []int {
	loc := m.locate.FindStringIndex(text)
	if loc != nil && m.not != nil && m.not.MatchString(text) {
		return nil
	}
	return loc
}
