package advice

import "fmt"

// A rule-out is what the log shows about one fix: the fact that makes it
// pointless and what that means for this crash.
type ruleOut struct {
	fact  *fact // nil when no line says it (the fix is then dropped without a word)
	means string
	tried bool // the user did it (as opposed to: it cannot apply here)
	warn  bool // worth saying although not tried: following it would do harm
}

// gpuFamily reports whether the device runs PyTorch's CUDA caching
// allocator (CUDA and ROCm builds), whose options and tools the
// allocator fixes use.
func (lf *logFacts) gpuFamily() bool {
	return lf.device == "" || lf.device == "cuda" || lf.device == "rocm"
}

// deviceFact is the failure line as the fact that the device is not CUDA.
func (lf *logFacts) deviceFact(ev int, word string) *fact {
	return &fact{Line: ev, Token: word, Text: "the failure is on " + deviceWords(lf.device)}
}

func deviceWords(d string) string {
	switch d {
	case "xpu":
		return "an Intel XPU"
	case "mps":
		return "an Apple GPU (MPS)"
	case "cpu":
		return "the CPU"
	}
	return d
}

// deviceToken is the word the failure line uses for the device.
func deviceToken(d string) string {
	switch d {
	case "xpu":
		return "XPU"
	case "mps":
		return "MPS"
	}
	return ""
}

// ruledOut says whether the log rules out fix id; evLine is the failure's
// line, for device facts.
func (lf *logFacts) ruledOut(id string, evLine int) (ruleOut, bool) {
	tried := func(f *fact, means string) (ruleOut, bool) {
		if f == nil {
			return ruleOut{}, false
		}
		return ruleOut{fact: f, means: means, tried: true}, true
	}
	notHere := func() (ruleOut, bool) {
		if lf.gpuFamily() || deviceToken(lf.device) == "" {
			return ruleOut{}, false
		}
		return ruleOut{fact: lf.deviceFact(evLine, deviceToken(lf.device)), means: "PYTORCH_CUDA_ALLOC_CONF configures the CUDA (and ROCm) allocator only"}, true
	}
	switch id {
	case "expandable-segments":
		if r, ok := tried(lf.expandable, "fragmentation is not the problem"); ok {
			return r, ok
		}
		if r, ok := tried(lf.expandableUnsupported, "this platform ignores it"); ok {
			r.tried = false
			return r, ok
		}
		return notHere()
	case "max-split-size":
		if r, ok := tried(lf.maxSplit, "block splitting is already capped"); ok {
			return r, ok
		}
		return notHere()
	case "record-memory-history":
		switch lf.framework {
		case "jax", "tensorflow", "mlx", "ggml":
			return ruleOut{means: "the snapshot recipe is PyTorch's"}, true // nothing to cite: not listed
		}
		if r, ok := notHere(); ok {
			r.means = "the snapshot recipe is for CUDA"
			return r, ok
		}
	case "gradient-checkpointing":
		return tried(lf.checkpointing, "the activations left are the ones checkpointing keeps")
	case "raise-gpu-memory-utilization":
		return tried(lf.gpuShareHigh, "vLLM already has 0.95 of the device or more")
	case "load-in-4bit":
		return tried(lf.fourBit, "the weights are already 4-bit")
	case "load-in-8bit":
		if r, ok := tried(lf.fourBit, "8-bit weights would be larger than the 4-bit ones loaded"); ok {
			return r, ok
		}
		return tried(lf.eightBit, "the weights are already 8-bit")
	case "load-in-bf16":
		return tried(lf.halfDType, "the weights are already asked for in 16-bit")
	case "wrap-inference-mode":
		if r, ok := tried(lf.noGrad, "autograd is already off there"); ok {
			return r, ok
		}
		return tried(lf.evalLoop, "autograd is already off there")
	case "use-sdpa-attention":
		return tried(lf.fusedAttention, "a fused attention kernel is already asked for")
	case "quantized-kv-cache":
		return tried(lf.quantizedCache, "the cache is already quantised")
	case "offloaded-kv-cache":
		if r, ok := tried(lf.offloadedCache, "the cache is already offloaded"); ok {
			return r, ok
		}
		if r, ok := notHere(); ok {
			r.means = "the offloaded cache needs CUDA"
			return r, ok
		}
	case "cpu-offload":
		return tried(lf.cpuOffload, "offloading is already on")
	case "vae-tiling":
		return tried(lf.vaeTiling, "the tiles themselves do not fit: a smaller tile size or output resolution is what is left")
	case "free-the-gpu", "pick-idle-gpu":
		if lf.soleProcess != nil {
			return ruleOut{fact: lf.soleProcess, means: "no other process holds the device; the memory outside PyTorch is inside this program (killing its PID would stop the program itself)", warn: id == "free-the-gpu"}, true
		}
	}
	return ruleOut{}, false
}

// triedWords says what the log shows about a ruled-out fix, citing its
// line: "already in place: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
// (line 3) — fragmentation is not the problem".
func (r ruleOut) words() string {
	lead := "already in place: "
	if !r.tried {
		lead = "does not apply: "
	}
	return fmt.Sprintf("%s%s (line %d); %s.", lead, r.fact.Text, r.fact.Line, r.means)
}
