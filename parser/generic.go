package parser

import (
	"cmp"
	"strconv"
	"strings"
	"sync"
)

// The generic recogniser (detection tier 2, issue 11 §1): a line that says
// memory ran out, in any runtime's words, together with an error context,
// is a failure of kind generic-oom even when no family knows its layout.
// Its figures come from generic size and device patterns; what it does not
// print stays null.
type genericPatterns struct {
	reGenericWords      *lazyRegexp
	reGenericStatus     *lazyRegexp
	reGenericError      *lazyRegexp
	reGenericBenign     *lazyRegexp
	reGenericNotFailure *lazyRegexp
	reGenericCode       *lazyRegexp
	reGenericHeading    *lazyRegexp
	reGenericRequest    *lazyRegexp
	reGenericSizeof     *lazyRegexp
	reGenericFree       *lazyRegexp
	reGenericTotal      *lazyRegexp
	reGenericDeviceType *lazyRegexp
	reGenericDeviceIdx  *lazyRegexp
	reGenericHeader     *lazyRegexp
	reRustPanic         *lazyRegexp
	reGenericStatement  *lazyRegexp
	reGenericRow        *lazyRegexp
	reGenericHexSize    *lazyRegexp
	reGenericAllocFail  *lazyRegexp
}

// genericRes compiles the generic patterns on first use, once per process.
var genericRes = sync.OnceValue(func() *genericPatterns {
	return &genericPatterns{
		// the memory-failure vocabulary, prose or constant form:
		// "out of memory", "OUT_OF_MEMORY", "OutOfMemory", "out of GPU and
		// shared host memory" (Blender Cycles), "resource exhausted",
		// Windows' "Not enough memory resources are available to complete
		// this operation" (E_OUTOFMEMORY, also when a paste garbles its
		// first word),
		// "failed to allocate", "cannot allocate", "allocation of 2 GB failed",
		// "Failed to cudaMalloc" (Faiss), OpenCL's "Memory Object Allocation
		// Failure" (Boost.Compute's what()),
		// "not enough memory" (DeepSpeed's "no enough memory"),
		// "insufficient device memory", MIOpen's "Memory
		// not available to allocate buffer: 528515072", "OOM", and the
		// same in Chinese (显存不足 "GPU memory insufficient", 内存溢出
		// "memory overflow"), Japanese (メモリ不足) and Korean (메모리 부족)
		reGenericWords: lazyRE(`(?i)out[ _]?of[ _]?(?:(?:device|gpu|host|system|video|shared|cuda|vram|dram|hbm|gtt)[ _](?:and (?:shared )?(?:host|system) )?)?memory|resource[ _]?exhausted|(?:failed|unable|cannot|can ?not|could ?not|couldn't|can't) (?:to )?allocate|(?:memory )?allocation (?:of [^,;]{1,40} )?(?:has )?failed|not? enough (?:\w+ )?(?:memory|vram|ram)\b|insufficient (?:\w+ )?(?:memory|vram|ram)\b|(?:ran|run|running) out of (?:\w+ )?(?:memory|vram)|memory exhausted|memory not available to allocate|(?:could ?not|cannot|can't) be allocated|mem_object_allocation_failure|memory object allocation failure|\bfailed to (?:cuda|hip)malloc\w*|enough memory resources|\be_outofmemory\b|\bbad_alloc\b|\boom\b|(?:显存|内存|記憶體|顯存)(?:资源|資源)?(?:不足|不够|溢出|耗尽|用完)|メモリ(?:が)?不足|メモリー不足|메모리(?: 가)? ?부족`),
		// numeric statuses, read when no words say it: cudaErrorMemoryAllocation and
		// CUDA_ERROR_OUT_OF_MEMORY are 2, hipErrorOutOfMemory 2,
		// VK_ERROR_OUT_OF_DEVICE_MEMORY -2, a driver call's "res=2"
		// ("cuMemoryAllocate failed res=2"), and Windows' HRESULT
		// E_OUTOFMEMORY as hex (0x8007000E; 0x80070008, ERROR_NOT_ENOUGH_MEMORY,
		// in .NET's "(Exception from HRESULT: 0x80070008)") or signed ("Unknown error
		// -2147024882", torch-directml)
		reGenericStatus: lazyRE(`\b(?:cuda|cu|hip)\w*[^;\n]{0,60}?(?:\(2 vs\. 0\)|(?:error|status|code|result|res|returned|failed with)(?: code)?\s*[=:]?\s*\(?2\)?(?:[\s,.;:)]|$))|(?:\b0x|\b)8007000[Ee8]\b|\B-2147024882\b|\bvk\w*[^;\n]{0,40}?(?:error|result|failed|returned)\s*[=:]?\s*-2\b`),
		// an error context: a level, a check macro, an exception class, an
		// abort, the same words in Chinese, Japanese or Korean (错误, 失败,
		// エラー, 오류), or the source path a C++ runtime throws from
		// ("/onnxruntime_src/onnxruntime/core/framework/bfc_arena.cc:368 void*
		// onnxruntime::BFCArena::AllocateRawInternal(…) Failed to allocate
		// memory for requested buffer of size 15728896"), the "<error> in
		// <file> at line N" of CUDA's common check macro ("out of memory in
		// ./Connections/ConnGrowth_d.cu at line 34"), ONNX Runtime's
		// "Non-zero status code returned while running ReduceSum node",
		// Ascend CANN's error codes ("EL0004: … Failed to allocate
		// memory."), libstdc++'s "what():" line of an uncaught exception
		// ("  what():  Memory Object Allocation Failure"); a
		// bare file name is a logger's tag ("[W812 16:00:28.6
		// CUDACachingAllocator.cpp:3933]")
		reGenericError: lazyRE(`[/\\][\w.-]+\.(?:cc|cpp|cxx|cu|c|h|hpp|mm):\d+\b|\bin \S+\.(?:cu|cuh|cc|cpp|cxx|c|h|hpp) at line \d+\b|\b(?:ERROR|Error|error|FATAL|Fatal|fatal|CRITICAL|Critical|PANIC|panic|Check failed|CHECK failed|check failed|Assertion|assertion|ASSERT|Abort|abort|aborted|Aborted|aborting|terminate|terminating|uncaught|Exception|exception|failure|Failure|failed|Failed|FAILED|core dumped|crashed|Crash)\b|\bwhat\(\):|\w+(?:Error|Exception|Failure)\b|(?i:\bnon-zero (?:status|exit) (?:code|status)\b)|_?ERROR_|\bE[A-Z]\d{4}\b|^E\d{4} |^\[?E\]? |\[E\]|\[E:|\bE/\w|错误|錯誤|报错|失败|失敗|异常|異常|エラー|오류|실패`),
		// words that make a mention advice, documentation, a handled case, a
		// warning or a list of possible causes rather than a failure (Ray's
		// "There are some potential root causes. (1) The process is killed
		// by SIGKILL by OOM killer …" after any unexpected worker exit, its
		// raylet's "0 Workers (tasks / actors) killed due to memory
		// pressure (OOM)", TensorFlow's BFC allocator's "ran out of memory
		// trying to allocate 3.87GiB. The caller indicates that this is not a
		// failure", the dynamic loader's "libgomp.so.1: cannot allocate memory
		// in static TLS block"), an illegal memory access that an allocator
		// wraps as std::bad_alloc (RMM's "MemoryError: std::bad_alloc: CUDA
		// error at: … cudaErrorIllegalAddress an illegal memory access was
		// encountered")
		reGenericNotFailure: lazyRE(`(?i)\billegal memory access\b|\bcudaErrorIllegalAddress\b|\b0 workers? \(tasks / actors\) killed|\bstatic TLS block\b|\b(?:is|was) not a failure\b|\b(?:potential|possible|probable) (?:root )?causes?\b|\b(?:warn(?:ing)?|info|debug|notice|retry|retrying|retried|will retry|fall(?:ing)? ?back|caught|handled|recover(?:ed|ing)?|skipp(?:ed|ing)|ignor(?:ed|ing)|gracefully)\b|警告|提示|重试|注意|경고`),
		// … and advice: words that make a mention a hint or documentation
		// (but a remedy the error itself prints after the words, on a line
		// an exception opens, is part of the error: genericUnder)
		reGenericBenign: lazyRE(`(?i)\b(?:hint|tip|avoid|prevent|try (?:to (?:reduce|lower|decrease|limit|use|set|free|clear|enable|disable|run|restart|increase|add|pass|switch|change|upgrade|install|avoid|make|call|close|kill|move|split|shrink)|setting|reducing|using|lowering)|consider|recommend\w*|if you|in case|to reduce|reduce the|you may|you might|may (?:cause|help|need|want)|might (?:cause|help)|could cause|can cause|otherwise|should|documentation|no longer|fixed|resolved|expected|test_\w+)\b|如果|尝试|嘗試|建议|建議|もし|場合は|경우`),
		// code and prose around a failure, not the failure: a handler, a
		// definition, a comment. A keyword is a whole word ("defaultAllocator.cpp::…]
		// Error Code 1: Cuda Runtime (out of memory)" is no "def"), and "*"
		// opens a comment line only before a space ("*ERROR: HIPError(code
		// hipErrorOutOfMemory, out of memory)*" is Markdown emphasis)
		reGenericCode: lazyRE(`^\s*(?:(?:except|catch|if|elif|else|def|class|import|from|print|return|raise|with|for|while|assert)\b|#|//|/\*|\*(?:\s|$)|logger\.|log\.|>>>|\$ )|\bexcept\b|\bcatch\s*\(`),
		// a Markdown heading that holds a log line, not a comment: "# [E] [TRT]
		// C:\source\rtSafe\safeRuntime.cpp (25) - Cuda Error in …: 2 (out of
		// memory)", "# RuntimeError: CUDA error: …", "# E:onnxruntime:Default, …"
		reGenericHeading: lazyRE(`^\s*#{1,6}\s+(?:\[|[\w.]*(?:Error|Exception|Failure)\b|(?:E|F|ERROR|FATAL|CRITICAL):)`),
		// a size a generic message asks for: "allocate 1.50 GiB", "of size 8388608",
		// "requested 2 GB", "allocation of 512 MB", "allocate tensor with
		// 1032884736 bytes" (DirectML), "cudaMalloc 16000000000 bytes"
		// (Faiss); a count of C elements
		// is reGenericSizeof's
		reGenericRequest: lazyRE(`(?i)(?:allocat(?:e|ing|ion of)(?: tensor with)?|(?:cuda|hip)malloc\w*|request(?:ed|ing)?(?: for| of)?|requested amount of (?:\w+ )?memory \(|of size|size\s*[=:])\s*:?\s*(\d[\d,]*(?:\.\d+)?\s?(?:bytes|[KMGTP]i?B|B)\b|\d{4,}\b)`),
		// a request a C program prints as a count of elements: "try to
		// allocate workspace = 1107853312 * sizeof(float)" (darknet)
		reGenericSizeof: lazyRE(`(?i)allocat\w*(?:\s+[a-z_]\w*){0,2}\s*[=:]?\s*\b(\d{1,18})\s*\*\s*sizeof\(\s*(float|double|half|__half|int|char|short|long|int8_t|uint8_t|int16_t|uint16_t|int32_t|int64_t|uint32_t|uint64_t|size_t)\s*\)`),
		// "(3.20 GiB free)", "free: 55 MB", "available memory is only 17.5MB"
		reGenericFree: lazyRE(`(?i)(\d[\d,]*(?:\.\d+)?\s?(?:bytes|[KMGTP]i?B|B))\s+(?:is\s+)?free\b|\bfree(?: memory)?\s*[:=]\s*(\d[\d,]*(?:\.\d+)?\s?(?:bytes|[KMGTP]i?B|B))\b|\bavailable(?: memory)?(?: is)?(?: only)?\s*[:=]?\s*(\d[\d,]*(?:\.\d+)?\s?(?:bytes|[KMGTP]i?B|B))\b`),
		// "total: 24 GiB", "24.00 GiB total"
		reGenericTotal: lazyRE(`(?i)\btotal(?: memory| capacity)?\s*[:=]\s*(\d[\d,]*(?:\.\d+)?\s?(?:bytes|[KMGTP]i?B|B))\b|(\d[\d,]*(?:\.\d+)?\s?(?:bytes|[KMGTP]i?B|B))\s+total\b`),
		// the device type by name, and its index in any notation: "GPU 0",
		// "GPU=0", "cuda:1", "device 2", "device ordinal 0"
		reGenericDeviceType: lazyRE(`(?i)\b(cuda|hip|rocm|vulkan|metal|mps|xpu|npu|tpu|sycl|level.?zero|ze_result|ur_result)|\b(gpu|nvidia|amdgpu|ascend|cpu|host|ram|system memory)\b`),
		// an error's header on a line of its own: "CUDA ERROR:", "FATAL ERROR:"
		reGenericHeader: lazyRE(`^(?:[A-Za-z][\w.]* )?(?:ERROR|Error|error|FATAL|Fatal)\s*:$`),
		// a Rust panic's opening, its message inline (before 1.73) or on
		// the next line: "thread 'main' panicked at 'wgpu error: …",
		// "thread 'main' panicked at src/main.rs:5:5:"
		reRustPanic: lazyRE(`^thread '[^']*' panicked at `),
		// a line that says only that memory ran out, which is an error by
		// the convention C programs print their fatal errors in: the
		// program's name, a subject and the words, and perhaps the request
		// in parentheses — "ihaskell: out of memory (requested 2097152
		// bytes)" (GHC's runtime), "System is out of GPU and shared host
		// memory" (Blender Cycles), "Out of memory.", "Insufficient graphics
		// memory for this model!" (an application's alert)
		reGenericStatement: lazyRE(`(?i)^(?:[\w\-]+:\s*)?(?:(?:the\s+)?(?:system|device|gpu|process|program|application|machine|host|worker|server)\s+(?:is|was|ran|has run|went)\s+)?out of (?:(?:device|gpu|host|system|video|shared|cuda|vram)\s+(?:and (?:shared )?(?:host|system)\s+)?)?memory(?:\s*\([^()]*\))?\s*[.!]?$|^(?:[\w\-]+:\s*)?(?:insufficient|not enough) (?:\w+ ){0,2}memory(?: for this \w+)?\s*[.!]?$`),
		// a row of figures a runtime prints under its failure, a bare
		// number being bytes: "- Free memory: 8126464", "- Requested
		// memory: 33554432" (XGBoost's device_helpers)
		reGenericRow: lazyRE(`(?i)^[-*\s]*(free|requested|available|total)(?: device| gpu)? memory\s*[:=]\s*(\d[\d,]*(?:\.\d+)?)\s*(bytes|[KMGTP]i?B|B)?\s*$`),
		// the last resort of the vocabulary, read when no other words
		// are on the line (so that "cudaMalloc failed: out of memory"
		// keeps its "failed" as the error context): an allocator's name
		// before "failed" ("bm_alloc_gmem failed", Sophgo's bmlib; not a
		// deallocation's), "Alloc Device Memory Failed"
		reGenericAllocFail: lazyRE(`(?i)\b(?:[a-ce-z_]\w*)?alloc\w*(?:\(\))? failed\b|\balloc(?:ate)? (?:\w+ )?memory failed\b`),
		// a request printed in hex: "size = 0xc0fb4000" (Sophgo's bmlib)
		reGenericHexSize:   lazyRE(`(?i)\bsize\s*[=:]\s*0x([0-9a-f]{1,15})\b`),
		reGenericDeviceIdx: lazyRE(`(?i)\b(?:gpu|cuda|device(?: ordinal)?|dev(?:_id)?|ordinal|rocm|hip|xpu|npu)\s*[:=#]?\s*(\d{1,3})\b`),
	}
})

// genericMatcher is the tier-2 recogniser, tried after every family.
func genericMatcher() failureMatcher {
	return failureMatcher{
		name: "generic",
		// every case form of the vocabulary holds one of these
		anchors: []string{"memory", "Memory", "MEMORY", "xhausted", "XHAUSTED", "lloc", "LLOC", "OOM", "VRAM", "vram", "enough RAM", "insufficient RAM",
			// a numeric status is read only next to the runtime's name
			"(2 vs. 0)", "CUDA", "cudaMalloc", "cuMem", "hipMalloc", "VkResult", "VK_",
			// Windows' E_OUTOFMEMORY as an HRESULT
			"0x8007000E", "0x8007000e", "0x80070008", "Unknown error -2147024882",
			// the CJK vocabulary
			"显存", "内存", "記憶體", "顯存", "メモリ", "메모리"},
		locate: reGenericLine,
		judge:  genericFailure,
		kind:   KindGeneric,
		fill:   fillGeneric,
	}
}

// reGenericLine finds where a generic failure's text starts: the line
// itself (genericFailure decides whether it is one).
var reGenericLine = lazyRE(`^\s*`)

// reARTAlloc reads Android's runtime refusing a Java allocation:
// "java.lang.OutOfMemoryError: Failed to allocate a 60 byte allocation with
// 0 free bytes and -663KB until OOM".
var reARTAlloc = lazyRE(`Failed to allocate a (\d+) byte allocation with (\d+) free bytes`)

// reGenericExc reads the exception class a generic message starts with.
var reGenericExc = lazyRE(`^([A-Za-z_][\w.:]*(?:Error|Exception|Failure))\s*:`)

// genericFailure reports whether a line is a memory failure by its words
// alone, and the words that make it one: the vocabulary and the error
// context.
func genericFailure(text, prefix string) (words []string, ok bool) {
	return genericUnder(text, prefix, "")
}

// genericUnder is genericFailure for a line that an error header of its
// own just above opens ("CUDA ERROR:" over "   Failed to allocate cuda
// memory for maxent"): the header is the error context when the line has
// none.
func genericUnder(text, prefix, header string) (words []string, ok bool) {
	if len(text) > 2000 {
		return nil, false
	}
	loc := genericRes().reGenericWords.FindStringIndex(text)
	if loc == nil {
		loc = genericRes().reGenericStatus.FindStringIndex(text)
	}
	if loc == nil {
		loc = genericRes().reGenericAllocFail.FindStringIndex(text)
	}
	if loc == nil {
		return nil, false
	}
	code := text
	if genericRes().reGenericHeading.MatchString(text) {
		code = text[strings.IndexByte(text, '#'):]
		code = strings.TrimLeft(code, "# \t")
	}
	// Advice or a notice around the words makes the line a notice — but
	// after them on a line an exception opens ("RuntimeError: Decode out of
	// memory. Try to lower your batch size.") it is the error's own remedy.
	benign := text
	if reGenericExc.MatchString(text) {
		benign = text[:loc[0]]
	}
	if genericRes().reGenericNotFailure.MatchString(text) || genericRes().reGenericBenign.MatchString(benign) || genericRes().reGenericCode.MatchString(code) {
		return nil, false
	}
	// the error context must stand outside the vocabulary itself
	rest := text[:loc[0]] + " " + text[loc[1]:]
	ctx := genericRes().reGenericError.FindString(rest)
	if ctx == "" && header != "" && !quietLevel(prefix) && !inIdentifier(text, loc) {
		// a header's message line, not a notice logged under it nor a
		// name (cargo test's "tests::handles_out_of_memory")
		ctx = header
	}
	if ctx == "" && !quietLevel(prefix) && genericRes().reGenericStatement.MatchString(strings.TrimSpace(text)) {
		return []string{text[loc[0]:loc[1]]}, true // the line is the error
	}
	if ctx == "" {
		return nil, false
	}
	return []string{text[loc[0]:loc[1]], strings.TrimSpace(ctx)}, true
}

// inIdentifier reports whether the words at loc are part of a longer
// identifier: a letter, digit or underscore touches them.
func inIdentifier(text string, loc []int) bool {
	word := func(c byte) bool { return c == '_' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	return loc[0] > 0 && word(text[loc[0]-1]) || loc[1] < len(text) && word(text[loc[1]])
}

// quietLevel reports whether a line's stripped prefix gives it a level
// below error — WARNING, INFO, DEBUG, glog's I and W, TensorRT's [W] —
// which makes a bare statement that memory ran out a notice, not the
// failure: "2024-01-01 10:00:00 WARNING - out of memory."
func quietLevel(prefix string) bool {
	if len(prefix) > 1 && (prefix[0] == 'I' || prefix[0] == 'W' || prefix[0] == 'D') && isDigit(prefix[1]) {
		return true // glog: "W0314 11:05:29.634000 1234 foo.cc:12] "
	}
	for _, w := range strings.FieldsFunc(prefix, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) {
		switch strings.ToLower(w) {
		case "w", "i", "d", "warn", "warning", "info", "debug", "notice", "trace", "verbose":
			return true
		}
	}
	return false
}

// errorHeader returns for how many lines after it a line heads an error
// whose message follows on the lines below, 0 for a line that is no
// header, or -1 for a line that ends a panic's message: an error's header alone
// ("CUDA ERROR:", "Error:", "FATAL:") covers the next two; a Rust panic's
// opening ("thread 'main' panicked at 'wgpu error: Validation Error")
// covers its message, which runs over the "Caused by:" lines under it
// ("    Not enough memory left", five lines down in wgpu's).
func errorHeader(text string) int {
	t := strings.TrimSpace(text)
	if panicEnd(t) {
		return -1 // the panic's message ended: nothing below is under it
	}
	if strings.HasPrefix(t, "thread '") && genericRes().reRustPanic.MatchString(t) {
		return 8
	}
	if len(t) < 4 || len(t) > 40 || t[len(t)-1] != ':' {
		return 0
	}
	if genericRes().reGenericHeader.MatchString(t) {
		return 2
	}
	return 0
}

// panicEnd reports whether a line closes a Rust panic's message: the
// backtrace hint or the backtrace itself, or cargo test's summary of its
// failures. Each holds one of panicEndKeys, which the per-line gate lets
// through, so that a late panic ends where an early one does.
func panicEnd(t string) bool {
	return strings.HasPrefix(t, "note: run with `RUST_BACKTRACE") || t == "stack backtrace:" || t == "failures:" || strings.HasPrefix(t, "test result:")
}

// panicEndKeys are the words of panicEnd's lines.
func panicEndKeys() []string {
	return []string{"RUST_BACKTRACE", "stack backtrace:", "failures:", "test result:"}
}

func fillGeneric(ev *Event, msg string) {
	if m := reGenericExc.FindStringSubmatch(msg); m != nil && ev.Exception == "" {
		ev.Exception = Optional(m[1])
	}
	if m := reARTAlloc.FindStringSubmatch(msg); m != nil {
		requestOf(ev, m[1]+" bytes")
		ev.FreeBytes = sizeOf(m[2] + " bytes")
	} else if m := genericRes().reGenericSizeof.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			ev.RequestedBytes = tensorBytes([]int64{n}, strings.ToLower(m[2]))
		}
	} else if m := genericRes().reGenericRequest.FindStringSubmatch(msg); m != nil {
		requestOf(ev, m[1])
	} else if m := genericRes().reGenericHexSize.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.ParseInt(m[1], 16, 64); err == nil {
			ev.RequestedBytes = &n
		}
	}
	if m := genericRes().reGenericFree.FindStringSubmatch(msg); m != nil {
		ev.FreeBytes = sizeOf(m[1] + m[2] + m[3])
	}
	if m := genericRes().reGenericTotal.FindStringSubmatch(msg); m != nil {
		ev.TotalBytes = sizeOf(m[1] + m[2])
	}
	ev.Device = genericDevice(msg)
	if ev.Device == nil && strings.Contains(msg, "bad_alloc") {
		ev.Device = &Device{Type: "cpu"} // operator new: host memory
	}
}

// genericDevice reads the device a message names, nil when it names none.
func genericDevice(msg string) *Device {
	// An accelerator named anywhere is the device, before the host words
	// a message may name first ("failed to copy tensor from host to GPU
	// 0: out of memory"); host memory only when it names no accelerator.
	ms := genericRes().reGenericDeviceType.FindAllStringSubmatch(msg, 8)
	if ms == nil {
		return nil
	}
	m := ms[0]
	for _, c := range ms {
		if k := strings.ToLower(c[1] + c[2]); k != "cpu" && k != "host" && k != "ram" && k != "system memory" {
			m = c
			break
		}
	}
	d := &Device{}
	switch strings.ToLower(m[1] + m[2]) {
	case "cuda", "gpu", "nvidia":
		d.Type = "cuda"
	case "hip", "rocm", "amdgpu":
		d.Type = "rocm"
	case "mps", "metal":
		d.Type = "mps"
	case "vulkan":
		d.Type = "vulkan"
	case "xpu", "sycl", "ze_result", "ur_result":
		d.Type = "xpu"
	case "npu", "ascend":
		d.Type = "npu"
	case "tpu":
		d.Type = "tpu"
	default:
		if strings.HasPrefix(strings.ToLower(m[1]), "level") {
			d.Type = "xpu" // Level Zero
		} else {
			d.Type = "cpu"
		}
	}
	if d.Type != "cpu" {
		if i := genericRes().reGenericDeviceIdx.FindStringSubmatch(msg); i != nil {
			d.Index = intp(i[1])
		}
	}
	return d
}

// followingFigures reads the figures a native runtime prints on the lines
// just after its failure into those the message left null: TensorRT's
// "Requested amount of GPU memory (15485030400 bytes) could not be
// allocated" under "Error Code 1: Cuda Runtime (out of memory)", XGBoost's
// "- Free memory: 8126464" and "- Requested memory: 33554432" rows under
// its "cudaErrorMemoryAllocation: out of memory". Only the first three
// lines are read. A line of prose counts only when it says itself that an
// allocation failed (the vocabulary, no retry or advice): a pool's size, a
// retry's smaller request or the host's statistics are no figure of the
// failure. Rows count only as a block that holds the request: "- Total
// memory: 503 GB" alone may be the host's.
func followingFigures(ev *Event) {
	if ev.Kind != KindGeneric && ev.Kind != KindCUDARuntime {
		return
	}
	lines := ev.Following[:min(len(ev.Following), 3)]
	var rows [][]string
	asked := false
	for _, f := range lines {
		if m := genericRes().reGenericRow.FindStringSubmatch(f.Text); m != nil {
			rows = append(rows, m)
			asked = asked || strings.EqualFold(m[1], "requested")
		}
	}
	if asked {
		for _, m := range rows {
			n := sizeOf(m[2] + m[3])
			if m[3] == "" {
				n = bareBytes(m[2])
			}
			switch strings.ToLower(m[1]) {
			case "free", "available":
				ev.FreeBytes = cmp.Or(ev.FreeBytes, n)
			case "requested":
				ev.RequestedBytes = cmp.Or(ev.RequestedBytes, n)
			case "total":
				ev.TotalBytes = cmp.Or(ev.TotalBytes, n)
			}
		}
	}
	for _, f := range lines {
		if !genericRes().reGenericWords.MatchString(f.Text) || genericRes().reGenericBenign.MatchString(f.Text) || genericRes().reGenericNotFailure.MatchString(f.Text) {
			continue
		}
		if m := genericRes().reGenericRequest.FindStringSubmatch(f.Text); m != nil && ev.RequestedBytes == nil {
			requestOf(ev, m[1])
		}
		if m := genericRes().reGenericFree.FindStringSubmatch(f.Text); m != nil && ev.FreeBytes == nil {
			ev.FreeBytes = sizeOf(m[1] + m[2] + m[3])
		}
	}
}

// bareBytes reads a row's bare number of bytes ("8126464", "8,126,464").
func bareBytes(s string) *int64 {
	n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	if err != nil {
		return nil
	}
	return &n
}
