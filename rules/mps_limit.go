package rules

import (
	"fmt"

	"github.com/oomdoc/oomdoc/parser"
)

// mpsLimit: Apple's MPS allocator refused to pass its high watermark.
func mpsLimit() Rule {
	return Rule{
		ID:        "mps-limit",
		Title:     "Apple MPS allocator's high-watermark limit",
		Recognise: "\"MPS backend out of memory (MPS allocated: …, other allocations: …, max allowed: …)\".",
		Check:     checkMPSLimit,
	}
}

func checkMPSLimit(f *Facts) *Finding {
	ev := f.Ev
	if ev.Kind != parser.KindMPS || ev.Framework != "pytorch" {
		return nil
	}
	fd := &Finding{Culprit: "mps-limit", Event: ev.ID, Confidence: 0.7, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested}}
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
