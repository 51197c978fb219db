package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/oomdoc/oomdoc/parser"
)

// Signals of other-process.
const (
	otherListed      = "other-process/processes-listed"
	otherXLAPool     = "other-process/outside-xla-pool"
	otherListedPart  = "other-process/processes-listed-minor"
	otherOutsidePart = "other-process/held-outside-minor"
	otherStartup     = "other-process/serving-startup-check"
	otherOutside     = "other-process/held-outside-arithmetic"
	otherNonTorch    = "other-process/non-pytorch-in-process"
	otherUnexplain   = "other-process/holder-not-printed"
	otherSMI         = "other-process/nvidia-smi-processes"
	otherRankNonPyT  = "other-process/multi-rank-overhead"
	otherBeforeStart = "other-process/held-before-start"
	otherNoContext   = "other-process/no-room-for-context"
	otherCUDAStart   = "other-process/cuda-start-up"
)

// otherProcess: memory held outside this process's PyTorch allocator —
// other processes, another framework or a notebook kernel. It fires on the
// message's own process list, on nvidia-smi rows, and on the arithmetic
// capacity − free − what this process holds.
func otherProcess() Culprit {
	return Culprit{
		ID:        "other-process",
		Title:     "Memory held outside this process's PyTorch allocator",
		Doc:       "Part of the device is held by something PyTorch's allocator does not manage: another job or a zombie process, a notebook kernel that still holds a model, the desktop, another framework (TensorFlow or JAX preallocate most of the device), or CUDA contexts and libraries inside this process. Nothing inside this program frees it; the holder must be stopped or the job moved to a free device.",
		Recognise: "\"Process N has X memory in use\" for other PIDs; capacity − free − this process's memory is large; nvidia-smi shows other processes; non-PyTorch memory (in-use − reserved) is large.",
		Excludes:  []string{parser.KindHostKill, parser.KindCPU, parser.KindMPS},
		Signals: []Signal{
			{Name: otherListed, Strength: EvidenceSignal, Start: 2.5, Doc: "the message lists other processes holding at least the request and a third of the device"},
			{Name: otherListedPart, Strength: EvidenceSignal, Start: 1.0, Doc: "other processes the message lists hold at least the request, but under a third of the device: a co-holder"},
			{Name: otherOutsidePart, Strength: EvidenceSignal, Start: 0.5, Doc: "10–33% of the device held outside this process (a desktop, a driver reservation, a small co-tenant)"},
			{Name: otherXLAPool, Strength: EvidenceSignal, Start: 1.5, Doc: "a JAX/XLA program's driver allocation outside its preallocated pool failed (a kernel image, a library handle)"},
			{Name: otherStartup, Strength: EvidenceSignal, Start: 1.0, Doc: "a serving engine found less free memory at start-up than it was told to use"},
			{Name: otherOutside, Strength: EvidenceSignal, Start: 1.5, Doc: "capacity − free − this process leaves at least the request and a third of the device held elsewhere"},
			{Name: otherNonTorch, Strength: EvidenceSignal, Start: 0.5, Doc: "in-use − reserved: large non-PyTorch memory inside this process"},
			{Name: otherRankNonPyT, Strength: PriorSignal, Start: -1.0, Doc: "non-PyTorch memory in a multi-rank job (communication buffers and contexts)"},
			{Name: otherUnexplain, Strength: PriorSignal, Start: -0.5, Doc: "the device is full and the message does not say who holds it"},
			{Name: otherSMI, Strength: EvidenceSignal, Start: 1.5, Doc: "nvidia-smi lists several processes using the device"},
			{Name: otherBeforeStart, Strength: EvidenceSignal, Start: 3.0, Doc: "the framework's start-up report found a third of the device or more already in use, before it allocated anything"},
			{Name: otherNoContext, Strength: EvidenceSignal, Start: 2.0, Doc: "the driver could not create the process's CUDA context for lack of memory: the device was full before the process held anything on it (one process, no ranks)"},
			{Name: otherCUDAStart, Strength: EvidenceSignal, Start: 1.0, Doc: "the CUDA runtime's start-up in the process failed for lack of memory (THCudaInit, torch._C._cuda_init, Theano's CNMeM pool, the generator's set-up while the model is first moved): weaker than the driver refusing a context, since the start-up also allocates the framework's own buffers"},
		},
		WouldDecide: "who holds the device at the moment of the failure",
		Capture:     "run nvidia-smi (or torch.cuda.list_gpu_processes()) right before the failing step",
		Assess:      checkOtherProcess,
	}
}

func checkOtherProcess(f *Facts) *Finding {
	ev := f.Ev
	if ev.Kind == parser.KindServing && ev.Variant != "vllm-startup" {
		return nil
	}
	fd := &Finding{Culprit: "other-process", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested}}
	fd.Title = "Another process (or non-PyTorch memory) holds the device"
	fd.Explanation = "Part of the device is held by something PyTorch's allocator does not manage: other processes (a second job, a zombie, a notebook kernel, the desktop), or in-process CUDA contexts and libraries. Nothing inside this program frees it."
	floor := max(gib, f.Capacity/10)
	if g := f.heldAtStart(); g != nil && *g.UsedBytes >= max(f.Requested, *g.TotalBytes/3) {
		// Before the framework allocated anything, a third of the device
		// or more was gone: no setting of this program frees it.
		fd.fire(otherBeforeStart)
		fd.Quantities.HolderBytes = *g.UsedBytes
		fd.Title = "The device was already in use when the program started"
		fd.Explanation = "TensorFlow reports each device's free memory when it starts, before it allocates anything of its own: what was missing then is held by another process (a second job, a notebook kernel, the desktop, a process that did not exit)."
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("at start-up %s free of %s: %s held before this process allocated anything (%s)", size(*g.TotalBytes-*g.UsedBytes), size(*g.TotalBytes), size(*g.UsedBytes), pct(*g.UsedBytes, *g.TotalBytes)))
		fd.Evidence = append(fd.Evidence, Evidence{Input: f.Input, Line: g.Line, Text: "TensorFlow's start-up report: " + size(*g.TotalBytes-*g.UsedBytes) + " free of " + size(*g.TotalBytes)}, f.EventLine())
		fd.Decide = "which process holds the device: nvidia-smi before the program starts"
		return fd
	}
	if start := f.failedAtCUDAInit(); (ev.Variant == parser.VariantContextCreate || start) && ev.Rank == nil && !slices.ContainsFunc(f.Others, func(o parser.Event) bool { return o.Rank != nil }) {
		// A context takes a few hundred MiB; the driver found none for
		// it, before this process had allocated anything. In a job of
		// several ranks it would more likely be the other ranks'
		// contexts on one device.
		fd.Title = "The device was full before the program allocated anything"
		if ev.Variant == parser.VariantContextCreate {
			fd.fire(otherNoContext)
		} else {
			fd.fire(otherCUDAStart)
			fd.Title = "The device was already held when CUDA started in this process"
		}
		fd.Explanation = "The CUDA runtime could not even start in this process (its context and first buffers, a few hundred MiB) for lack of memory: whatever holds the device was there before the program placed anything on it — another process, a notebook kernel, a job that did not exit — or the device is in exclusive-process mode and taken."
		fd.Decide = "which process holds the device: nvidia-smi before the program starts"
		if strings.Contains(ev.Message, "cnmemInit") {
			fd.Title = "Theano's start-up memory pool (lib.cnmem) could not be reserved"
			fd.Explanation = "Theano's CNMeM pool reserves its share of the device (lib.cnmem) when CUDA starts; that failed, so part of the device was already held — by the desktop's display, another process, a job that did not exit — or the share asked for (lib.cnmem=1 is all of it) is more than a shared device has free."
			fd.Decide = "nvidia-smi before the program starts, against the share lib.cnmem asks for"
		}
		fd.Evidence = append(fd.Evidence, f.EventLine())
		return fd
	}
	if e, ok := f.xlaOutsidePool(); ok {
		// XLA preallocates most of the device for its own pool (75% by
		// default); what the driver needs beyond it — a kernel image, a
		// cuDNN handle, another framework in the process — finds nothing.
		fd.fire(otherXLAPool)
		fd.Title = "XLA's preallocated pool leaves nothing for the driver"
		fd.Explanation = "JAX (and TensorFlow) preallocate most of the device for their own memory pool at start-up. The failing allocation is outside that pool — a CUDA kernel image, a library handle, or a second framework in the same process — and the pool has left no room for it."
		fd.Evidence = append(fd.Evidence, e, f.EventLine())
		fd.Decide = "whether the framework preallocated the device (JAX: XLA_PYTHON_CLIENT_PREALLOCATE / XLA_PYTHON_CLIENT_MEM_FRACTION; TensorFlow: allow_growth, TF_FORCE_GPU_ALLOW_GROWTH), and whether two frameworks or processes share it"
		return fd
	}
	switch {
	case f.OthersBytes > 0 && f.OthersBytes >= max(f.Requested, f.Capacity/20):
		if f.OthersBytes >= f.Capacity/3 {
			fd.fire(otherListed)
		} else {
			fd.fire(otherListedPart)
		}
		fd.Quantities.HolderBytes = f.OthersBytes
		for _, p := range ev.OtherProcesses {
			if p.Bytes != nil {
				fd.Arithmetic = append(fd.Arithmetic, "process "+strconv.FormatInt(p.PID, 10)+" holds "+size(*p.Bytes))
			}
		}
	case ev.Kind == parser.KindServing:
		fd.fire(otherStartup)
		fd.Explanation = "vLLM found less free memory at startup than gpu_memory_utilization asks for: another process (or an earlier engine in the same process) holds part of the device."
	case f.Outside() >= floor && f.Outside() >= f.Requested:
		out := f.Outside()
		if out >= f.Capacity/3 {
			fd.fire(otherOutside)
		} else {
			fd.fire(otherOutsidePart)
		}
		fd.Quantities.HolderBytes = out
		context := ""
		if f.InUse == 0 {
			context = " − ≈" + size(contextAllowance) + " for its CUDA context"
		}
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("capacity %s − free %s − this process %s%s = %s held elsewhere (%s)", size(f.Capacity), size(f.Free), size(f.heldByProcess()), context, size(out), pct(out, f.Capacity)))
	case f.InUse > 0 && f.Reserved > 0 && f.InUse-f.Reserved >= max(2*gib, f.Capacity/10):
		if ev.Rank != nil || len(f.ranksOnDevice(deviceIndex(ev))) > 1 {
			fd.fire(otherRankNonPyT)
		} else {
			fd.fire(otherNonTorch)
		}
		fd.Quantities.HolderBytes = f.InUse - f.Reserved
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("in use %s − reserved by PyTorch %s = %s of non-PyTorch memory in this process", size(f.InUse), size(f.Reserved), size(f.InUse-f.Reserved)))
		fd.Title = "Non-PyTorch memory inside this process is large"
	case f.Holder() == 0 && f.FreeKnown && f.Capacity > 0 && f.Free < max(f.Requested, 1) && ev.Kind != parser.KindCUDNN:
		// Nothing says who holds the device.
		fd.fire(otherUnexplain)
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("free %s of %s, and the log does not say who holds the rest", size(f.Free), size(f.Capacity)))
		fd.Decide = "who holds the device: run nvidia-smi (or torch.cuda.list_gpu_processes()) right before the failing step"
	default:
		if g := f.smiOthers(); g > 0 && g >= f.Requested {
			fd.fire(otherSMI)
			fd.Quantities.HolderBytes = g
			fd.Arithmetic = append(fd.Arithmetic, "nvidia-smi lists "+size(g)+" used by processes")
		} else {
			return nil
		}
	}
	fd.Evidence = append(fd.Evidence, f.EventLine())
	for _, p := range f.Res.Context.GPUProcs {
		fd.Evidence = append(fd.Evidence, Evidence{Input: f.Input, Line: p.Line, Text: fmt.Sprintf("nvidia-smi: pid %d %s", p.PID, p.Name)})
		if len(fd.Evidence) > 4 {
			break
		}
	}
	return fd
}

// heldAtStart is the failing device's row of a framework's start-up
// report, when the log has one with both figures.
// It speaks only for a GPU: a host or TPU failure is not the device it
// reported. When the failure names no device index, the report must be of
// one device only.
func (f *Facts) heldAtStart() *parser.GPU {
	d := f.Ev.Device
	if d != nil && d.Type != "" && d.Type != "cuda" && d.Type != "rocm" {
		return nil
	}
	var rows []*parser.GPU
	for i := range f.Res.Context.GPUs {
		g := &f.Res.Context.GPUs[i]
		if g.Source == parser.GPUSourceTFStartup && g.TotalBytes != nil && g.UsedBytes != nil {
			rows = append(rows, g)
		}
	}
	for _, g := range rows {
		if d != nil && d.Index != nil && g.Index != nil && *g.Index == *d.Index {
			return g
		}
	}
	if len(rows) == 1 && (d == nil || d.Index == nil) {
		return rows[0]
	}
	return nil
}

// heldByProcess is what the arithmetic counts as this process's memory.
func (f *Facts) heldByProcess() int64 {
	if f.InUse > 0 {
		return f.InUse
	}
	return f.Holder()
}

// smiOthers sums nvidia-smi's process table for the failing device.
func (f *Facts) smiOthers() int64 {
	var sum int64
	for _, p := range f.Res.Context.GPUProcs {
		if p.Bytes == nil {
			continue
		}
		if f.Ev.Device != nil && f.Ev.Device.Index != nil && p.GPU != nil && *p.GPU != *f.Ev.Device.Index {
			continue
		}
		sum += *p.Bytes
	}
	if len(f.Res.Context.GPUProcs) < 2 {
		return 0 // a single row is most likely this process
	}
	return sum
}

// xlaOutsidePool reports a JAX/XLA program whose failing allocation was the
// driver's, outside XLA's pool: CUDA_ERROR_OUT_OF_MEMORY while loading a
// kernel image (CUBIN/PTX), or a driver-level OOM under jax frames.
func (f *Facts) xlaOutsidePool() (Evidence, bool) {
	ev := f.Ev
	jax, ok := f.Find(words("jax/", "jaxlib", "XlaRuntimeError", "xla_bridge", "xla_client"))
	if !ok && ev.Framework != "jax" {
		return Evidence{}, false
	}
	if !ok {
		jax = f.EventLine()
	}
	if ev.Kind == parser.KindCUDARuntime || hasAny(strings.ToLower(ev.Message), driverImageCue().Words) {
		return jax, true
	}
	return Evidence{}, false
}

// driverImageCue holds the (lower-case) words of a driver-level failure
// while loading a kernel image.
func driverImageCue() cue {
	return words("cubin", "cuda_error_out_of_memory", "ptx")
}

// failedAtCUDAInit reports whether the failure is the CUDA runtime
// starting up in this process (parser.CueCUDAInit) — in the message's
// source location ("out of memory at /pytorch/aten/src/THC/THCGeneral.cpp:844")
// or the innermost frame (torch.cuda's _lazy_init running _cuda_init) —
// while loading or with no phase known, or a first-use allocation
// (parser.CueCUDAFirstUse) while the model is first moved to the device.
func (f *Facts) failedAtCUDAInit() bool {
	ev := f.Ev
	if ev.Phase == parser.PhaseLoad && parser.CueCUDAFirstUse().Matches(ev.Message) {
		return true
	}
	if ev.Phase != parser.PhaseLoad && ev.Phase != parser.PhaseUnknown {
		return false
	}
	cue := parser.CueCUDAInit()
	if cue.Matches(ev.Message) {
		return true
	}
	n := len(ev.Frames)
	return n > 0 && cue.Matches(ev.Frames[n-1].CueText())
}
