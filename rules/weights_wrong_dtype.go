package rules

import (
	"fmt"
	"strings"

	"github.com/oomdoc/oomdoc/parser"
)

// weightsWrongDtype: the weights were loaded in float32 (or another dtype
// than intended). It fires when memory held ÷ parameters ≈ 4 bytes, or when
// the log shows a float32 dtype chosen for a model whose checkpoint is
// 16-bit.
// Signals of weights-wrong-dtype.
const (
	dtypeSetting   = "weights-wrong-dtype/float32-setting"
	dtypeRatio     = "weights-wrong-dtype/four-bytes-per-param"
	dtypeFitsAt16  = "weights-wrong-dtype/fits-only-at-16bit"
	dtypeFitsAt16E = "weights-wrong-dtype/fits-only-at-16bit-float32-set"
)

// weightsWrongDtype: the weights were loaded in float32 (or another dtype
// than intended). It fires when memory held ÷ parameters ≈ 4 bytes, or when
// the log shows a float32 dtype chosen for a model whose checkpoint is
// 16-bit.
func weightsWrongDtype() Culprit {
	return Culprit{
		ID:        "weights-wrong-dtype",
		Title:     "The weights were loaded in float32 (4 bytes per parameter) instead of 16-bit",
		Doc:       "Loading without a dtype gives float32 on transformers ≤ 4.57 and in plain PyTorch; --dtype float does the same in vLLM. Each parameter then takes 4 bytes instead of the 2 its 16-bit checkpoint needs, doubling the weights' memory.",
		Recognise: "Memory held ÷ parameters ≈ 4 bytes; a load-time failure with no dtype argument on transformers ≤ 4.57 (whose default is float32); --dtype float / dtype=torch.float32 in the command.",
		Excludes:  []string{parser.KindHostKill, parser.KindCPU, parser.KindNCCL},
		Signals: []Signal{
			{Name: dtypeSetting, Strength: EvidenceSignal, Start: 1.0, Doc: "the log sets dtype float32"},
			{Name: dtypeRatio, Strength: EvidenceSignal, Start: 2.0, Doc: "memory held ÷ the model's parameters ≈ 4 bytes"},
			{Name: dtypeFitsAt16, Strength: HypothesisSignal, Start: 0.5, Doc: "loading failed, and the model fits at 2 bytes per parameter but not at 4"},
			{Name: dtypeFitsAt16E, Strength: EvidenceSignal, Start: 2.0, Doc: "float32 set, and the model fits at 2 bytes per parameter but not at 4"},
		},
		WouldDecide: "the dtype the weights were loaded in",
		Capture:     "print next(model.parameters()).dtype after loading",
		Assess:      checkWeightsWrongDtype,
	}
}

func checkWeightsWrongDtype(f *Facts) *Finding {
	ev := f.Ev
	fd := &Finding{Culprit: "weights-wrong-dtype", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, Params: f.Params}}
	if f.Model != nil {
		fd.Model = f.Model.ID
	}
	for _, name := range []string{"dtype", "torch_dtype"} {
		if s, ok := f.Setting(name); ok && isFloat32(s.Value) {
			fd.fire(dtypeSetting)
			fd.Evidence = append(fd.Evidence, Evidence{Input: f.Input, Line: s.Line, Text: s.Name + "=" + s.Value})
		}
	}
	explicit := len(fd.Signals) > 0
	ratioFits := false
	held := f.Holder()
	if f.Params > 0 && held > 0 {
		ratio := float64(held) / float64(f.Params)
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("%s held ÷ %s params ≈ %.1f bytes per parameter", size(held), billions(f.Params), ratio))
		if ratio >= 3.4 && ratio <= 4.8 {
			fd.fire(dtypeRatio)
			ratioFits = true
			fd.Quantities.BytesPerParam = 4
			fd.Quantities.WeightBytes = f.Params * 4
			fd.Evidence = append(fd.Evidence, f.ModelFrom, f.EventLine())
		}
	}
	if !ratioFits && f.Params > 0 && f.Capacity > 0 && (ev.Phase == parser.PhaseLoad || explicit) {
		// Fits at 16-bit but not at 32-bit: a float32 load is the likely cause.
		if f.Params*2 < f.Capacity*80/100 && f.Params*4 >= f.Capacity*90/100 {
			if explicit {
				fd.fire(dtypeFitsAt16E)
			} else {
				fd.fire(dtypeFitsAt16)
			}
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("%s params × 4 B = %s does not fit %s; × 2 B = %s would", billions(f.Params), size(f.Params*4), size(f.Capacity), size(f.Params*2)))
			fd.Quantities.BytesPerParam = 4
			fd.Quantities.WeightBytes = f.Params * 4
			fd.Evidence = append(fd.Evidence, f.ModelFrom, f.EventLine())
		}
	}
	if len(fd.Signals) == 0 {
		return nil
	}
	fd.Title = "The weights are float32: twice the memory of the checkpoint's 16-bit dtype"
	fd.Explanation = "Loading without a dtype gives float32 on transformers ≤ 4.57 and in plain PyTorch; --dtype float does the same in vLLM. Each parameter then takes 4 bytes instead of 2."
	if f.Params > 0 {
		fd.Explanation += fmt.Sprintf(" For %s parameters that is %s instead of %s.", billions(f.Params), size(f.Params*4), size(f.Params*2))
		fd.Quantities.WeightBytes = f.Params * 4
	}
	return fd
}

func isFloat32(v string) bool {
	v = strings.ToLower(strings.Trim(v, `"'`))
	return v == "float" || v == "float32" || v == "torch.float32" || v == "torch.float" || v == "fp32"
}
