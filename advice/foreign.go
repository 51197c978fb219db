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
		"check-free-memory": true, "split-large-tensor": true,
	}
}

// dropForeignSnippets keeps PyTorch code out of the fixes of failures in
// another framework. A portable change keeps its title and reason without
// the torch spelling; a change that exists only in PyTorch's libraries
// (a Liger kernel, bitsandbytes, SDPA) is dropped. A snippet that names
// the framework itself is that framework's and stays.
func (rep *Report) dropForeignSnippets(res *parser.Result) {
	framework := map[string]string{}
	for _, ev := range res.Events {
		framework[ev.ID] = ev.Framework
	}
	for i := range rep.Diagnoses {
		d := &rep.Diagnoses[i]
		fw := framework[d.Event]
		if parser.PyTorchStack(fw) {
			continue
		}
		kept := d.Fixes[:0]
		for _, fx := range d.Fixes {
			switch {
			case !torchCode(fx.Snippet) || strings.Contains(strings.ToLower(fx.Snippet), fw):
			case portableFixes()[fx.ID]:
				fx.Snippet = ""
				fx.Note = "oomdoc has no " + fw + " spelling of this change; the change itself applies"
			default:
				continue
			}
			kept = append(kept, fx)
		}
		d.Fixes = kept
	}
}
