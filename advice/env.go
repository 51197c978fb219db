package advice

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/oomdoc/oomdoc/parser"
)

// Env is what the log says about the user's stack, for spelling fixes the
// way their versions expect (research/peers.md §11).
type Env struct {
	Torch        string // "2.1.2", "" when unknown
	Transformers string
	VLLM         string
	HintEnv      string // the allocator env var the failure message itself names
	ROCm         bool
	// dtypeWarned is the line of transformers' "torch_dtype is deprecated"
	// warning (so it is ≥ 4.56), allocWarned that of torch's
	// "PYTORCH_CUDA_ALLOC_CONF is deprecated"; 0 when absent.
	dtypeWarned int
	allocWarned *fact
}

// readFacts takes what the log's warnings say about the versions.
func (e *Env) readFacts(lf *logFacts) {
	if lf.torchDTypeDeprecated != nil {
		e.dtypeWarned = lf.torchDTypeDeprecated.Line
	}
	e.allocWarned = lf.allocConfDeprecated
}

// EnvOf reads versions from the parsed context and the events.
func EnvOf(res *parser.Result) Env {
	var e Env
	for _, v := range res.Context.Versions {
		switch v.Name {
		case "torch":
			e.Torch = v.Version
		case "transformers":
			e.Transformers = v.Version
		case "vllm":
			e.VLLM = v.Version
		}
	}
	for _, ev := range res.Events {
		if ev.HintEnv != "" && e.HintEnv == "" {
			e.HintEnv = ev.HintEnv
		}
		if ev.Kind == parser.KindHIP || ev.Device != nil && ev.Device.Type == "rocm" {
			e.ROCm = true
		}
	}
	return e
}

// version parses the major and minor numbers of "4.56.1+cu121"; ok is
// false for an unknown version.
func version(v string) (major, minor int, ok bool) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	lead := func(s string) (int, bool) {
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		x, err := strconv.Atoi(s[:n])
		return x, err == nil
	}
	ma, ok1 := lead(parts[0])
	mi, ok2 := lead(parts[1])
	return ma, mi, ok1 && ok2
}

// atLeast reports whether v ≥ major.minor; known is false when v is unknown.
func atLeast(v string, major, minor int) (yes, known bool) {
	ma, mi, ok := version(v)
	if !ok {
		return false, false
	}
	return ma > major || ma == major && mi >= minor, true
}

// AllocConfVar names the allocator env var to set, with a note when the
// choice needed care: torch < 2.8 and 2.9.x need PYTORCH_CUDA_ALLOC_CONF
// (2.9.1 ignores expandable_segments under the new name), ≥ 2.11 prefers
// PYTORCH_ALLOC_CONF, and the old name works everywhere as an alias.
func (e Env) AllocConfVar() (name, note string) {
	if e.ROCm {
		return "PYTORCH_HIP_ALLOC_CONF", ""
	}
	if new, known := atLeast(e.Torch, 2, 11); known {
		if new {
			return "PYTORCH_ALLOC_CONF", "torch " + e.Torch + " reads PYTORCH_ALLOC_CONF (the old PYTORCH_CUDA_ALLOC_CONF still works as an alias)"
		}
		if nine, _ := atLeast(e.Torch, 2, 9); nine {
			return "PYTORCH_CUDA_ALLOC_CONF", "on torch " + e.Torch + " use PYTORCH_CUDA_ALLOC_CONF: 2.9.x ignores expandable_segments given as PYTORCH_ALLOC_CONF"
		}
		return "PYTORCH_CUDA_ALLOC_CONF", ""
	}
	if e.allocWarned != nil {
		return "PYTORCH_CUDA_ALLOC_CONF", fmt.Sprintf("torch warns at line %d that PYTORCH_CUDA_ALLOC_CONF is deprecated; it still works, and 2.9.x needs it for expandable_segments (≥ 2.11 reads PYTORCH_ALLOC_CONF)", e.allocWarned.Line)
	}
	if e.HintEnv == "PYTORCH_ALLOC_CONF" {
		return "PYTORCH_CUDA_ALLOC_CONF", "your torch prints PYTORCH_ALLOC_CONF, but on 2.9.x only PYTORCH_CUDA_ALLOC_CONF enables expandable_segments; the old name works on every version"
	}
	return "PYTORCH_CUDA_ALLOC_CONF", "torch version not in the log: PYTORCH_CUDA_ALLOC_CONF works on every version (≥ 2.11 also reads PYTORCH_ALLOC_CONF)"
}

// A renamed argument: its name from a version on, its old name before, and
// the name to give (with why) when the version is unknown.
type renamed struct {
	major, minor     int
	newName, oldName string
	unknown, note    string
}

// spell picks the spelling for version v.
func (r renamed) spell(v string) (name, note string) {
	if yes, known := atLeast(v, r.major, r.minor); known {
		if yes {
			return r.newName, ""
		}
		return r.oldName, ""
	}
	return r.unknown, r.note
}

// DTypeArg spells the from_pretrained dtype argument: dtype= since
// transformers 4.56, torch_dtype= before. When the version is unknown it is
// dtype= (what most users run, and what ≥ 4.56 asks for instead of warning),
// with a note for older versions; transformers' own "torch_dtype is
// deprecated" warning in the log settles it.
func (e Env) DTypeArg() (arg, note string) {
	if e.dtypeWarned > 0 && e.Transformers == "" {
		return "dtype", ""
	}
	return renamed{4, 56, "dtype", "torch_dtype", "dtype",
		"transformers version not in the log: dtype= is the name since 4.56; on older versions write torch_dtype="}.spell(e.Transformers)
}

// LogitsToKeepArg spells the argument that limits logits to the last
// positions: logits_to_keep since transformers 4.49, num_logits_to_keep
// before (and silently ignored after the shim was removed).
func (e Env) LogitsToKeepArg() (arg, note string) {
	return renamed{4, 49, "logits_to_keep", "num_logits_to_keep", "logits_to_keep",
		"transformers version not in the log: logits_to_keep is the name since 4.49; older versions call it num_logits_to_keep"}.spell(e.Transformers)
}
