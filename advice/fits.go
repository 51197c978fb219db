package advice

import (
	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/rules"
)

// whatFits builds the table of weight options against the device when a
// weight culprit leads and both the model and the capacity are known.
func whatFits(fs []rules.Finding, f *rules.Facts, cat models.Catalog) *FitTable {
	if len(fs) == 0 || f.Model == nil || f.Capacity == 0 {
		return nil
	}
	switch fs[0].Culprit {
	case "weights-too-large", "weights-wrong-dtype":
	default:
		return nil
	}
	t := &FitTable{Model: f.Model.ID, Capacity: f.Capacity, Reserve: Reserve(f.Capacity)}
	add := func(m models.Model, format, note string) {
		b := WeightBytes(m.Params, nonLinearParams(m), format)
		t.Rows = append(t.Rows, FitRow{Option: m.Name() + " " + format, Bytes: b, Fits: Fits(b, f.Capacity), Headroom: f.Capacity - b - t.Reserve, Note: note})
	}
	for _, format := range []string{FormatFP16, FormatInt8, FormatNF4, FormatNF4DQ} {
		add(*f.Model, format, "")
	}
	b16 := WeightBytes(f.Model.Params, 0, FormatFP16)
	if !Fits(b16, f.Capacity) {
		onGPU := f.Capacity - t.Reserve
		t.Rows = append(t.Rows, FitRow{Option: f.Model.Name() + " " + FormatFP16 + " + CPU offload", Bytes: onGPU, Fits: true, Headroom: 0,
			Note: "runs, slowly: " + size(b16-onGPU) + " of layers stay in CPU RAM"})
	}
	for _, s := range cat.Siblings(*f.Model) {
		if !smallerModel(s, *f.Model) {
			continue
		}
		for _, format := range []string{FormatFP16, FormatInt8, FormatNF4} {
			add(s, format, "smaller model")
		}
	}
	return t
}
