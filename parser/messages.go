package parser

import (
	"regexp"
	"strconv"
	"strings"
)

// A failureMatcher recognises one family of memory-failure messages
// (research/formats.md §1–5). Matchers are tried in order on each candidate
// line; the first whose anchor and locator match owns the line.
type failureMatcher struct {
	name    string
	anchors []string       // the line must contain one of these (cheap test first)
	locate  *regexp.Regexp // finds where the failure's text starts
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
	// names the words that made it one (the generic tier).
	judge func(text string) ([]string, bool)
	fill  func(ev *Event, msg string)
}

const size = `(\d+(?:\.\d+)?\s?(?:bytes|KiB|MiB|GiB|TiB|KB|MB|GB|TB|kB|B|K|M|G|T)?)`

// Clause patterns of the PyTorch caching allocator message, every era.
var (
	reDeviceWord     = regexp.MustCompile(`(\w+) out of memory\.\s*$`)
	reGPUNew         = regexp.MustCompile(`GPU ?(\d+|[\x01-\x1f])? has a total capac(?:i)?ty of ` + size)
	reTruncatedGPU   = regexp.MustCompile(`Tried to allocate [^.]*\.\d+ \w+\. GPU\s*$`)
	reAllocEnvHint   = regexp.MustCompile(`(PYTORCH_(?:CUDA_|HIP_|MUSA_)?ALLOC_CONF)=expandable_segments`)
	reAsyncDevice    = regexp.MustCompile(`Allocation on device(?: (\d+))?`)
	reAsyncField     = regexp.MustCompile(`(Currently allocated|Requested|Device limit|Free \(according to CUDA\)|PyTorch limit \(set by user-supplied memory fraction\))\s*:\s*` + size)
	reMPS            = regexp.MustCompile(`MPS allocated: ` + size + `, other allocations: ` + size + `(?:, max allowed: ` + size + `)?\)\.?\s*Tried to allocate ` + size + `(?: on (private|shared) pool)?`)
	reCPUBytes       = regexp.MustCompile(`you tried to allocate (\d+) bytes`)
	reNumpy          = regexp.MustCompile(`Unable to allocate ` + `(\d+(?:\.\d*)?\s?(?:[KMGT]i?B|bytes|B))` + ` for an array with shape \(([^)]*)\)(?: and data type (\w+))?`)
	reGGMLAlloc      = regexp.MustCompile(`allocating ` + size + ` on device (\d+)`)
	reGGMLUnable     = regexp.MustCompile(`unable to allocate (\S+) buffer`)
	reGGMLBuffer     = regexp.MustCompile(`failed to allocate (?:(\S+) )?buffer of size (\d+)`)
	reVulkanAlloc    = regexp.MustCompile(`Device memory allocation of size (\d+) failed`)
	reMegRequest     = regexp.MustCompile(`requesting (\d+) bytes`)
	reMegDevice      = regexp.MustCompile(`device=(\d+) mem_free=` + size + ` mem_tot=` + size)
	reMetalMalloc    = regexp.MustCompile(`Attempting to allocate (\d+) bytes(?: which is greater than the maximum allowed buffer size of (\d+) bytes)?`)
	reMetalGGML      = regexp.MustCompile(`failed to allocate buffer, size = ` + size)
	reVLLMV0         = regexp.MustCompile(`max seq len \((\d+)\) is larger than the maximum number of tokens that can be stored in KV cache \((\d+)\)`)
	reVLLMV1         = regexp.MustCompile(`max seq len \((\d+)\),? \(?` + size + ` KV cache is needed, which is larger than the available KV cache memory \(` + size + `\)`)
	reVLLMEstimated  = regexp.MustCompile(`estimated maximum model length is (\d+)`)
	reVLLMStartup    = regexp.MustCompile(`Free memory on device \S*?\s*\[?(\w+)?:?(\d+)?\s*\]?\s*\(([\d.]+)/([\d.]+) GiB\) on startup is less than desired GPU memory utilization \(([\d.]+), ([\d.]+) GiB\)`)
	reXLABytes       = regexp.MustCompile(`(?:trying to allocate|allocating) (\d+(?:\.\d+)?\s?(?:bytes|[KMGT]iB|B)?)`)
	reXLARequest     = regexp.MustCompile(`Failed to allocate request for ` + size + ` \((\d+)B\) on device ordinal (\d+)`)
	reXLAFromDevice  = regexp.MustCompile(`failed to allocate ` + size + ` \((\d+) bytes\) from device`)
	reXLATPU         = regexp.MustCompile(`Used ` + size + ` of ` + size + ` hbm`)
	reTFShape        = regexp.MustCompile(`OOM when allocating tensor with shape\s?\[([\d, ]*)\](?: and type (\w+))?(?: on (\S+))?(?: by allocator (\w+))?`)
	reTFBFC          = regexp.MustCompile(`Allocator \((\w+)\) ran out of memory trying to allocate ` + size)
	reTFOld          = regexp.MustCompile(`Ran out of memory trying to allocate ` + size)
	reTFDevice       = regexp.MustCompile(`(?i)(?:device:|/)(GPU|CPU|TPU):(\d+)|\b(GPU|CPU)_(\d+)_bfc`)
	reKernelKill     = regexp.MustCompile(`Kill(?:ed)? process (\d+) \(([^)]*)\)`)
	reOOMKillTask    = regexp.MustCompile(`oom-kill:.*?task=([^,]+),pid=(\d+)`)
	reShellKilled    = regexp.MustCompile(`line \d+:\s+(\d+) Killed\s+(.*)$`)
	reDataLoaderKill = regexp.MustCompile(`DataLoader worker \(pid(?:\(s\))? (\d+)[\d, ]*\) is killed by signal: ([A-Za-z ]+)`)
	reElasticFailed  = regexp.MustCompile(`failed \(exitcode: -9\) local_rank: (\d+) \(pid: (\d+)\)`)
	reElasticExit    = regexp.MustCompile(`exitcode\s*: -9 \(pid: (\d+)\)`)
	reSigkillPID     = regexp.MustCompile(`Signal 9 \(SIGKILL\) received by PID (\d+)`)
	reSlurmLimit     = regexp.MustCompile(`exceeded memory limit \((\d+) > (\d+)\)`)
)

// failureMatchers lists the message families in the order they are tried.
// Specific forms come before generic ones that would also match them.
func failureMatchers() []failureMatcher {
	var ms []failureMatcher
	ms = append(ms, frameworkMatchers()...)
	ms = append(ms, nativeMatchers()...)
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
			locate:  regexp.MustCompile(`MPS backend out of memory`),
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
			locate:  regexp.MustCompile(`(?:Current platform can NOT allocate memory block with size larger than \w+! |\b\w+ out of memory\. )?Tried to allocate`),
			more:    torchMore,
			fill:    fillTorch,
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
			anchors: []string{"[metal::malloc]", "Insufficient Memory", "kIOGPUCommandBufferCallbackErrorOutOfMemory", "maximum allowed buffer size"},
			locate:  regexp.MustCompile(`\[metal::malloc\]|Attempting to allocate \d+ bytes which is greater than the maximum allowed buffer size|\[METAL\].*Insufficient Memory|Insufficient Memory \(00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory\)`),
			kind:    KindMPS,
			more: func(msg string) bool {
				return strings.Contains(msg, "Attempting to allocate") && strings.Contains(msg, "which is") && !strings.HasSuffix(strings.TrimSpace(msg), "bytes.")
			},
			fill: fillMetal,
		},
		{
			name:    "tensorflow",
			anchors: []string{"OOM when allocating", "ran out of memory trying to allocate", "Ran out of memory trying to allocate"},
			locate:  regexp.MustCompile(`OOM when allocating|Allocator \(\w+\) ran out of memory trying to allocate \S+ \(rounded|Ran out of memory trying`),
			kind:    KindTF,
			// graph mode names the op on the next line: "\t [[{{node model/conv2d/Conv2D}}]]"
			more: func(msg string) bool {
				return strings.Contains(msg, "OOM when allocating") && !strings.Contains(msg, "[[")
			},
			cont: func(next string) bool { return strings.HasPrefix(strings.TrimSpace(next), "[[") },
			fill: fillTF,
		},
		{
			name:    "xla",
			anchors: []string{"RESOURCE_EXHAUSTED", "Resource exhausted", "Out of memory allocating", "Failed to allocate request for", "from device: CUDA_ERROR_OUT_OF_MEMORY", "from device: HIP_ERROR_OutOfMemory", "bytes) from device", "Ran out of memory in memory space"},
			locate:  regexp.MustCompile(`RESOURCE_EXHAUSTED|Resource exhausted|Out of memory allocating|Failed to allocate request for|failed to allocate \S+ \(\d+ bytes\) from device|XLA:TPU compile permanent error`),
			kind:    KindXLA,
			more: func(msg string) bool {
				return !reXLABytes.MatchString(msg) && !reXLARequest.MatchString(msg) && !reXLAFromDevice.MatchString(msg) && !strings.Contains(msg, "hbm")
			},
			fill: fillXLA,
		},
		{
			name:    "vllm",
			anchors: []string{"No available memory for the cache blocks", "stored in KV cache", "KV cache is needed", "on startup is less than desired GPU memory utilization"},
			locate:  regexp.MustCompile(`No available memory for the cache blocks|The model's max seq len|To serve at least one request|Free memory on device`),
			kind:    KindServing,
			fill:    fillVLLM,
		},
		{
			name:    "cpu-allocator",
			anchors: []string{"DefaultCPUAllocator", "CPUAllocator.cpp", "Unable to allocate"},
			locate:  regexp.MustCompile(`\[enforce fail at [^\]]*CPUAllocator\.cpp:\d+\][^.]*\. (?:DefaultCPUAllocator|\d+ vs \d+)|\[enforce fail at [^\]]*alloc_cpu\.cpp:\d+\]|DefaultCPUAllocator: (?:can't allocate memory|not enough memory)|Unable to allocate \d.* for an array with shape`),
			kind:    KindCPU,
			fill:    fillCPU,
		},
		{
			name:    "thc",
			anchors: []string{"error (2) : out of memory", "error=2 : out of memory"},
			locate:  regexp.MustCompile(`cuda runtime error \(2\) : out of memory|THCudaCheck FAIL .*error=2 : out of memory`),
			kind:    KindCUDA,
			fill: func(ev *Event, msg string) {
				ev.Variant = "torch-0.x-thc"
				ev.Framework = "pytorch"
				ev.Device = &Device{Type: "cuda"}
			},
		},
		{
			name:    "cublas",
			anchors: []string{"CUBLAS_STATUS_ALLOC_FAILED", "CUBLAS_STATUS_NOT_INITIALIZED"},
			locate:  regexp.MustCompile(`(?:CUDA error: |failed to create cublas handle: )?CUBLAS_STATUS_(?:ALLOC_FAILED|NOT_INITIALIZED)`),
			kind:    KindCUBLAS,
			fill: func(ev *Event, msg string) {
				ev.Device = &Device{Type: "cuda"}
				// cublasCreate fails to initialise most often for want of memory
				ev.Suspected = !strings.Contains(msg, "ALLOC_FAILED")
			},
		},
		{
			name:    "cudnn",
			anchors: []string{"CUDNN_STATUS_"},
			locate:  regexp.MustCompile(`(?i:cudnn(?: Frontend)? (?:error|failure)):? ?CUDNN_STATUS_(?:ALLOC_FAILED|INTERNAL_ERROR_HOST_ALLOCATION_FAILED|INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED|INTERNAL_ERROR|NOT_INITIALIZED|EXECUTION_FAILED|MAPPING_ERROR|NOT_SUPPORTED)|CUDNN_STATUS_(?:ALLOC_FAILED|INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)`),
			kind:    KindCUDNN,
			fill: func(ev *Event, msg string) {
				ev.Device = &Device{Type: "cuda"}
				ev.Suspected = !strings.Contains(msg, "ALLOC_FAILED") && !strings.Contains(msg, "ALLOCATION_FAILED")
			},
		},
		{
			name:    "nccl",
			anchors: []string{"'out of memory'"},
			locate:  regexp.MustCompile(`Cuda failure (?:2 )?'out of memory'`),
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
			locate:  regexp.MustCompile(`\w*: allocating \S+ \w+ on device \d+: cudaMalloc failed: out of memory|cudaMalloc failed while requesting|Device memory allocation of size \d+ failed|\w*: failed to allocate (?:\S+ )?buffer of size \d+|\w*: error: failed to allocate buffer, size =|unable to allocate \S+ buffer`),
			kind:    KindCUDARuntime,
			fill:    fillGGML,
		},
		{
			name:    "cuda-runtime",
			anchors: []string{"error: out of memory", "error out of memory", "cudaErrorMemoryAllocation", "CUDA_ERROR_OUT_OF_MEMORY"},
			locate:  regexp.MustCompile(`(?:CUDA|HIP) (?:runtime )?error: out of memory|(?:CUDA|HIP|cuda) failed with error out of memory|cudaErrorMemoryAllocation|CUDA_ERROR_OUT_OF_MEMORY`),
			kind:    KindCUDARuntime,
			fill: func(ev *Event, msg string) {
				ev.Device = &Device{Type: "cuda"}
				if strings.HasPrefix(msg, "HIP") {
					ev.Device.Type = "rocm"
				}
			},
		},
		{
			name:    "kernel-oom-killer",
			anchors: []string{"Killed process", "Kill process", "oom-kill:", "invoked oom-killer"},
			locate:  regexp.MustCompile(`(?:Memory cgroup out of memory|Out of memory(?: \(oom_kill_allocating_task\))?): Kill(?:ed)? process \d+|^Killed process \d+|oom-kill:constraint=|\S+ invoked oom-killer`),
			kind:    KindHostKill,
			fill:    fillKernelKill,
		},
		{
			name:    "dataloader-killed",
			anchors: []string{"is killed by signal", "exited unexpectedly"},
			locate:  regexp.MustCompile(`DataLoader worker \(pid(?:\(s\))? [\d, ]+\) (?:is killed by signal: (?:Killed|Bus error)|exited unexpectedly)`),
			kind:    KindHostKill,
			fill: func(ev *Event, msg string) {
				ev.Device = &Device{Type: "cpu"}
				if m := reDataLoaderKill.FindStringSubmatch(msg); m != nil {
					ev.PID = int64p(m[1])
					ev.Signal = strings.TrimSpace(m[2])
				}
				// A worker that exited with no signal caught was most often
				// killed by the kernel before it could report: suspected.
				ev.Suspected = ev.Signal == ""
			},
		},
		{
			name:    "sigkill",
			anchors: []string{"Killed", "killed", "exitcode: -9", "exitcode  : -9", "exits with return code = -9", "Signal 9 (SIGKILL)", "oom-kill event", "oom_kill event", "Out Of Memory", "exceeded memory limit", "memory limit", "OOMKilled", "appears to have died", "exit code 137", "exit status 137", "exited with code 137", "terminated by signal 9", "interrupted by signal 9", "Getötet", "Processus arrêté", "Terminado (killed)", "Ucciso", "Morto", "Убито", "已杀死"},
			locate:  regexp.MustCompile(`(?:^|[\]|%])\s*(?:Killed|Getötet|Processus arrêté|Terminado \(killed\)|Ucciso|Morto|Убито|已杀死)(?: \(core dumped\)| \(Speicherabzug geschrieben\))?\s*$|(?:^|[\]|%]\s?)\[\d+\]\s*[+-]?\s+(?:\d+\s+)?(?:killed|Killed)\s+\S|line \d+:\s+\d+ Killed\s|\bexit(?:ed with)? (?:code|status) 137\b|(?:terminated|interrupted) by signal 9\b|(?:^|[\]|%]\s?)zsh: killed\s|failed \(exitcode: -9\)|exitcode\s*: -9 \(pid|exits with return code = -9|Signal 9 \(SIGKILL\) received|Detected \d+ oom[-_]kill event|task \d+: Out Of Memory|exceeded memory limit \(\d+ > \d+\)|Exceeded (?:job|step) memory limit|\bOOMKilled\b|The kernel appears to have died`),
			kind:    KindHostKill,
			fill:    fillSigkill,
		},
	}
}

// torchMore reports whether a PyTorch allocator message read so far lacks
// its closing clause and so probably continues on the next line.
func torchMore(msg string) bool {
	switch {
	case reTruncatedGPU.MatchString(msg), strings.Contains(msg, "more than 1EB"):
		return false
	case strings.Contains(msg, "unallocated"), strings.Contains(msg, "reserved in total"), strings.Contains(msg, "cached)"), strings.Contains(msg, "Please use"):
		return false
	}
	return true
}

func fillTorch(ev *Event, msg string) {
	ev.Framework = "pytorch"
	word := ""
	if i := strings.Index(msg, "Tried to allocate"); i > 0 {
		if m := reDeviceWord.FindStringSubmatch(msg[:i]); m != nil {
			word = m[1]
		}
	}
	switch word {
	case "HIP":
		ev.Kind, ev.Device = KindHIP, &Device{Type: "rocm"}
	case "XPU", "DPCPP":
		ev.Kind, ev.Device = KindXPU, &Device{Type: "xpu"}
	case "NPU":
		ev.Kind, ev.Device = KindCUDA, &Device{Type: "npu"}
	case "MUSA":
		ev.Kind, ev.Device = KindCUDA, &Device{Type: "musa"}
	default: // "CUDA", or the message's start was lost: the layout is the CUDA allocator's
		ev.Kind, ev.Device = KindCUDA, &Device{Type: "cuda"}
	}
	if m := reXPULimit.FindStringSubmatch(msg); m != nil {
		// IPEX on Intel Arc: one buffer above the per-allocation cap.
		ev.Kind, ev.Device = KindXPU, &Device{Type: "xpu"}
		ev.Hint, ev.MaxAllocationBytes = "allocation-limit", sizeOf(m[1])
	}
	if strings.Contains(msg, "Tried to allocate more than 1EB") {
		ev.RequestOverflow = true // a size no device has: a shape bug or an overflow
	} else {
		ev.RequestedBytes, _ = sizeAfter(msg, "Tried to allocate ")
	}
	// 1.x layout: "(GPU 0; 4.00 GiB total capacity; 3.51 GiB already allocated; …)"
	if idx, ok := intAfter(msg, "(GPU "); ok {
		ev.Device.Index = idx
	} else if idx, ok := intAfter(msg, "(NPU "); ok {
		ev.Device.Index = idx
	}
	readClauses(msg, []clause{
		{" total capacity;", &ev.TotalBytes},
		{" already allocated", &ev.AllocatedBytes},
		{" free;", &ev.FreeBytes},
		{" allowed;", &ev.AllowedBytes},
	}, sizeBefore)
	if v, ok := sizeBefore(msg, " reserved in total"); ok || reservedAtEnd(msg) {
		if !ok {
			v, _ = sizeBefore(msg, " reserved")
		}
		ev.ReservedBytes = v
		ev.Variant = "torch-1.4-2.0"
		if ev.AllocatedBytes != nil && ev.ReservedBytes != nil && *ev.ReservedBytes >= *ev.AllocatedBytes {
			d := *ev.ReservedBytes - *ev.AllocatedBytes
			ev.ReservedUnallocatedBytes = &d
		}
	}
	if v, ok := sizeBefore(msg, " cached)"); ok {
		ev.CachedBytes = v
		ev.Variant = "torch-1.0-1.3"
	}
	// 2.x layout: "GPU 0 has a total capacity of … of which … is free. …"
	if m := reGPUNew.FindStringSubmatch(msg); m != nil {
		switch {
		case m[1] == "":
		case m[1][0] < '0' || m[1][0] > '9':
			n := int(m[1][0]) // torch 2.2/2.3 streamed the int8 device index as a char
			ev.Device.Index = &n
		default:
			ev.Device.Index = intp(m[1])
		}
		ev.TotalBytes = sizeOf(m[2])
		ev.Variant = "torch-2.2+"
		if strings.Contains(msg, "capacty") {
			ev.Variant = "torch-2.1"
		}
	}
	if reTruncatedGPU.MatchString(msg) {
		ev.Variant, ev.Truncated = "torch-2.2-2.3-truncated", true
	}
	readClauses(msg, []clause{
		{" of which ", &ev.FreeBytes},
		{"this process has ", &ev.ProcessInUseBytes},
		{"Of the allocated memory ", &ev.AllocatedBytes},
	}, sizeAfter)
	readClauses(msg, []clause{{" allocated in private pools", &ev.PrivatePoolBytes}}, sizeBefore)
	selfClause := strings.Contains(msg, "this process has ")
	ev.OtherProcesses = processesIn(msg)
	if v, ok := sizeBefore(msg, " is reserved by PyTorch but unallocated"); ok {
		ev.ReservedUnallocatedBytes = v
		if ev.AllocatedBytes != nil && v != nil {
			r := *ev.AllocatedBytes + *v
			ev.ReservedBytes = &r
		}
	}
	if !selfClause {
		adoptSelfProcess(ev)
	}
	switch {
	case strings.Contains(msg, "max_split_size_mb"):
		ev.Hint = "max_split_size_mb"
		if strings.Contains(msg, "PYTORCH_CUDA_ALLOC_CONF") {
			ev.HintEnv = "PYTORCH_CUDA_ALLOC_CONF"
		}
	case strings.Contains(msg, "Please use `empty_cache`"):
		ev.Hint = "empty_cache"
	}
	if m := reAllocEnvHint.FindStringSubmatch(msg); m != nil {
		ev.Hint, ev.HintEnv = "expandable_segments", m[1]
	}
	if ev.Kind == KindXPU && ev.Variant == "torch-2.2+" {
		ev.Variant = "xpu"
	}
	if strings.Contains(string(ev.Exception), "torch.OutOfMemoryError") && ev.Variant == "torch-2.2+" {
		ev.Variant = "torch-2.4+"
	}
	setRounding(ev)
}

// reservedAtEnd reports whether a 1.x message was cut right after its
// "N reserved" figure ("30.55 GiB reserved in total by PyTo…" or "… reserved").
func reservedAtEnd(msg string) bool {
	return strings.HasSuffix(strings.TrimSpace(msg), " reserved")
}

// adoptSelfProcess handles logs where this process is listed as "Process N"
// (torch 2.1 listed every process that way, and inside a container NVML's
// PIDs never match the process's own): when exactly one listed process uses
// at least everything PyTorch reserved, it is this process.
func adoptSelfProcess(ev *Event) {
	if ev.ReservedBytes == nil && ev.AllocatedBytes == nil {
		return
	}
	floor := int64(0)
	if ev.AllocatedBytes != nil {
		floor = *ev.AllocatedBytes
	}
	if ev.ReservedBytes != nil {
		floor = *ev.ReservedBytes
	}
	idx := -1
	for i, p := range ev.OtherProcesses {
		if p.Bytes != nil && *p.Bytes >= floor {
			if idx >= 0 {
				return
			}
			idx = i
		}
	}
	if idx < 0 {
		return
	}
	self := ev.OtherProcesses[idx]
	ev.OtherProcesses = append(ev.OtherProcesses[:idx:idx], ev.OtherProcesses[idx+1:]...)
	if len(ev.OtherProcesses) > 0 {
		// Among several listed processes the match is arithmetic, not a
		// printed fact: it is named, but its figure is not "this process".
		ev.SelfProcess = &self
		return
	}
	ev.ProcessInUseBytes = self.Bytes
}

// setRounding records how the printed request bounds the program's real one:
// the CUDA caching allocator prints its rounded segment size
// (research/formats.md §1.4), so "2.00 MiB" means ≤ 1 MiB was asked for,
// "20.00 MiB" 1–10 MiB, and anything larger is within 2 MiB below the figure.
func setRounding(ev *Event) {
	if ev.RequestedBytes == nil || (ev.Kind != KindCUDA && ev.Kind != KindHIP) || ev.Variant == "torch-cudamallocasync" {
		return
	}
	const mib = 1 << 20
	r := *ev.RequestedBytes
	lo, hi := r-2*mib+1, r
	switch {
	case r == 2*mib:
		lo, hi = 1, mib
	case r == 20*mib:
		lo, hi = mib+1, 10*mib
	}
	if lo < 1 {
		lo = 1
	}
	ev.RequestRounding = "allocator-2MiB"
	ev.RequestMinBytes, ev.RequestMaxBytes = &lo, &hi
}

func fillAsync(ev *Event, msg string) {
	ev.Framework, ev.Variant = "pytorch", "torch-cudamallocasync"
	ev.Device = &Device{Type: "cuda"}
	if m := reAsyncDevice.FindStringSubmatch(msg); m != nil && m[1] != "" {
		ev.Device.Index = intp(m[1])
	}
	found := false
	for _, m := range reAsyncField.FindAllStringSubmatch(msg, 8) {
		found = true
		v := sizeOf(m[2])
		switch {
		case m[1] == "Currently allocated":
			ev.AllocatedBytes = v
		case m[1] == "Requested":
			ev.RequestedBytes = v
		case m[1] == "Device limit":
			ev.TotalBytes = v
		case strings.HasPrefix(m[1], "Free"):
			ev.FreeBytes = v
		case strings.HasPrefix(m[1], "PyTorch limit"):
			ev.AllowedBytes = v // the "no limit" sentinel parses as nil
		}
	}
	if !found && !strings.Contains(msg, "would exceed") {
		ev.Truncated = true
	}
}

func fillMPS(ev *Event, msg string) {
	ev.Framework, ev.Device = "pytorch", &Device{Type: "mps"}
	ev.Variant = "mps"
	if m := reMPS.FindStringSubmatch(msg); m != nil {
		ev.AllocatedBytes = sizeOf(m[1])
		ev.OtherAllocationsBytes = sizeOf(m[2])
		ev.TotalBytes = sizeOf(m[3])
		ev.RequestedBytes = sizeOf(m[4])
		if strings.Contains(m[1], "GB") || strings.Contains(m[1], "MB") || strings.Contains(m[1], "KB") {
			ev.Variant = "mps-old-units"
		}
	}
	if strings.Contains(msg, "PYTORCH_MPS_HIGH_WATERMARK_RATIO") {
		ev.Hint, ev.HintEnv = "mps_watermark", "PYTORCH_MPS_HIGH_WATERMARK_RATIO"
	}
}

func fillMetal(ev *Event, msg string) {
	ev.Framework, ev.Device, ev.Variant = "mlx", &Device{Type: "mps"}, "metal"
	if m := reMetalMalloc.FindStringSubmatch(msg); m != nil {
		ev.RequestedBytes = sizeOf(m[1])
		if m[2] != "" {
			ev.MaxAllocationBytes = sizeOf(m[2])
		}
	}
}

func fillTF(ev *Event, msg string) {
	ev.Framework = "tensorflow"
	if m := reTFShape.FindStringSubmatch(msg); m != nil {
		for _, d := range strings.Split(m[1], ",") {
			if n, err := strconv.ParseInt(strings.TrimSpace(d), 10, 64); err == nil {
				ev.TensorShape = append(ev.TensorShape, n)
			}
		}
		ev.TensorDType = m[2]
		ev.TensorBytes = tensorBytes(ev.TensorShape, m[2])
	}
	if m := reTFBFC.FindStringSubmatch(msg); m != nil {
		ev.RequestedBytes = sizeOf(m[2])
	} else if m := reTFOld.FindStringSubmatch(msg); m != nil {
		ev.RequestedBytes = sizeOf(m[1])
	}
	ev.Device = tfDevice(msg)
}

// tfDevice reads "/device:GPU:2" or "GPU_2_bfc" from a TensorFlow message.
func tfDevice(msg string) *Device {
	m := reTFDevice.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	kind, idx := m[1], m[2]
	if kind == "" {
		kind, idx = m[3], m[4]
	}
	d := &Device{Type: "cuda", Index: intp(idx)}
	switch strings.ToUpper(kind) {
	case "CPU":
		d.Type, d.Index = "cpu", nil // the host, not a numbered accelerator
	case "TPU":
		d.Type = "tpu"
	}
	return d
}

func fillXLA(ev *Event, msg string) {
	ev.Framework = "jax"
	switch {
	case reXLARequest.MatchString(msg):
		m := reXLARequest.FindStringSubmatch(msg)
		ev.RequestedBytes = sizeOf(m[1])
		ev.Device = &Device{Index: intp(m[3])}
	case reXLAFromDevice.MatchString(msg):
		m := reXLAFromDevice.FindStringSubmatch(msg)
		ev.RequestedBytes = sizeOf(m[1])
		ev.Device = &Device{Type: "cuda"}
		if strings.Contains(msg, "HIP_ERROR") {
			ev.Device.Type = "rocm"
		}
	case reXLATPU.MatchString(msg):
		// A compile-time verdict on the whole program, not one allocation.
		m := reXLATPU.FindStringSubmatch(msg)
		ev.RequiredBytes = sizeOf(m[1])
		ev.TotalBytes = sizeOf(m[2])
		ev.Device = &Device{Type: "tpu"}
	default:
		if m := reXLABytes.FindStringSubmatch(msg); m != nil {
			ev.RequestedBytes = sizeOf(m[1])
		}
	}
	if strings.Contains(msg, "XLA:TPU") {
		ev.Device = &Device{Type: "tpu"}
	}
}

func fillVLLM(ev *Event, msg string) {
	ev.Framework, ev.Device = "vllm", &Device{Type: "cuda"}
	if m := reVLLMV0.FindStringSubmatch(msg); m != nil {
		ev.MaxModelLen, ev.KVCacheTokens = int64p(m[1]), int64p(m[2])
		ev.Variant = "vllm-v0"
	}
	if m := reVLLMV1.FindStringSubmatch(msg); m != nil {
		ev.MaxModelLen = int64p(m[1])
		ev.RequestedBytes = sizeOf(m[2])
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
		ev.RequestedBytes = sizeOf(m[6] + " GiB")
		ev.Variant = "vllm-startup"
	}
	if strings.Contains(msg, "No available memory for the cache blocks") {
		ev.Variant = "vllm-no-cache-blocks"
	}
}

func fillCPU(ev *Event, msg string) {
	ev.Framework, ev.Device = "pytorch", &Device{Type: "cpu"}
	if m := reCPUBytes.FindStringSubmatch(msg); m != nil {
		ev.RequestedBytes = sizeOf(m[1])
	}
	if m := reNumpy.FindStringSubmatch(msg); m != nil {
		ev.Framework = "numpy"
		ev.RequestedBytes = sizeOf(strings.Replace(m[1], ". ", " ", 1))
		for _, d := range strings.Split(m[2], ",") {
			if n, err := strconv.ParseInt(strings.TrimSpace(d), 10, 64); err == nil {
				ev.TensorShape = append(ev.TensorShape, n)
			}
		}
		ev.TensorDType = m[3]
	}
}

func fillGGML(ev *Event, msg string) {
	ev.Framework = "ggml"
	ev.Device = &Device{Type: "cuda"}
	switch {
	case reGGMLAlloc.MatchString(msg):
		m := reGGMLAlloc.FindStringSubmatch(msg)
		ev.RequestedBytes = sizeOf(m[1])
		ev.Device.Index = intp(m[2])
	case reMegRequest.MatchString(msg):
		ev.Framework = "megengine"
		ev.RequestedBytes = sizeOf(reMegRequest.FindStringSubmatch(msg)[1] + " bytes")
	case reVulkanAlloc.MatchString(msg):
		ev.RequestedBytes = sizeOf(reVulkanAlloc.FindStringSubmatch(msg)[1])
		ev.Device.Type = "vulkan"
	case reMetalGGML.MatchString(msg):
		ev.Kind = KindMPS
		ev.Device.Type = "mps"
		ev.RequestedBytes = sizeOf(reMetalGGML.FindStringSubmatch(msg)[1])
	case reGGMLBuffer.MatchString(msg):
		m := reGGMLBuffer.FindStringSubmatch(msg)
		ev.RequestedBytes = sizeOf(m[2])
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

func fillKernelKill(ev *Event, msg string) {
	ev.Framework, ev.Device, ev.Signal = "linux", &Device{Type: "cpu"}, "Killed"
	if m := reKernelKill.FindStringSubmatch(msg); m != nil {
		ev.PID = int64p(m[1])
	} else if m := reOOMKillTask.FindStringSubmatch(msg); m != nil {
		ev.PID = int64p(m[2])
	}
	if strings.Contains(msg, "invoked oom-killer") {
		ev.Suspected = false
	}
}

func fillSigkill(ev *Event, msg string) {
	ev.Device, ev.Signal = &Device{Type: "cpu"}, "SIGKILL"
	switch {
	case reJobKilled.MatchString(msg):
		ev.PID = int64p(reJobKilled.FindStringSubmatch(msg)[1])
		ev.Suspected = true
	case reShellKilled.MatchString(msg):
		ev.PID = int64p(reShellKilled.FindStringSubmatch(msg)[1])
		ev.Suspected = true
	case reElasticFailed.MatchString(msg):
		m := reElasticFailed.FindStringSubmatch(msg)
		ev.PID = int64p(m[2])
		ev.Suspected, ev.Framework = true, "torchrun"
	case reElasticExit.MatchString(msg):
		ev.PID = int64p(reElasticExit.FindStringSubmatch(msg)[1])
		ev.Suspected, ev.Framework = true, "torchrun"
	case reSigkillPID.MatchString(msg):
		ev.PID = int64p(reSigkillPID.FindStringSubmatch(msg)[1])
		ev.Suspected, ev.Framework = true, "torchrun"
	case strings.Contains(msg, "oom") || strings.Contains(msg, "Out Of Memory") || strings.Contains(msg, "memory limit"):
		ev.Framework = "slurm"
		if m := reSlurmLimit.FindStringSubmatch(msg); m != nil {
			ev.ProcessInUseBytes = sizeOf(m[1])
			ev.TotalBytes = sizeOf(m[2])
		}
		if strings.Contains(msg, "OOMKilled") {
			ev.Framework = "kubernetes"
		}
	case strings.Contains(msg, "appears to have died"):
		ev.Framework, ev.Suspected = "jupyter", true
	default:
		ev.Suspected = true
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
			// to allocate 20.00 mib (gpu 0; 4.00 gib total capacity; …)"
			name:    "torch-allocator-retyped",
			closes:  true,
			anchors: []string{"tried to allocate", "TRIED TO ALLOCATE", "Tried To Allocate", "triedtoallocate"},
			locate:  regexp.MustCompile(`(?i)(?:\b\w+ ?out ?of ?memory\.? ?)?tried ?to ?allocate`),
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
			locate:  regexp.MustCompile(`\b(?:CUDA|HIP|XPU|NPU|MUSA|MLU) out of memory\.?\s*$`),
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
