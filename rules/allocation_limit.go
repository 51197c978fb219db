package rules

import (
	"fmt"

	"github.com/oomdoc/oomdoc/parser"
)

// allocationLimit: one buffer exceeds the backend's per-allocation maximum
// although total free memory would hold it (Intel Arc's 4 GB limit,
// Metal's maximum buffer length, Vulkan's maxMemoryAllocationSize).
// Signals of allocation-limit.
const (
	limitMaxBuffer = "allocation-limit/exceeds-printed-maximum"
	limitHint      = "allocation-limit/limit-message"
	limitFreeCUDA  = "allocation-limit/free-exceeds-request-cuda"
	limitFree      = "allocation-limit/free-exceeds-request"
	limitXPU4G     = "allocation-limit/xpu-4gib-cap"
)

// allocationLimit: one buffer exceeds the backend's per-allocation maximum
// although total free memory would hold it (Intel Arc's 4 GB limit,
// Metal's maximum buffer length, Vulkan's maxMemoryAllocationSize).
func allocationLimit() Culprit {
	return Culprit{
		ID:        "allocation-limit",
		Title:     "One buffer exceeds the backend's per-allocation maximum",
		Doc:       "Some backends cap the size of one buffer below the device's memory: Intel Arc GPUs refuse a single allocation of 4 GB or more, Metal limits a buffer's length (and MPS an array's bytes to 2³²), Vulkan drivers report maxMemoryAllocationSize. The tensor must be split or made smaller (a smaller batch, tiles, sliced attention); freeing memory does not help.",
		Recognise: "Free memory ≥ the request yet it fails (Intel Arc/XPU's 4 GB single-allocation cap); Metal's \"greater than the maximum allowed buffer size\"; Vulkan \"exceeds device memory allocation limit\".",
		Excludes:  []string{parser.KindHostKill, parser.KindCPU, parser.KindServing},
		Signals: []Signal{
			{Name: limitMaxBuffer, Strength: EvidenceSignal, Start: 2.0, Doc: "the request is above a per-buffer maximum the log prints"},
			{Name: limitHint, Strength: EvidenceSignal, Start: 2.0, Doc: "the message itself names a per-allocation limit"},
			{Name: limitXPU4G, Strength: EvidenceSignal, Start: 2.5, Doc: "an XPU request of 4 GiB or more with free memory to spare"},
			{Name: limitFree, Strength: EvidenceSignal, Start: 1.0, Doc: "free memory exceeds the request on a backend with per-buffer caps"},
			{Name: limitFreeCUDA, Strength: HypothesisSignal, Start: -0.5, Doc: "free memory exceeds the request on CUDA/ROCm (no small per-buffer cap there)"},
		},
		WouldDecide: "which tensor is this large: the limit is the wall, but the tensor's size is the cause",
		Capture:     "print the failing tensor's shape (the innermost frames of the traceback)",
		Assess:      checkAllocationLimit,
	}
}

func checkAllocationLimit(f *Facts) *Finding {
	ev := f.Ev
	fd := &Finding{Culprit: "allocation-limit", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested}}
	fd.Title = "The request exceeds the largest single allocation the backend allows"
	fd.Explanation = "Some backends cap the size of one buffer below the device's memory: Intel Arc GPUs cannot allocate more than 4 GB at once, Metal limits a buffer's length, Vulkan drivers report maxMemoryAllocationSize. The tensor must be split or made smaller; freeing memory does not help."
	switch {
	case ev.MaxAllocationBytes != nil && f.Requested > *ev.MaxAllocationBytes:
		fd.fire(limitMaxBuffer)
		fd.Quantities.ShortfallBytes = f.Requested - *ev.MaxAllocationBytes
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("requested %s > maximum buffer %s", size(f.Requested), size(*ev.MaxAllocationBytes)))
		fd.Decide = "which tensor is this large: the limit is the wall, but the tensor's size is the cause"
	case ev.Hint == "allocation-limit":
		fd.fire(limitHint)
	case ev.Kind == parser.KindXPU && f.Requested >= 4*gib && !f.FreeKnown && !f.Capped && f.Capacity > 0 && f.UnallocKnown && f.Capacity-f.heldByProcess() >= f.Requested:
		// Newer XPU messages print no free figure; an allocator that holds
		// too little to crowd out the request points at the same cap.
		fd.fire(limitXPU4G)
		fd.Arithmetic = append(fd.Arithmetic, "Intel Arc/XPU: a single allocation of 4 GiB or more is refused regardless of free memory", fmt.Sprintf("capacity %s − this process %s leaves room for the %s request", size(f.Capacity), size(f.heldByProcess()), size(f.Requested)))
	case f.FreeKnown && f.Requested > 0 && f.Free >= f.Requested && !f.Capped && ev.LargestFreeBytes == nil:
		// (An allocator that prints its largest free block has said why
		// free memory did not serve the request: no block was large enough.)
		switch {
		case ev.Kind == parser.KindXPU && f.Requested >= 4*gib:
			fd.fire(limitXPU4G)
			fd.Arithmetic = append(fd.Arithmetic, "Intel Arc/XPU: a single allocation of 4 GiB or more is refused regardless of free memory")
		case ev.Device != nil && ev.Device.Type == "tpu":
			// A TPU program's reservation that free memory does not serve
			// is its layout's ("3.33G reservable"), not a buffer cap.
			return nil
		case ev.Kind == parser.KindCUDA || ev.Kind == parser.KindHIP || ev.Device != nil && (ev.Device.Type == "cuda" || ev.Device.Type == "rocm"):
			// The CUDA and ROCm drivers have no per-buffer cap this small,
			// whichever framework allocates (PaddlePaddle, TensorFlow on a
			// GPU); free memory that cannot serve a request is rarer there.
			fd.fire(limitFreeCUDA)
			fd.Decide = "torch.cuda.mem_get_info() just before the failing call, and whether another process allocates at the same time"
		default:
			fd.fire(limitFree)
		}
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("free %s ≥ requested %s, yet the allocation failed", size(f.Free), size(f.Requested)))
	default:
		return nil
	}
	fd.Evidence = append(fd.Evidence, f.EventLine())
	return fd
}
