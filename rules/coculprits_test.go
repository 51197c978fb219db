package rules

import (
	"math"
	"reflect"
	"testing"
)

func TestMarkCoCulprits(t *testing.T) {
	const gib = int64(1) << 30
	other := func(conf float64, holder int64) Finding {
		return Finding{Culprit: "other-process", Event: "e1", Confidence: conf, Signals: []string{otherListed}, Quantities: Quantities{HolderBytes: holder}}
	}
	inProcess := func(conf float64, holder int64) Finding {
		fd := other(conf, holder)
		fd.Signals = []string{otherNonTorch}
		return fd
	}
	inside := func(id string, conf float64) Finding {
		return Finding{Culprit: id, Event: "e1", Confidence: conf}
	}
	type want struct {
		order []string
		confs []float64
		co    [][]string
	}
	for _, tc := range []struct {
		name  string
		found []Finding
		split map[string]split
		want  want
	}{
		{
			name:  "both sides hold more than the shortfall: each capped by its share",
			found: []Finding{other(0.8, 6*gib), inside("activations", 0.15)},
			split: map[string]split{"e1": {short: gib / 2, inside: 14 * gib}},
			want:  want{order: []string{"other-process", "activations"}, confs: []float64{0.3, 0.15}, co: [][]string{{"activations"}, {"other-process"}}},
		},
		{
			name:  "the cap re-ranks: the inside holder now leads",
			found: []Finding{other(0.8, 2*gib), inside("weights-too-large", 0.5)},
			split: map[string]split{"e1": {short: gib, inside: 18 * gib}},
			want:  want{order: []string{"weights-too-large", "other-process"}, confs: []float64{0.5, 0.1}, co: [][]string{{"other-process"}, {"weights-too-large"}}},
		},
		{
			name:  "the outside holder is below the shortfall: not a co-culprit",
			found: []Finding{other(0.6, gib/4), inside("activations", 0.3)},
			split: map[string]split{"e1": {short: gib, inside: 14 * gib}},
			want:  want{order: []string{"other-process", "activations"}, confs: []float64{0.6, 0.3}, co: [][]string{nil, nil}},
		},
		{
			name:  "no figures for the failure: nothing to split",
			found: []Finding{other(0.6, 6*gib), inside("activations", 0.3)},
			split: map[string]split{},
			want:  want{order: []string{"other-process", "activations"}, confs: []float64{0.6, 0.3}, co: [][]string{nil, nil}},
		},
		{
			name:  "non-PyTorch memory inside this process is not an outside holder",
			found: []Finding{inProcess(0.7, 40*gib), inside("activations", 0.2)},
			split: map[string]split{"e1": {short: gib, inside: 79 * gib}},
			want:  want{order: []string{"other-process", "activations"}, confs: []float64{0.7, 0.2}, co: [][]string{nil, nil}},
		},
		{
			name:  "a side under 1% of what the two hold keeps the lowest shown confidence, never 0",
			found: []Finding{other(0.8, 4096*gib), inside("activations", 0.3)},
			split: map[string]split{"e1": {short: gib, inside: 2 * gib}},
			want:  want{order: []string{"other-process", "activations"}, confs: []float64{0.8, 0.01}, co: [][]string{{"activations"}, {"other-process"}}},
		},
		{
			name:  "figures near the int64 limit do not overflow the share",
			found: []Finding{other(0.8, math.MaxInt64/2+gib), inside("activations", 0.3)},
			split: map[string]split{"e1": {short: gib, inside: math.MaxInt64/2 + gib}},
			want:  want{order: []string{"other-process", "activations"}, confs: []float64{0.5, 0.3}, co: [][]string{{"activations"}, {"other-process"}}},
		},
		{
			name:  "no in-process finding: the outside holder stands alone",
			found: []Finding{other(0.7, 6*gib)},
			split: map[string]split{"e1": {short: gib, inside: 10 * gib}},
			want:  want{order: []string{"other-process"}, confs: []float64{0.7}, co: [][]string{nil}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			markCoCulprits(tc.found, tc.split)
			var got want
			for _, fd := range tc.found {
				got.order = append(got.order, fd.Culprit)
				got.confs = append(got.confs, fd.Confidence)
				got.co = append(got.co, fd.CoCulprits)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
