package parser

import (
	"strings"
	"testing"
)

// TestTFStartupReport: TensorFlow's start-up report of a device becomes
// its GPU row, with what was in use before the program allocated anything.
func TestTFStartupReport(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		name        string
		log         string
		total, used int64 // 0: null
		line        int
	}{
		{"two lines (TensorFlow 1.x)", "I tensorflow/core/common_runtime/gpu/gpu_device.cc:885] Found device 0 with properties: \nname: GeForce GTX 1080\nmajor: 6 minor: 1 memoryClockRate (GHz) 1.7335\npciBusID 0000:01:00.0\nTotal memory: 8.00GiB\nFree memory: 2.00GiB\n", 8 * gib, 6 * gib, 6},
		{"one line (later 1.x)", "2019-01-01 10:00:00.000000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1432] Found device 1 with properties: \nname: GeForce GTX 1080 Ti major: 6 minor: 1 memoryClockRate(GHz): 1.582\npciBusID: 0000:02:00.0\ntotalMemory: 10.00GiB freeMemory: 9.50GiB\n", 10 * gib, gib / 2, 4},
		{"rows far from a report are not its", "Found device 0 with properties:\na\nb\nc\nd\ne\nf\ng\nh\ni\nTotal memory: 8.00GiB\nFree memory: 2.00GiB\n", 0, 0, 0},
		{"rows without a report", "Total memory: 8.00GiB\nFree memory: 2.00GiB\n", 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Parse(strings.NewReader(tc.log), "x.log")
			if err != nil {
				t.Fatal(err)
			}
			var g *GPU
			for i := range res.Context.GPUs {
				if res.Context.GPUs[i].Source == GPUSourceTFStartup && res.Context.GPUs[i].TotalBytes != nil {
					g = &res.Context.GPUs[i]
				}
			}
			if tc.total == 0 {
				if g != nil {
					t.Errorf("a start-up row %+v, want none", *g)
				}
				return
			}
			if g == nil {
				t.Fatalf("no start-up row in %+v", res.Context.GPUs)
			}
			if *g.TotalBytes != tc.total || g.UsedBytes == nil || *g.UsedBytes != tc.used || g.Line != tc.line {
				t.Errorf("row total %d used %v line %d, want %d %d line %d", *g.TotalBytes, g.UsedBytes, g.Line, tc.total, tc.used, tc.line)
			}
		})
	}
}
