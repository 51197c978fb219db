package rules

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/snapshot"
)

// Signals of weights-too-large.
const (
	weightsExceed      = "weights-too-large/weights-exceed-device"
	weightsMost        = "weights-too-large/weights-most-of-device"
	weightsLoadFits    = "weights-too-large/load-although-16bit-fits"
	weightsLoadPhase   = "weights-too-large/load-phase"
	weightsLoadFull    = "weights-too-large/load-on-full-device"
	weightsPartial     = "weights-too-large/partially-loaded"
	weightsFullSmall   = "weights-too-large/full-device-small-request"
	weightsNoFigures   = "weights-too-large/no-figures"
	weightsDuringLoad  = "weights-too-large/during-load"
	weightsSpikeOrHeld = "weights-too-large/full-device-sizeable-request"
)

// weightsTooLarge: the model's weights alone do not fit at the dtype
// chosen. It fires on arithmetic when the model is known (params × 2 bytes
// against capacity), on a failure while loading, and — as priors only — when
// the resident memory nearly fills the device before a small allocation.
func weightsTooLarge() Culprit {
	return Culprit{
		ID:         "weights-too-large",
		Title:      "The model's weights alone do not fit on the device at this dtype",
		Doc:        "A model needs parameters × bytes per parameter for its weights before it processes a single input: 2 bytes at float16/bfloat16, 1 at 8-bit, about 0.5–0.6 at 4-bit. When that is near or above the device's memory, no batch size, cache setting or allocator option helps; the weights must shrink (quantisation, a smaller model), be split across devices, or be offloaded to CPU RAM.",
		Recognise:  "A failure while loading (from_pretrained, .to(\"cuda\"), load_state_dict, accelerate's set_module_tensor_to_device), or params × bytes per parameter at or above the device's capacity. A small request on a device already ≈ full points the same way.",
		Excludes:   []string{parser.KindHostKill, parser.KindCPU, parser.KindServing, parser.KindNCCL},
		GuessNeeds: weightsMayFail,
		Signals: []Signal{
			{Name: weightsMeasured, Strength: EvidenceSignal, Start: 4.0, Doc: "a memory snapshot shows weights holding at least 60% of the active memory"},
			{Name: weightsExceed, Strength: EvidenceSignal, Start: 3.0, Doc: "the known model's 16-bit weights are ≥ 95% of the device"},
			{Name: weightsMost, Strength: EvidenceSignal, Start: 1.5, Doc: "the known model's 16-bit weights are 75–95% of the device"},
			{Name: weightsDuringLoad, Strength: EvidenceSignal, Start: 1.0, Doc: "the arithmetic above, and the failure is while loading"},
			{Name: weightsLoadFits, Strength: EvidenceSignal, Start: 0.0, Doc: "loading failed although 16-bit weights would fit"},
			{Name: weightsLoadPhase, Strength: EvidenceSignal, Start: 1.2, Doc: "the failure is while the weights are placed on the device"},
			{Name: weightsLoadFull, Strength: EvidenceSignal, Start: 0.5, Doc: "loading failed with the device ≥ 80% held"},
			{Name: weightsPartial, Strength: EvidenceSignal, Start: 1.0, Doc: "the runtime says the model was only partly loaded onto the device"},
			{Name: weightsFullSmall, Strength: PriorSignal, Start: 0.4, Doc: "a small request on a device ≥ 85% held"},
			{Name: weightsSpikeOrHeld, Strength: PriorSignal, Start: 0.0, Doc: "a sizeable request on a device ≥ 85% held"},
			{Name: weightsNoFigures, Strength: PriorSignal, Start: -0.5, Doc: "a GPU failure that prints no figures at all"},
		},
		WouldDecide: "the model's size and dtype against the device",
		Capture:     "pass --model ORG/NAME, or print torch.cuda.memory_allocated() right after loading",
		Assess:      checkWeightsTooLarge,
	}
}

// weightsMayFail reports whether the failing allocation can be the
// weights' at all. A native runtime's graph allocator failing names a
// compute buffer (llama.cpp's "ggml_gallocr_reserve_n: failed to allocate
// CUDA0 buffer", "failed to allocate compute pp buffers"): the weights were
// placed before it, so a base rate for weights that do not fit is one the
// log contradicts.
func weightsMayFail(f *Facts) bool {
	return !parser.CueComputeBuffer().Matches(f.Ev.Message)
}

func checkWeightsTooLarge(f *Facts) *Finding {
	ev := f.Ev
	fd := &Finding{Culprit: "weights-too-large", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested, Params: f.Params}}
	if f.Model != nil {
		fd.Model = f.Model.ID
	}
	load := ev.Phase == parser.PhaseLoad || f.loadingAfter()
	if f.fireMeasured(fd, snapshot.KindWeights, weightsMeasured, 0.6) {
		fd.Title = "The model's weights hold most of the device (measured)"
		fd.Explanation = "The memory snapshot attributes most of the active memory to the weights: the steady state of the model itself leaves too little for the step that failed."
		fd.Evidence = append(fd.Evidence, f.EventLine())
		return fd
	}
	if f.Params > 0 && f.Capacity > 0 {
		w16 := f.Params * 2
		fd.Quantities.BytesPerParam, fd.Quantities.WeightBytes = 2, w16
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("%s params × 2 B (16-bit) ≈ %s against %s of capacity", billions(f.Params), size(w16), size(f.Capacity)))
		fd.Evidence = append(fd.Evidence, f.ModelFrom)
		switch {
		case w16 >= f.Capacity*95/100:
			fd.fire(weightsExceed)
			if load {
				fd.fire(weightsDuringLoad)
			}
			fd.Title = fmt.Sprintf("%s of 16-bit weights cannot fit %s", size(w16), size(f.Capacity))
			fd.Explanation = fmt.Sprintf("At 2 bytes per parameter the %s-parameter model needs about %s for its weights alone, more than the device's %s. No batch size, cache setting or allocator option changes that; the weights must shrink (quantisation), be split across devices, or be offloaded.", billions(f.Params), size(w16), size(f.Capacity))
			fd.Quantities.ShortfallBytes = w16 - f.Capacity
		case w16 >= f.Capacity*75/100:
			fd.fire(weightsMost)
			if load {
				fd.fire(weightsDuringLoad)
			}
			fd.Title = fmt.Sprintf("16-bit weights take %s of the device", pct(w16, f.Capacity))
			fd.Explanation = fmt.Sprintf("The weights (about %s) leave only %s for activations, the KV cache and the CUDA context, which is rarely enough.", size(w16), size(f.Capacity-w16))
		default:
			if !load {
				return nil
			}
			// The arithmetic says 16-bit weights fit: loading failed for
			// another reason (a float32 load, or the device already held).
			fd.fire(weightsLoadFits)
			fd.Title = "Out of memory while loading weights that fit at 16-bit"
			fd.Explanation = fmt.Sprintf("16-bit weights (about %s) would fit the device's %s, yet loading failed: the weights are being loaded at a larger dtype, or something else already holds the device.", size(w16), size(f.Capacity))
			fd.Decide = "the dtype the weights were loaded in, and what the device held before loading"
		}
		fd.Evidence = append(fd.Evidence, f.EventLine())
		return fd
	}
	if load {
		e, _ := f.Find(words("from_pretrained", "load_state_dict", "set_module_tensor_to_device", ".to(", ".cuda(", "load_checkpoint", "load_model", "caching_allocator_warmup", "dispatch_model"))
		fd.Evidence = append(fd.Evidence, e, f.EventLine())
		fd.fire(weightsLoadPhase)
		fd.Title = "Out of memory while loading the model's weights"
		fd.Explanation = "The failure happened while the weights were being placed on the device, before any input was processed: the model does not fit at this dtype, or something else already holds the device."
		if f.Capacity > 0 && f.Holder() >= f.Capacity*80/100 {
			fd.fire(weightsLoadFull)
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("already held while loading: %s of %s (%s)", size(f.Holder()), size(f.Capacity), pct(f.Holder(), f.Capacity)))
			fd.Explanation += " The device was already " + pct(f.Holder(), f.Capacity) + " full when loading failed."
		}
		fd.Decide = "the model id and dtype: pass --model ORG/NAME to compare its weight size with the device"
		return fd
	}
	// ComfyUI (and accelerate) say when a model only partly fits:
	// "loaded partially; 9178.35 MB usable, 9177.97 MB loaded, 3390.29 MB offloaded".
	if n, ok := f.Notice("partially-loaded"); ok && isGPUKind(ev.Kind) {
		fd.fire(weightsPartial)
		fd.Title = "The model only partly fits: the rest was offloaded"
		fd.Explanation = "The runtime loaded only part of the model onto the device and kept the rest in CPU RAM, so the device is already full of weights when the work starts; the next allocation fails."
		if m := rePartial().FindStringSubmatch(n.Text); m != nil {
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("%s MB loaded + %s MB offloaded = %.0f MB of weights against %s MB usable", m[2], m[3], atof(m[2])+atof(m[3]), m[1]))
		}
		fd.Evidence = append(fd.Evidence, n, f.EventLine())
		fd.Decide = "the model's size and dtype against the device: a quantised (fp8/GGUF) checkpoint or a smaller model fits"
		return fd
	}
	// A small request on a device that is already nearly full: what is
	// resident is most likely the model itself.
	held := f.Holder()
	if ev.Kind == parser.KindMPS && f.Allocated > 0 {
		held = f.Allocated
	}
	if f.Capacity > 0 && held >= f.Capacity*85/100 && f.Requested > 0 && f.Requested <= f.Capacity/4 {
		if f.Requested > f.Capacity/16 {
			fd.fire(weightsSpikeOrHeld) // a sizeable request: a spike is as likely as the steady state
		} else {
			fd.fire(weightsFullSmall)
		}
		fd.Title = "The device was already full before this small allocation"
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("held %s of %s (%s); this request only %s", size(held), size(f.Capacity), pct(held, f.Capacity), size(f.Requested)))
		fd.Explanation = "Almost all of the device was in use when a small allocation failed, so the steady state does not fit, not one spike. For inference that steady state is mostly the weights."
		fd.Decide = "the model's size and dtype: pass --model ORG/NAME, or print torch.cuda.memory_allocated() right after loading"
		fd.Evidence = append(fd.Evidence, f.EventLine())
		if f.Capped {
			fd.Arithmetic = append(fd.Arithmetic, "the capacity here is the process's memory-fraction cap ("+size(f.Capacity)+" allowed), not the whole device")
		}
		return fd
	}
	if f.Holder() == 0 && f.Requested == 0 && !f.FreeKnown && isGPUKind(ev.Kind) && ev.Phase != parser.PhaseBackward && ev.Phase != parser.PhaseOptimizer {
		// No figures at all: name the commonest holder, plainly as a guess.
		fd.fire(weightsNoFigures)
		fd.Title = "Unknown holder; most often the model's weights"
		fd.Explanation = "The message gives no figures, so oomdoc cannot tell what holds the device. On a single-process GPU the usual holder is the model's weights plus whatever the failing step allocates."
		fd.Decide = "what the device holds: print torch.cuda.memory_summary() (or nvidia-smi) just before the failing step"
		fd.Evidence = append(fd.Evidence, f.EventLine())
		return fd
	}
	return nil
}

var rePartial = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([\d.]+) MB usable, ([\d.]+) MB loaded, ([\d.]+) MB offloaded`)
})

func atof(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

func isGPUKind(kind string) bool {
	switch kind {
	case parser.KindCUDA, parser.KindHIP, parser.KindXPU, parser.KindCUDARuntime:
		return true
	}
	return false
}

// loadingAfter reports whether a line right after the failure says model
// loading failed ("llama_model_load: error loading model"): the runtime
// names what it was doing only once the allocation has failed. A runtime
// that loaded the weights and then failed to create its context (the KV
// cache and compute buffers) says "unable to load model" too; a line that
// names the context says which it was.
func (f *Facts) loadingAfter() bool {
	load := false
	for k, l := range f.Ev.Following {
		if k == followingCued {
			break
		}
		lower := strings.ToLower(l.Text)
		if hasAny(lower, contextFailedCue().Words) {
			return false
		}
		load = load || hasAny(lower, loadFailedCue().Words)
	}
	return load
}

// contextFailedCue holds the (lower-case) words a runtime prints when the
// weights loaded but the context after them could not be created.
func contextFailedCue() cue {
	return words("failed to initialize the context", "failed to create context", "failed to allocate compute", "llama_new_context_with_model: failed")
}

// loadFailedCue holds the (lower-case) words a runtime prints when loading
// a model failed.
func loadFailedCue() cue {
	return words("error loading model", "failed to load model", "llama_model_load", "unable to load model")
}
