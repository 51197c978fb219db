package rules

import (
	"fmt"

	"github.com/oomdoc/oomdoc/parser"
)

// mpsLimit: Apple's MPS allocator refused to pass its high watermark.
func mpsLimit() Culprit {
	return Culprit{
		ID:        "mps-limit",
		Title:     "Apple MPS allocator's high-watermark limit",
		Doc:       "On Apple silicon, PyTorch caps MPS memory at a high watermark (PYTORCH_MPS_HIGH_WATERMARK_RATIO, by default 1.7 × the memory the system recommends for the GPU). GPU and CPU share the same RAM, so the cap protects the whole machine; a request that would pass it fails although the machine may have RAM left.",
		Recognise: "\"MPS backend out of memory (MPS allocated: …, other allocations: …, max allowed: …)\".",
		Excludes:  []string{parser.KindCUDA, parser.KindHIP, parser.KindXPU, parser.KindCPU, parser.KindCUDARuntime, parser.KindCUBLAS, parser.KindCUDNN, parser.KindNCCL, parser.KindServing, parser.KindXLA, parser.KindTF, parser.KindHostKill, parser.KindPaddle},
		Signals: []Signal{
			{Name: mpsWatermark, Strength: EvidenceSignal, Start: 2.0, Doc: "PyTorch's MPS allocator refused to pass its watermark"},
			{Name: mpsMLXLimit, Strength: EvidenceSignal, Start: 0.8, Doc: "MLX's Metal allocator gave up after waiting for scheduled work to free memory (malloc_or_wait)"},
		},
		WouldDecide: "what the process holds on the GPU against the watermark",
		Capture:     "print torch.mps.current_allocated_memory() and torch.mps.driver_allocated_memory() before the failing call",
		Assess:      checkMPSLimit,
	}
}

// Signals of mps-limit.
const (
	mpsWatermark = "mps-limit/watermark"
	mpsMLXLimit  = "mps-limit/mlx-memory-limit"
)

func checkMPSLimit(f *Facts) *Finding {
	ev := f.Ev
	if ev.Kind == parser.KindMPS && ev.Variant == parser.VariantMLXMemoryLimit {
		fd := &Finding{Culprit: "mps-limit", Event: ev.ID, Quantities: Quantities{RequestedBytes: f.Requested}}
		fd.fire(mpsMLXLimit)
		fd.Title = "MLX's Metal allocator ran out past its memory limit"
		fd.Explanation = "MLX keeps its Metal allocations under a memory limit (mx.set_memory_limit, mx.metal.set_memory_limit before; by default 1.5 × the GPU's recommended working set). Past it an allocation waits for scheduled work to free memory, then tries once more, swap included, and gives up when the Mac's unified memory has nothing left. GPU and CPU share that RAM: a smaller model, resolution or batch is the fix."
		fd.Decide = "the memory limit and the peak: mx.metal.get_peak_memory() against mx.metal.device_info()[\"max_recommended_working_set_size\"]"
		fd.Evidence = append(fd.Evidence, f.EventLine())
		return fd
	}
	// The watermark message prints MPS allocated / other allocations; a
	// per-array size assert on the same device is another limit.
	if ev.Kind != parser.KindMPS || ev.Framework != "pytorch" || ev.OtherAllocationsBytes == nil || ev.Hint == "allocation-limit" {
		return nil
	}
	fd := &Finding{Culprit: "mps-limit", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested}}
	fd.fire(mpsWatermark)
	fd.Title = "The MPS allocator hit its memory cap"
	fd.Explanation = "On Apple silicon, PyTorch caps MPS memory at a high watermark (PYTORCH_MPS_HIGH_WATERMARK_RATIO) of the unified memory the system recommends for the GPU. The request would pass that cap; GPU and CPU share the same RAM, so the cap protects the whole machine."
	if f.Capacity > 0 && f.Requested > 0 {
		total := f.Allocated + f.Requested
		if ev.OtherAllocationsBytes != nil {
			total += *ev.OtherAllocationsBytes
		}
		fd.Quantities.ShortfallBytes = total - f.Capacity
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("allocated %s + other %s + requested %s = %s > max allowed %s", size(f.Allocated), size(val(ev.OtherAllocationsBytes)), size(f.Requested), size(total), size(f.Capacity)))
	}
	fd.Evidence = append(fd.Evidence, f.EventLine())
	return fd
}

func val(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
