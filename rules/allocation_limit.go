package rules

import (
	"fmt"

	"github.com/oomdoc/oomdoc/parser"
)

// allocationLimit: one buffer exceeds the backend's per-allocation maximum
// although total free memory would hold it (Intel Arc's 4 GB limit,
// Metal's maximum buffer length, Vulkan's maxMemoryAllocationSize).
func allocationLimit() Rule {
	return Rule{
		ID:        "allocation-limit",
		Title:     "One buffer exceeds the backend's per-allocation maximum",
		Recognise: "Free memory ≥ the request yet it fails (Intel Arc/XPU's 4 GB single-allocation cap); Metal's \"greater than the maximum allowed buffer size\"; Vulkan \"exceeds device memory allocation limit\".",
		Check:     checkAllocationLimit,
	}
}

func checkAllocationLimit(f *Facts) *Finding {
	ev := f.Ev
	switch ev.Kind {
	case parser.KindHostKill, parser.KindCPU, parser.KindServing:
		return nil
	}
	fd := &Finding{Culprit: "allocation-limit", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested}}
	fd.Title = "The request exceeds the largest single allocation the backend allows"
	fd.Explanation = "Some backends cap the size of one buffer below the device's memory: Intel Arc GPUs cannot allocate more than 4 GB at once, Metal limits a buffer's length, Vulkan drivers report maxMemoryAllocationSize. The tensor must be split or made smaller; freeing memory does not help."
	switch {
	case ev.MaxAllocationBytes != nil && f.Requested > *ev.MaxAllocationBytes:
		fd.Confidence = 0.4
		fd.Quantities.ShortfallBytes = f.Requested - *ev.MaxAllocationBytes
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("requested %s > maximum buffer %s", size(f.Requested), size(*ev.MaxAllocationBytes)))
		fd.Decide = "which tensor is this large: the limit is the wall, but the tensor's size is the cause"
	case ev.Hint == "allocation-limit":
		fd.Confidence = 0.45
	case f.FreeKnown && f.Requested > 0 && f.Free >= f.Requested && !f.Capped:
		fd.Confidence = 0.6
		if ev.Kind == parser.KindCUDA || ev.Kind == parser.KindHIP {
			// The CUDA and ROCm drivers have no per-buffer cap this small;
			// free memory that cannot serve a request is rarer there.
			fd.Confidence = 0.3
			fd.Decide = "torch.cuda.mem_get_info() just before the failing call, and whether another process allocates at the same time"
		}
		if ev.Kind == parser.KindXPU && f.Requested >= 4*gib {
			fd.Confidence = 0.9
			fd.Arithmetic = append(fd.Arithmetic, "Intel Arc/XPU: a single allocation of 4 GiB or more is refused regardless of free memory")
		}
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("free %s ≥ requested %s, yet the allocation failed", size(f.Free), size(f.Requested)))
	default:
		return nil
	}
	fd.Evidence = append(fd.Evidence, f.EventLine())
	return fd
}
