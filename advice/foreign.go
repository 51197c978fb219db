package advice

import (
	"strings"

	"github.com/oomdoc/oomdoc/parser"
)

// Fixes are written in PyTorch's terms; a failure in another framework
// gets the change without the torch spelling, or not at all.

// torchCode reports whether a snippet is written for PyTorch or the
// libraries on it (transformers, accelerate, peft, torch.utils.data).
func torchCode(snippet string) bool {
	for _, w := range []string{"torch", "transformers", "from_pretrained", "DataLoader(", "accelerate", "peft", "TrainingArguments"} {
		if strings.Contains(snippet, w) {
			return true
		}
	}
	return false
}

// portableFixes are the changes that mean the same in any framework — a
// smaller batch, shorter sequences, recomputation, another device — so
// that without their torch spelling they still say what to do.
func portableFixes() map[string]bool {
	return map[string]bool{
		"smaller-micro-batch": true, "halve-batch": true, "shorter-sequence": true, "shorter-sequences": true,
		"gradient-checkpointing": true, "free-the-gpu": true, "pick-idle-gpu": true, "leave-headroom": true,
		"smaller-model": true, "split-across-gpus": true, "limit-generation-length": true, "smaller-context": true,
		"fewer-images": true, "lower-max-pixels": true, "more-host-memory": true, "reduce-host-memory": true,
		"check-free-memory": true, "split-large-tensor": true, "lower-image-resolution": true,
	}
}

// dropForeignSnippets keeps PyTorch code out of the fixes of failures in
// another framework. A portable change keeps its title and reason without
// the torch spelling; a change that exists only in PyTorch's libraries
// (a Liger kernel, bitsandbytes, SDPA) is dropped. A snippet that names
// the framework itself is that framework's and stays.
func (rep *Report) dropForeignSnippets(res *parser.Result) {
	events := map[string]*parser.Event{}
	for i := range res.Events {
		events[res.Events[i].ID] = &res.Events[i]
	}
	for i := range rep.Diagnoses {
		d := &rep.Diagnoses[i]
		ev := events[d.Event]
		if ev == nil || parser.OnPyTorch(ev) {
			continue
		}
		fw := ev.Framework
		note := "oomdoc has no " + fw + " spelling of this change; the change itself applies"
		if fw == "" {
			note = "the log does not say which framework this runtime is, so no spelling is given; the change itself applies"
		}
		kept := d.Fixes[:0]
		for _, fx := range d.Fixes {
			switch {
			case !torchCode(fx.Snippet) || fw != "" && strings.Contains(strings.ToLower(fx.Snippet), fw):
			case portableFixes()[fx.ID]:
				fx.Snippet = ""
				fx.Note = note
			default:
				continue
			}
			kept = append(kept, fx)
		}
		d.Fixes = kept
	}
}

// cudaOnlyFixes are changes that need an NVIDIA or AMD GPU's discrete
// memory: bitsandbytes' quantisation, and offloading weights to CPU RAM
// across PCIe, which on unified memory (Apple silicon) frees nothing.
func cudaOnlyFixes() map[string]bool {
	return map[string]bool{"load-in-4bit": true, "load-in-8bit": true, "cpu-offload": true}
}

// dropDeviceless removes the fixes the failing device cannot run: an
// Apple GPU, an Intel XPU or the host gets no bitsandbytes and no CPU
// offload.
func (rep *Report) dropDeviceless(res *parser.Result) {
	devices := map[string]string{}
	for _, ev := range res.Events {
		if ev.Device != nil {
			devices[ev.ID] = ev.Device.Type
		}
	}
	for i := range rep.Diagnoses {
		d := &rep.Diagnoses[i]
		switch devices[d.Event] {
		case "mps", "xpu", "cpu":
		default:
			continue
		}
		dev := devices[d.Event]
		kept := d.Fixes[:0]
		for _, fx := range d.Fixes {
			// Apple silicon has one GPU: there is no second one to split
			// a model across
			if !cudaOnlyFixes()[fx.ID] && !(dev == "mps" && fx.ID == "split-across-gpus") {
				kept = append(kept, fx)
			}
		}
		d.Fixes = kept
	}
}
