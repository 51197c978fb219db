package rules

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestWeightsRoundTrip: the committed table decodes, and writing it out
// again gives the same weights.
func TestWeightsRoundTrip(t *testing.T) {
	w := committedWeights()
	if len(w.Signal) == 0 || len(w.Prior) == 0 || len(w.Silent) == 0 {
		t.Fatalf("committed table lacks rows: %d signals, %d contexts, %d silent shifts", len(w.Signal), len(w.Prior), len(w.Silent))
	}
	var buf bytes.Buffer
	if err := writeWeights(&buf, w, []string{"round trip"}); err != nil {
		t.Fatal(err)
	}
	back, err := readWeights(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(w, back) {
		t.Error("the table changed on a write and read")
	}
}

func TestReadWeights(t *testing.T) {
	tests := []struct {
		name, table string
		wantErr     string
		check       func(w Weights) bool
	}{
		{"signal", "signal\tkv-cache/cache-frames\t2.5\n", "", func(w Weights) bool { return w.Signal["kv-cache/cache-frames"] == 2.5 }},
		{"silent", "silent\tleak\t-0.25\n", "", func(w Weights) bool { return w.Silent["leak"] == -0.25 }},
		{"prior", "prior\tgpu/unknown\tleak\t-3\n", "", func(w Weights) bool { return w.Prior["gpu/unknown"]["leak"] == -3 }},
		{"calibration", "calibration\tslope\t0.9\ncalibration\tintercept\t0.1\n", "", func(w Weights) bool { return w.Slope == 0.9 && w.Intercept == 0.1 }},
		{"comments and blanks", "# header\n\nunknown\tunknown/bias\t-1\n", "", func(w Weights) bool { return w.Unknown["unknown/bias"] == -1 }},
		{"bad number", "signal\tx\tlots\n", `line 1: weight "lots"`, nil},
		{"unknown row", "weight\tx\t1\n", "line 1: want", nil},
		{"prior without culprit", "prior\tgpu/unknown\t1\n", "line 1: want", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := readWeights(strings.NewReader(tt.table))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to say %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(w) {
				t.Errorf("decoded %+v", w)
			}
		})
	}
}

// FuzzReadWeights: no table text makes the decoder panic, and what it
// accepts it writes back in a form it reads again, whose second writing is
// byte for byte the first (a write rounds to three decimals once).
func FuzzReadWeights(f *testing.F) {
	head, _, _ := strings.Cut(weightsTable, "prior\t") // the table's comments, signals and calibration
	f.Add(head)
	f.Add("signal\ta\t1\nprior\tc\tx\t-2\nsilent\tx\t0\n")
	f.Fuzz(func(t *testing.T, table string) {
		w, err := readWeights(strings.NewReader(table))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := writeWeights(&buf, w, nil); err != nil {
			t.Fatal(err)
		}
		first := buf.String()
		back, err := readWeights(&buf)
		if err != nil {
			t.Fatalf("a table the decoder accepted does not read back: %v", err)
		}
		var again bytes.Buffer
		if err := writeWeights(&again, back, nil); err != nil {
			t.Fatal(err)
		}
		if again.String() != first {
			t.Fatalf("a table changed on a second write:\n%s\nthen\n%s", first, again.String())
		}
	})
}
