package parser

// PyTorch allocator families: the caching allocator message of every era (CUDA, HIP, XPU, NPU, MUSA), cudaMallocAsync and MPS.

import (
	"strings"
)

var (
	reDeviceWord    = lazyRE(`(\w+) out of memory\.\s*$`)
	reGPUNew        = lazyRE(`GPU ?(\d+|[\x01-\x1f])? has (?:a total capac(?:i)?ty of|total) ` + size)
	reTruncatedGPU  = lazyRE(`Tried to allocate [^.]*\.\d+ \w+\. GPU\s*$`)
	reExpandableMap = lazyRE(`expandable_segments: memory mapping failed with OOM on device (\d+) while trying to map (\d+) bytes(?: \(free: (\d+), total: (\d+)\))?`)
	// StreamExecutor's "failed to alloc 1433389056 bytes unified memory",
	// "failed to alloc 67108864 bytes on host"
	reSEAlloc = lazyRE(`failed to alloc (\d+) bytes(?: unified memory)?( on host)?`)
	// "…; total memory reported: 11523260416" (StreamExecutor, after a
	// driver call failed)
	reSETotal      = lazyRE(`total memory reported: (\d+)`)
	reAllocEnvHint = lazyRE(`(PYTORCH_(?:CUDA_|HIP_|MUSA_)?ALLOC_CONF)=expandable_segments`)
	reMPS          = lazyRE(`MPS allocated: ` + size + `, other allocations: ` + size + `(?:, max allowed: ` + size + `)?\)\.?\s*Tried to allocate ` + size + `(?: on (private|shared) pool)?`)
)

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
			word = deviceWord(m[1])
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
	case "", "CUDA": // or the message's start was lost: the layout is the CUDA allocator's
		ev.Kind, ev.Device = KindCUDA, &Device{Type: "cuda"}
	default:
		// another vendor's backend printing the same message ("MLU out of
		// memory", "GCU out of memory"): its own device name
		ev.Kind, ev.Device = KindCUDA, &Device{Type: strings.ToLower(word)}
	}
	if m := xpuLimitIn(msg); m != nil {
		// IPEX on Intel Arc: one buffer above the per-allocation cap.
		ev.Kind, ev.Device = KindXPU, &Device{Type: "xpu"}
		ev.Hint, ev.MaxAllocationBytes = "allocation-limit", sizeOf(m[1])
	}
	if strings.Contains(msg, "Tried to allocate more than 1EB") {
		ev.RequestOverflow = true // a size no device has: a shape bug or an overflow
	} else if i := strings.Index(msg, "Tried to allocate "); i >= 0 {
		// Older releases print a negative size read as unsigned as it
		// is: "Tried to allocate 17179869184.00 GiB".
		figure := sizeTextAt(msg[i+len("Tried to allocate "):])
		requestOf(ev, figure)
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
		// 1.0–1.3's "N cached" is already cached-but-unallocated memory:
		// the contract (report-json.md) puts it in reserved_unallocated_bytes
		// as printed, and cached_bytes keeps the message's own word.
		ev.CachedBytes = v
		if ev.ReservedUnallocatedBytes == nil {
			ev.ReservedUnallocatedBytes = v
		}
		ev.Variant = "torch-1.0-1.3"
	}
	// 2.x layout: "GPU 0 has a total capacity of … of which … is free. …",
	// or retyped by hand: "GPU 2 has total 47.40 GiB of which 1.96 GiB is free."
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
	if ev.FreeBytes == nil && strings.HasPrefix(ev.Variant, "torch-2") {
		// "of which" garbled by the paste ("… of whi ich 43.61 GiB is
		// free."): the 2.x clause's size stands before " is free".
		if v, ok := sizeBefore(msg, " is free"); ok {
			ev.FreeBytes = v
		}
	}
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
		// Cut before PyTorch's own figures ("Process 2116 has 10.95 GiB
		// memory in use. Of th"): the process list ended without a
		// this-process clause, so a list of one is this process.
		if len(ev.OtherProcesses) == 1 && strings.Contains(ev.Message, "memory in use. Of") {
			ev.ProcessInUseBytes = ev.OtherProcesses[0].Bytes
			ev.OtherProcesses = ev.OtherProcesses[:0]
		}
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
		requestOf(ev, m[4])
		if strings.Contains(m[1], "GB") || strings.Contains(m[1], "MB") || strings.Contains(m[1], "KB") {
			ev.Variant = "mps-old-units"
		}
	}
	if strings.Contains(msg, "PYTORCH_MPS_HIGH_WATERMARK_RATIO") {
		ev.Hint, ev.HintEnv = "mps_watermark", "PYTORCH_MPS_HIGH_WATERMARK_RATIO"
	}
}

// deviceWord is the backend a message's "X out of memory" names. A paste
// can glue text to it ("# whyCUDA out of memory"): a known backend at the
// word's end is that backend, and another vendor's name (MLU, GCU) is in
// capitals; anything else leaves the CUDA allocator's layout.
func deviceWord(w string) string {
	for _, known := range []string{"CUDA", "HIP", "XPU", "DPCPP", "NPU", "MUSA"} {
		if strings.HasSuffix(w, known) {
			return known
		}
	}
	if strings.ToUpper(w) != w {
		return ""
	}
	return w
}

// fillExpandableMap reads the expandable-segments mapping failure: the
// device, the bytes it tried to map, and the driver's free and total
// memory as bare byte counts.
//
// It is a warning: the allocator then frees its cache and retries, and the
// program may carry on. It stands as a suspected failure only when nothing
// else failed (a later OOM is the failure, and repeats are one).
func fillExpandableMap(ev *Event, msg string) {
	ev.Framework, ev.Variant, ev.Hint = "pytorch", "expandable-segments-map", "expandable_segments"
	ev.tentative, ev.headerOnly, ev.Suspected = true, true, true
	m := reExpandableMap.FindStringSubmatch(msg)
	if m == nil {
		return
	}
	ev.Device = &Device{Type: "cuda", Index: intp(m[1])}
	requestOf(ev, m[2]+" bytes")
	if m[3] != "" {
		ev.FreeBytes, ev.TotalBytes = sizeOf(m[3]+" bytes"), sizeOf(m[4]+" bytes")
	}
}

// xpuLimitIn is reXPULimit's match in msg, looked for only when msg holds
// its fixed words, so that a CUDA message never compiles it.
func xpuLimitIn(msg string) []string {
	if !strings.Contains(msg, "can NOT allocate") {
		return nil
	}
	return reXPULimit.FindStringSubmatch(msg)
}
