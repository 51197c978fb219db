package rules

import (
	"fmt"

	"github.com/oomdoc/oomdoc/parser"
)

// leak: memory grows across iterations because tensors are kept alive or
// autograd history accumulates. It fires on allocated figures that grow
// across repeated failures of one device, on a failure after many steps,
// and — as a low-confidence alternative — on any training-step failure
// whose step count the log does not show.
func leak() Culprit {
	return Culprit{
		ID:             "leak",
		Title:          "Memory grows across iterations: tensors kept alive or graph history accumulated",
		Doc:            "Something keeps tensors alive from one iteration to the next — a running loss summed without .item(), outputs or logits appended to a list, a retained graph, predictions concatenated on the device — so allocated memory rises every step until an ordinary allocation fails. torch.cuda.empty_cache() cannot free tensors that are still referenced.",
		Recognise:      "An OOM only after many steps or epochs; allocated figures growing across repeated OOMs; `total_loss += loss` without .item(), lists of outputs kept across iterations.",
		Excludes:       []string{parser.KindHostKill, parser.KindCPU, parser.KindServing, parser.KindMPS, parser.KindNCCL},
		ExcludesPhases: []string{parser.PhaseLoad},
		Signals: []Signal{
			{Name: leakEvalAccumulation, Strength: EvidenceSignal, Start: 2.0, Doc: "an evaluation loop concatenating every batch's predictions on the device"},
			{Name: leakGrowth, Strength: EvidenceSignal, Start: 2.5, Doc: "allocated memory grows between repeated failures on one device"},
			{Name: leakCode, Strength: EvidenceSignal, Start: 1.2, Doc: "code that keeps tensors across iterations (loss summed without .item(), outputs appended)"},
			{Name: leakLateStep, Strength: PriorSignal, Start: 0.3, Doc: "the failure comes after a whole epoch or 100+ steps"},
			{Name: leakTraining, Strength: PriorSignal, Start: -0.5, Doc: "a training step whose step count the log does not show"},
			{Name: leakOldTorch, Strength: PriorSignal, Start: 0.0, Doc: "a PyTorch 0.x (THC) message: 0.4 made a summed loss keep its graph unless read with .item()"},
		},
		WouldDecide: "whether memory rises step after step: a steady rise is a leak, a flat line with one spike is a large batch",
		Capture:     "log torch.cuda.memory_allocated() every N steps",
		Assess:      checkLeak,
	}
}

// Signals of leak.
const (
	leakEvalAccumulation = "leak/eval-accumulation"
	leakGrowth           = "leak/growth-between-failures"
	leakCode             = "leak/kept-tensors-code"
	leakLateStep         = "leak/late-step"
	leakTraining         = "leak/training-step"
	leakOldTorch         = "leak/torch-0.x"
)

// leakCue holds the words that point at tensors kept alive across iterations.
func leakCue() cue {
	return words("+= loss", "+=loss", "losses.append(loss)", "outputs.append(", "preds.append(", "all_logits.append(", "retain_graph=True")
}

// evalAccumulationCue holds the words of an evaluation loop that keeps
// every batch's predictions on the device (Hugging Face Trainer's
// nested_concat of preds_host, or the same by hand).
func evalAccumulationCue() cue {
	return words("nested_concat", "preds_host", "torch_pad_and_concatenate", "all_preds = torch.cat", "all_logits = torch.cat")
}

func checkLeak(f *Facts) *Finding {
	ev := f.Ev
	fd := &Finding{Culprit: "leak", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested}}
	fd.Title = "Memory grows from one iteration to the next"
	fd.Explanation = "Something keeps tensors alive across iterations — a running loss summed without .item(), outputs appended to a list, a graph retained — so memory rises each step until an ordinary allocation fails. empty_cache() cannot free referenced tensors."
	if e, ok := f.Find(evalAccumulationCue()); ok {
		fd.fire(leakEvalAccumulation)
		fd.Variant = VariantEvalAccumulate
		fd.Title = "Evaluation predictions accumulate on the GPU"
		fd.Explanation = "The evaluation loop concatenates every batch's predictions (logits) into one growing tensor on the GPU; with many examples or a large output vocabulary it outgrows the device long before the loop ends. Moving predictions to the CPU every few steps, or reducing logits before keeping them, bounds it."
		fd.Evidence = append(fd.Evidence, e)
	} else if grown := f.growth(); grown > 0 {
		fd.fire(leakGrowth)
		fd.Quantities.HolderBytes = grown
		fd.Arithmetic = append(fd.Arithmetic, "allocated grew by "+size(grown)+" between repeated failures on the same device")
	} else if e, ok := f.Find(leakCue()); ok {
		fd.fire(leakCode)
		fd.Evidence = append(fd.Evidence, e)
	} else if p := f.progress(); p != nil && (p.Epoch != nil && *p.Epoch >= 2 || p.Step != nil && *p.Step >= 100) {
		// epoch 2 is past a whole epoch whether the log counts from 0 or 1
		fd.fire(leakLateStep)
		fd.Evidence = append(fd.Evidence, Evidence{Input: f.Input, Line: p.Line, Text: progressText(p)})
		fd.Decide = "memory_allocated() logged every N steps: a steady rise is a leak, a flat line with one spike is a large batch"
	} else if f.Training >= 0.8 && (ev.Phase == parser.PhaseBackward || ev.Phase == parser.PhaseForward || ev.Phase == parser.PhaseUnknown) {
		fd.fire(leakTraining)
		fd.Decide = "whether it failed on the first step or after many: log torch.cuda.memory_allocated() each step"
	} else if ev.Variant == "torch-0.x-thc" {
		// PyTorch 0.4 merged Variable into Tensor: `total_loss += loss`
		// written for 0.3 began keeping every step's graph alive.
		fd.fire(leakOldTorch)
		fd.Decide = "whether a running loss or metric is summed from tensors without .item() (loss.data[0] in 0.3 code)"
	} else {
		return nil
	}
	fd.Evidence = append(fd.Evidence, f.EventLine())
	return fd
}

// growth is how much allocated memory grew from the first to the last
// failure on the same device and rank: 0 below 64 MiB or a twentieth of
// the device, which a cache warming up or a REPL's own tensor between
// tries explains as well as a leak.
func (f *Facts) growth() int64 {
	if f.Ev.AllocatedBytes == nil {
		return 0
	}
	first := *f.Ev.AllocatedBytes
	var last int64
	n := 0
	for _, o := range f.Others {
		if o.AllocatedBytes == nil || o.Line <= f.Ev.Line || !sameDevice(o, *f.Ev) {
			continue
		}
		last, n = *o.AllocatedBytes, n+1
	}
	if n == 0 || last-first < max(64*mib, f.Capacity/20) {
		return 0
	}
	return last - first
}

func sameDevice(a, b parser.Event) bool {
	if (a.Rank == nil) != (b.Rank == nil) || a.Rank != nil && *a.Rank != *b.Rank {
		return false
	}
	ai, bi := -1, -1
	if a.Device != nil && a.Device.Index != nil {
		ai = *a.Device.Index
	}
	if b.Device != nil && b.Device.Index != nil {
		bi = *b.Device.Index
	}
	return ai == bi
}

// progress is the last progress counter the parser saw before the event.
func (f *Facts) progress() *parser.Progress {
	for i := range f.Res.Context.Progress {
		if f.Res.Context.Progress[i].Event == f.Ev.ID {
			return &f.Res.Context.Progress[i]
		}
	}
	return nil
}

func progressText(p *parser.Progress) string {
	switch {
	case p.Epoch != nil && p.Step != nil:
		return fmt.Sprintf("epoch %d, step %d", *p.Epoch, *p.Step)
	case p.Epoch != nil:
		return fmt.Sprintf("epoch %d", *p.Epoch)
	case p.Step != nil:
		return fmt.Sprintf("step %d", *p.Step)
	}
	return ""
}
