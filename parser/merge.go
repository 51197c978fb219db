package parser

import "strings"

// mergeWindow is how many lines apart two reports of one failure may be
// printed, per kind: a ggml allocation failure takes three consecutive
// lines, TensorFlow's BFC allocator dumps hundreds of lines between its
// warning and the ResourceExhaustedError, and a torchrun summary repeats a
// rank's death dozens of lines later.
func mergeWindow(kind string) int {
	switch kind {
	case KindTF:
		return 2000
	case KindHostKill:
		return 200
	case KindNCCL, KindXLA:
		return 40
	}
	return 6
}

// sameFailure reports whether ev is a repeat of prev: the same message
// re-raised by a wrapper (elastic summary, vLLM engine, a chained
// exception), or one failure that its library reports over several lines.
func sameFailure(prev, ev *Event) bool {
	if !sameRank(prev.Rank, ev.Rank) {
		return false
	}
	if prev.Message == ev.Message && prev.Kind == ev.Kind {
		return true
	}
	if prev.Kind == ev.Kind && ev.Line-prev.Line <= reprWindow && sameFigures(prev, ev) {
		// A logger's line quoting the exception ("ERROR … engine.py:160]
		// RuntimeError('CUDA out of memory. Tried to allocate …')") and the
		// traceback that ends in it: the same figures to the byte.
		return true
	}
	if seRetry(prev, ev) {
		return true
	}
	if graphKind(prev.Kind) && graphKind(ev.Kind) && ev.Line-prev.Line <= reprWindow && sameRequestAndFree(prev, ev) {
		// XLA's status and TensorFlow's op kernel quoting it ("OP_REQUIRES
		// failed at tpu_execute_op.cc:266 : RESOURCE_EXHAUSTED: Attempting
		// to reserve 6.48G …"): one failure, the same figures to the byte.
		return true
	}
	if prev.Kind != ev.Kind || ev.Line-prev.Line > mergeWindow(ev.Kind) || prev.stream != ev.stream && prev.Rank == nil && ev.Rank == nil && ev.Kind != KindHostKill {
		return false
	}
	switch ev.Kind {
	case KindCUDA, KindHIP, KindXPU, KindMPS, KindCPU:
		// Two allocator messages are one failure only when the later one
		// adds nothing new: the THC pair, or a bare repeat.
		if ev.Variant == "torch-0.x-thc" || prev.Variant == "torch-0.x-thc" {
			return true
		}
		if echoOf(prev, ev) || echoOf(ev, prev) {
			return true
		}
		if prev.Framework == "ggml" || ev.Framework == "ggml" || prev.Framework == "mlx" {
			return nearSize(prev.RequestedBytes, ev.RequestedBytes)
		}
		return false
	case KindHostKill:
		return prev.PID == nil || ev.PID == nil || *prev.PID == *ev.PID
	}
	return nearSize(prev.RequestedBytes, ev.RequestedBytes)
}

// echoOf reports whether short repeats part of full's words without any
// of its figures: an application's headline of the error
// ("DefaultCPUAllocator: not enough memory") printed a few lines from the
// error itself ("RuntimeError: [enforce fail at alloc_cpu.cpp:81] data.
// DefaultCPUAllocator: not enough memory: you tried to allocate 151781376
// bytes."). It adds nothing, so it is the same failure.
func echoOf(short, full *Event) bool {
	return short.RequestedBytes == nil && short.TotalBytes == nil && short.FreeBytes == nil &&
		len(short.Message) < len(full.Message) && strings.Contains(full.Message, short.Message)
}

// seRetry reports whether ev is StreamExecutor retrying prev's refused
// allocation: a request no larger, within a few lines of the last retry
// merged, or a pinned host staging buffer after a device allocation — one
// failure, whose first request is the one that did not fit. A larger
// request later is a failure of its own.
func seRetry(prev, ev *Event) bool {
	if prev.Variant != "stream-executor-alloc" || ev.Variant != prev.Variant || ev.Line-prev.endLine > mergeWindow(KindCUDARuntime) {
		return false
	}
	if ev.Kind == KindCPU && prev.Kind != KindCPU {
		return true
	}
	return ev.Kind == prev.Kind && prev.RequestedBytes != nil && ev.RequestedBytes != nil && *ev.RequestedBytes <= *prev.RequestedBytes
}

// graphKind reports whether kind is XLA's or TensorFlow's, which print one
// status through each other.
func graphKind(kind string) bool { return kind == KindXLA || kind == KindTF }

// sameRequestAndFree reports whether two events print the same request and
// the same free memory, both known.
func sameRequestAndFree(a, b *Event) bool {
	eq := func(x, y *int64) bool { return x != nil && y != nil && *x == *y }
	return eq(a.RequestedBytes, b.RequestedBytes) && eq(a.FreeBytes, b.FreeBytes)
}

// reprWindow is how many lines apart a failure quoted by a logger and the
// traceback that raised it may be printed.
const reprWindow = 40

// sameFigures reports whether two allocator messages print the same
// request, capacity and free memory, all three known, on the same device:
// one failure printed twice, not two failures that happen to share a
// request size.
func sameFigures(a, b *Event) bool {
	eq := func(x, y *int64) bool { return x != nil && y != nil && *x == *y }
	sameDevice := a.Device == nil || b.Device == nil || a.Device.Index == nil || b.Device.Index == nil || *a.Device.Index == *b.Device.Index
	return sameDevice && eq(a.RequestedBytes, b.RequestedBytes) && eq(a.TotalBytes, b.TotalBytes) && eq(a.FreeBytes, b.FreeBytes) &&
		(a.AllocatedBytes == nil || b.AllocatedBytes == nil || *a.AllocatedBytes == *b.AllocatedBytes)
}

func sameRank(a, b *int) bool {
	return a == nil || b == nil || *a == *b
}

// nearSize reports whether two request sizes could be the same allocation
// printed twice (once in MiB with two decimals, once in bytes).
func nearSize(a, b *int64) bool {
	if a == nil || b == nil {
		return true
	}
	d := *a - *b
	if d < 0 {
		d = -d
	}
	return d <= *a/200+1
}

// mergeInto fills prev's unknown fields from ev, the later report of the
// same failure. prev keeps its line: it holds the failure's first word.
func mergeInto(prev, ev *Event) {
	fill := func(dst **int64, src *int64) {
		if *dst == nil {
			*dst = src
		}
	}
	fill(&prev.RequestedBytes, ev.RequestedBytes)
	fill(&prev.TotalBytes, ev.TotalBytes)
	fill(&prev.FreeBytes, ev.FreeBytes)
	fill(&prev.ProcessInUseBytes, ev.ProcessInUseBytes)
	fill(&prev.AllocatedBytes, ev.AllocatedBytes)
	fill(&prev.ReservedBytes, ev.ReservedBytes)
	fill(&prev.ReservedUnallocatedBytes, ev.ReservedUnallocatedBytes)
	fill(&prev.MaxAllocationBytes, ev.MaxAllocationBytes)
	fill(&prev.PID, ev.PID)
	if prev.Exception == "" {
		prev.Exception = ev.Exception
	}
	if prev.Rank == nil {
		prev.Rank = ev.Rank
	}
	if prev.Device == nil || (prev.Device.Index == nil && ev.Device != nil && ev.Device.Type == prev.Device.Type) {
		if ev.Device != nil {
			prev.Device = ev.Device
		}
	}
	if len(prev.Frames) == 0 {
		prev.Frames = ev.Frames
		prev.Phase = ev.Phase
	}
	if len(prev.TensorShape) == 0 {
		prev.TensorShape, prev.TensorDType = ev.TensorShape, ev.TensorDType
	}
	if prev.Signal == "" || prev.Signal == "SIGKILL" && ev.Signal != "" {
		prev.Signal = ev.Signal
	}
	if prev.Hint == "" {
		prev.Hint, prev.HintEnv = ev.Hint, ev.HintEnv
	}
	if prev.Suspected && !ev.Suspected {
		prev.Suspected = false
	}
	if prev.Phase == PhaseUnknown {
		prev.Phase = ev.Phase
	}
	if seRetry(prev, ev) {
		prev.endLine = ev.endLine // the next retry is measured from this one
	}
	if prev.Message != ev.Message && len(prev.Message)+len(ev.Message) < maxMessage {
		prev.Message += " | " + ev.Message
	}
}

// genericWindow is how many lines apart a tier-2 (generic) report may be
// from the exact report of the same failure: wrappers re-word the failure
// they caught a few lines before or after it.
const genericWindow = 40

// wrapped reports whether ev is a generic (tier-2) report of the failure
// that the exact (tier-1) event exact reports nearby on the same rank.
func wrapped(exact, ev *Event) bool {
	if ev.Detection == nil || ev.Detection.Tier != 2 || exact.Detection == nil || exact.Detection.Tier != 1 {
		return false
	}
	if exact.Variant == "enomem" && exact.Line > ev.Line {
		return false // ENOMEM after the words is their echo (errnoEcho) or a failure of its own, never their exact report
	}
	d := ev.Line - exact.Line
	if d < 0 {
		d = -d
	}
	return d <= genericWindow && sameRank(exact.Rank, ev.Rank)
}

// errnoWindow is how many lines after a native failure its callers'
// ENOMEM echo may come.
const errnoWindow = 10

// errnoEcho reports whether ev, the C library's words for ENOMEM ("Error
// opening video encoder : Cannot allocate memory"), echoes the native or
// generic failure prev read a few lines before on the same rank
// ("[h264_nvenc @ 0x6090380] InitializeEncoder failed: out of memory
// (10)"): a caller passing the errno up, not a second failure, and no sign
// that host memory ran out. The kernel's own refusal — Python's "[Errno
// 12]", a shell's "fork:" — is a failure of its own, and so is ENOMEM
// after a framework's allocator message (a DataLoader's fork after a
// CUDA OOM).
func errnoEcho(prev, ev *Event) bool {
	if ev.Variant != "enomem" || ev.Line-prev.Line > errnoWindow || !sameRank(prev.Rank, ev.Rank) {
		return false
	}
	if strings.HasPrefix(ev.Message, "[Errno 12]") || strings.HasPrefix(ev.Message, "fork:") {
		return false
	}
	return prev.Kind == KindGeneric || prev.Kind == KindCUDARuntime
}

// bfcAnnounces reports whether ev, an XLA RESOURCE_EXHAUSTED error, is the
// failure that prev announced: the BFC allocator's "Allocator (GPU_0_bfc)
// ran out of memory trying to allocate 12.00GiB" warning, which TensorFlow
// and XLA (JAX) share, printed just before the same allocation's error.
func bfcAnnounces(prev, ev *Event) bool {
	return prev.Kind == KindTF && ev.Kind == KindXLA && sameRank(prev.Rank, ev.Rank) &&
		ev.Line-prev.Line <= mergeWindow(KindXLA) && prev.RequestedBytes != nil && ev.RequestedBytes != nil &&
		nearSize(prev.RequestedBytes, ev.RequestedBytes) && strings.Contains(prev.Message, "ran out of memory trying to allocate")
}

// adoptError makes prev, an allocator's warning, the event of the error ev
// that raised it: the error decides the kind, framework and exception;
// prev keeps its line and words, which came first.
func adoptError(prev, ev *Event) {
	prev.Kind = ev.Kind
	if !tfKernelLine(ev) {
		// The error names the program (jaxlib's XlaRuntimeError, its
		// executor's "Execution of replica 0 failed"), except where
		// TensorFlow's own kernel printed it ("OP_REQUIRES failed at
		// xla_ops.cc:574 : RESOURCE_EXHAUSTED: …"): there the warning's
		// framework stands.
		prev.Framework = ev.Framework
	}
	if ev.Exception != "" {
		prev.Exception = ev.Exception
	}
	if ev.Variant != "" {
		prev.Variant = ev.Variant
	}
	if ev.Detection != nil {
		prev.Detection = ev.Detection
	}
	mergeInto(prev, ev)
}

// tfKernelLine reports whether the error's own line is TensorFlow's
// kernel report ("OP_REQUIRES failed at …").
func tfKernelLine(ev *Event) bool {
	for _, c := range ev.ContextLines {
		if c.Line == ev.Line && strings.Contains(c.Text, "OP_REQUIRES") {
			return true
		}
	}
	return strings.Contains(ev.Message, "OP_REQUIRES")
}
