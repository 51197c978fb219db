package rules

import (
	"fmt"

	"github.com/oomdoc/oomdoc/parser"
)

// fragmentation: memory PyTorch has reserved but not allocated would hold
// the request, yet no block of it is large enough. It fires only when
// reserved-but-unallocated ≥ the request (research: peers.md §10 items
// 6–7), with confidence growing with the idle share of the device.
// Signals of fragmentation.
const (
	fragIdleLarge = "fragmentation/idle-cache-large"
	fragIdleSmall = "fragmentation/idle-cache-small"
	fragXLA       = "fragmentation/xla-pool"
)

// fragmentation: memory PyTorch has reserved but not allocated would hold
// the request, yet no block of it is large enough. It fires only when
// reserved-but-unallocated ≥ the request (research: peers.md §10 items
// 6–7); the idle share of the device says how much it matters.
func fragmentation() Culprit {
	return Culprit{
		ID:        "fragmentation",
		Title:     "Reserved-but-unallocated memory would hold the request, but it is split into pieces too small",
		Doc:       "PyTorch's caching allocator keeps freed blocks for reuse. When tensors of many sizes come and go, the reserved memory ends up split into blocks that are each smaller than the next request, although together they would hold it. Expandable segments (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True) let a segment grow instead of leaving slivers; max_split_size_mb limits splitting on older versions.",
		Recognise: "2.x: \"reserved by PyTorch but unallocated\" ≥ the requested size; 1.x: reserved − allocated ≥ the request. Large idle cache relative to the device.",
		Excludes:  []string{parser.KindHostKill, parser.KindCPU, parser.KindServing},
		Signals: []Signal{
			{Name: fragMeasured, Strength: EvidenceSignal, Start: 6.0, Doc: "a memory snapshot's largest free block is smaller than the request while its free blocks together would hold it"},
			{Name: fragIdleLarge, Strength: EvidenceSignal, Start: 1.5, Doc: "reserved-but-unallocated ≥ the request and ≥ 10% of the device"},
			{Name: fragIdleSmall, Strength: EvidenceSignal, Start: -0.5, Doc: "reserved-but-unallocated ≥ the request, but under 10% of the device"},
			{Name: fragXLA, Strength: PriorSignal, Start: -0.5, Doc: "an XLA pool that grows on demand"},
		},
		WouldDecide: "how the reserved memory is split: the largest free block against the request",
		Capture:     "print torch.cuda.memory_summary() at the failure (oomdoc run --capture records a snapshot)",
		Assess:      checkFragmentation,
	}
}

func checkFragmentation(f *Facts) *Finding {
	ev := f.Ev
	if ev.Kind == parser.KindXLA && ev.Device != nil && ev.Device.Type == "tpu" {
		// A TPU's memory is planned when the program compiles: there is no
		// growing pool to fragment (XLA_PYTHON_CLIENT_PREALLOCATE is a
		// GPU switch).
		return nil
	}
	if ev.Kind == parser.KindXLA {
		// XLA's BFC allocator without preallocation fragments as it grows.
		fd := &Finding{Culprit: "fragmentation", Event: ev.ID, Quantities: Quantities{RequestedBytes: f.Requested}}
		fd.fire(fragXLA)
		fd.Title = "Possibly fragmentation of XLA's growing memory pool"
		fd.Explanation = "With preallocation disabled (XLA_PYTHON_CLIENT_PREALLOCATE=false) or the platform allocator, XLA grows its pool on demand and can fail to find a contiguous block although enough memory is free in total."
		fd.Decide = "whether XLA_PYTHON_CLIENT_PREALLOCATE / XLA_PYTHON_CLIENT_ALLOCATOR are set, and the jaxlib version"
		fd.Evidence = append(fd.Evidence, f.EventLine())
		for _, name := range []string{"XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_ALLOCATOR"} {
			if s, ok := f.Setting(name); ok {
				// the log says how the pool was set up: what is left to
				// decide is the version
				fd.Decide = "the jaxlib version (" + name + "=" + s.Value + " is set)"
				fd.Evidence = append(fd.Evidence, Evidence{Input: f.Input, Line: s.Line, Text: s.Name + "=" + s.Value})
			}
		}
		return fd
	}
	if e, ok := f.measuredFragmentation(); ok {
		fd := &Finding{Culprit: "fragmentation", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested, HolderBytes: f.Measured.InactiveBytes}}
		fd.fire(fragMeasured)
		fd.Title = fmt.Sprintf("%s free in PyTorch's cache, but no block of %s (measured)", size(f.Measured.InactiveBytes), size(f.Requested))
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("largest free block %s < requested %s ≤ cached free %s", size(f.Measured.LargestFreeBlockBytes), size(f.Requested), size(f.Measured.InactiveBytes)))
		fd.Explanation = "The memory snapshot shows enough free memory inside PyTorch's reserved segments for the request, split into blocks that are each too small. Expandable segments let a segment grow instead of leaving slivers."
		fd.Evidence = append(fd.Evidence, e, f.EventLine())
		return fd
	}
	if !f.UnallocKnown || f.Requested == 0 || f.Unallocated < f.Requested {
		return nil
	}
	fd := &Finding{Culprit: "fragmentation", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested, HolderBytes: f.Unallocated}}
	share := 0.0
	if f.Capacity > 0 {
		share = float64(f.Unallocated) / float64(f.Capacity)
	}
	if share >= 0.1 {
		fd.fire(fragIdleLarge)
	} else {
		fd.fire(fragIdleSmall)
	}
	fd.Title = fmt.Sprintf("%s reserved but unallocated, yet no block of %s", size(f.Unallocated), size(f.Requested))
	fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("reserved − allocated = %s ≥ requested %s", size(f.Unallocated), size(f.Requested)))
	if f.Capacity > 0 {
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("the idle cache is %s of the device", pct(f.Unallocated, f.Capacity)))
	}
	fd.Explanation = "PyTorch's caching allocator holds enough free memory for this request, but split across blocks that are each too small. Expandable segments let one segment grow instead of leaving slivers."
	if share < 0.1 {
		fd.Explanation += " The idle share is small, though: fragmentation is at most a contributor, and the memory that is allocated is the real pressure."
	}
	fd.Evidence = append(fd.Evidence, f.EventLine())
	return fd
}
