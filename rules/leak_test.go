package rules

import "testing"

// TestGrowthBetweenFailures: allocated memory that grows by a real share
// of the device between two failures is growth; a REPL's own small
// tensor between tries is not.
func TestGrowthBetweenFailures(t *testing.T) {
	oom := func(allocated string) string {
		return "RuntimeError: XPU out of memory. Tried to allocate 1.71 GiB (GPU 0; 15.56 GiB total capacity; " + allocated + " already allocated; " + allocated + " reserved in total by PyTorch)\n"
	}
	for _, tc := range []struct {
		name, second string
		want         bool
	}{
		{"176 MiB more on a 15.56 GiB device", "176.00 MiB", false},
		{"4 GiB more", "4.00 GiB", true},
	} {
		f := factsOf(t, oom("0 bytes")+">>> x = torch.rand(46000, 1000, device='xpu')\n"+oom(tc.second))
		if got := f.growth() > 0; got != tc.want {
			t.Errorf("%s: growth %v, want %v", tc.name, got, tc.want)
		}
	}
}
