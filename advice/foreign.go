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
	events := eventsByID(res)
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
		d.Fixes = unspelt(d.Fixes, func(snippet string) bool {
			return torchCode(snippet) && (fw == "" || !strings.Contains(strings.ToLower(snippet), fw))
		}, note)
	}
}

// eventsByID indexes a result's events by their ids.
func eventsByID(res *parser.Result) map[string]*parser.Event {
	events := map[string]*parser.Event{}
	for i := range res.Events {
		events[res.Events[i].ID] = &res.Events[i]
	}
	return events
}

// unspelt removes the spellings that do not apply from fixes: a fix whose
// snippet is foreign keeps its title and reason, with the note in place
// of the snippet, when the change is portable, and is dropped otherwise.
func unspelt(fixes []Fix, foreign func(snippet string) bool, note string) []Fix {
	kept := fixes[:0]
	for _, fx := range fixes {
		switch {
		case !foreign(fx.Snippet):
		case portableFixes()[fx.ID]:
			fx.Snippet = ""
			fx.Note = note
		default:
			continue
		}
		kept = append(kept, fx)
	}
	return kept
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

// hubCode reports whether a snippet loads a model through Hugging Face's
// libraries (from_pretrained, a transformers import).
func hubCode(snippet string) bool {
	return strings.Contains(snippet, "from_pretrained(") || strings.Contains(snippet, "from transformers")
}

// showsOwnModel reports whether a failure's traceback runs a model that is
// not a Hugging Face one: the failing call goes through a module's forward
// (torch/nn/modules), yet no frame is in transformers, diffusers, peft,
// accelerate or a Hub model's remote code, and no model id or
// from_pretrained is anywhere in the log (a torchvision ResNet's
// validation loop). A traceback that never reaches a module, or a one-line
// message, shows nothing either way.
func showsOwnModel(res *parser.Result, ev *parser.Event) bool {
	if len(res.Context.Models) > 0 {
		return false
	}
	forward := false
	for _, fr := range ev.Frames {
		forward = forward || strings.Contains(strings.ReplaceAll(fr.File, `\`, "/"), "/torch/nn/modules/") && (strings.Contains(fr.Function, "forward") || strings.Contains(fr.Function, "call_impl"))
	}
	if !forward {
		return false
	}
	for _, fr := range ev.Frames {
		f := strings.ReplaceAll(fr.File, `\`, "/")
		for _, w := range []string{"/transformers/", "/diffusers/", "/peft/", "/accelerate/", "transformers_modules", "/trl/", "/vllm/"} {
			if strings.Contains(f, w) {
				return false
			}
		}
		if strings.Contains(fr.Code, "from_pretrained") {
			return false
		}
	}
	for _, c := range ev.ContextLines {
		if strings.Contains(c.Text, "from_pretrained") || strings.Contains(c.Text, "transformers") {
			return false
		}
	}
	return true
}

// dropHubSnippets keeps Hugging Face loading code out of the fixes of a
// failure whose traceback runs a model of the program's own: a portable
// change keeps its title and reason without the transformers spelling; a
// change that exists only there (bitsandbytes through from_pretrained) is
// dropped.
func (rep *Report) dropHubSnippets(res *parser.Result) {
	events := eventsByID(res)
	for i := range rep.Diagnoses {
		d := &rep.Diagnoses[i]
		if ev := events[d.Event]; ev != nil && showsOwnModel(res, ev) {
			d.Fixes = unspelt(d.Fixes, hubCode, "the traceback runs no Hugging Face model, so no transformers spelling is given; the change itself applies")
		}
	}
}
