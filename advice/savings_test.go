package advice

import "testing"

// The worked numbers below come from research/models.md and the issue's
// reference cases; each formula is checked against them.
func TestWeightBytes(t *testing.T) {
	const llava13 = 13351494656
	const llava13NL = 2 * 32064 * 5120 // embed + lm_head
	const llava7 = 7063427072
	const llava7NL = 2 * 32064 * 4096
	tests := []struct {
		name              string
		params, nonLinear int64
		format            string
		want              int64
	}{
		{"llava-13b fp16", llava13, llava13NL, FormatFP16, 26702989312},
		{"llava-13b fp32", llava13, llava13NL, FormatFP32, 53405978624},
		{"llava-13b int8", llava13, llava13NL, FormatInt8, 13679830016},
		{"llava-13b nf4 (≈8.0 GB)", llava13, llava13NL, FormatNF4, 7982197824},
		{"llava-13b nf4+dq (≈7.4 GB)", llava13, llava13NL, FormatNF4DQ, 7374993021},
		{"llava-7b fp16 (≈14.1 GB)", llava7, llava7NL, FormatFP16, 14126854144},
		{"llava-7b int8", llava7, llava7NL, FormatInt8, 7326095360},
		{"no non-linear part", 1000, 0, FormatNF4, 562},
		{"unknown format", 1000, 0, "fp4x", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := WeightBytes(tc.params, tc.nonLinear, tc.format); got != tc.want {
				t.Errorf("WeightBytes = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestFits(t *testing.T) {
	const gpu12 = 12874416128 // "11.99 GiB"
	tests := []struct {
		name  string
		bytes int64
		want  bool
	}{
		{"13b fp16 on 12 GiB", 26702989312, false},
		{"13b int8 on 12 GiB", 13679830016, false},
		{"7b fp16 on 12 GiB: 14.1 GB does not fit 12 GB", 14126854144, false},
		{"13b nf4 on 12 GiB", 7982197824, true},
		{"7b int8 on 12 GiB", 7326095360, true},
		{"exactly the capacity", gpu12, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Fits(tc.bytes, gpu12); got != tc.want {
				t.Errorf("Fits(%d) = %v, want %v", tc.bytes, got, tc.want)
			}
		})
	}
}

func TestScaledSaving(t *testing.T) {
	tests := []struct {
		name           string
		bytes, old, nw int64
		want           int64
	}{
		{"Ovis softmax 576 MiB at 2,304 tokens → 576 tokens saves 432 MiB", 603979776, 2304, 576, 452984832},
		{"no change", 1000, 10, 10, 0},
		{"growth is no saving", 1000, 10, 20, 0},
		{"unknown old count", 1000, 0, 5, 0},
		{"logits of 8,192 positions kept to 1", 4202692608, 8192, 1, 4202179584},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ScaledSaving(tc.bytes, tc.old, tc.nw); got != tc.want {
				t.Errorf("ScaledSaving = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestQuadraticSaving(t *testing.T) {
	tests := []struct {
		name     string
		bytes, k int64
		want     int64
	}{
		{"halving the sequence of a 1 GiB score tensor", 1 << 30, 2, 805306368},
		{"k=1 saves nothing", 1 << 30, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := QuadraticSaving(tc.bytes, tc.k); got != tc.want {
				t.Errorf("QuadraticSaving = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestAdamState8bitSaving(t *testing.T) {
	if got, want := AdamState8bitSaving(7_000_000_000), int64(42_000_000_000); got != want {
		t.Errorf("AdamState8bitSaving(7B) = %d, want %d", got, want)
	}
}

func TestReserve(t *testing.T) {
	tests := []struct {
		name           string
		capacity, want int64
	}{
		{"small card: 512 MiB floor", 4 << 30, 512 << 20},
		{"80 GiB card: 5%", 80 << 30, 4 << 30},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Reserve(tc.capacity); got != tc.want {
				t.Errorf("Reserve = %d, want %d", got, tc.want)
			}
		})
	}
}
