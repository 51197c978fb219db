package parser

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMergeCases: the illustrative logs of testdata/merge (a reviewer's
// reproducers, in the formats of real logs) give the events a person
// would count: StreamExecutor's smaller retries are one failure and a
// larger request later is another; PyTorch's expandable-segments warning
// is no failure of its own beside an OOM, and its repeats are one
// suspected failure.
func TestMergeCases(t *testing.T) {
	type want struct {
		kind      string
		line      int
		request   int64
		suspected bool
	}
	for _, tc := range []struct {
		file string
		want []want
	}{
		{"stream-executor-retries.log", []want{{KindCUDARuntime, 1, 1433389056, false}}},
		{"stream-executor-later-larger.log", []want{{KindCPU, 1, 67108864, false}, {KindCUDARuntime, 3, 34359738368, false}}},
		{"expandable-warning-then-oom.log", []want{{KindCUDA, 6, 2 << 30, false}}},
		{"expandable-warning-repeated.log", []want{{KindCUDA, 61, 20971520, true}}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", "merge", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			res, err := Parse(f, tc.file)
			if err != nil {
				t.Fatal(err)
			}
			var got []want
			for _, e := range res.Events {
				var req int64
				if e.RequestedBytes != nil {
					req = *e.RequestedBytes
				}
				got = append(got, want{e.Kind, e.Line, req, e.Suspected})
			}
			if len(got) != len(tc.want) {
				t.Fatalf("events %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("event %d %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestTFStartupIdenticalDevices: every device of a report gets its row,
// though identical devices print identical lines.
func TestTFStartupIdenticalDevices(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "merge", "tf-startup-three-devices.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := Parse(f, "x.log")
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, g := range res.Context.GPUs {
		if g.Source != GPUSourceTFStartup {
			continue
		}
		rows++
		if g.TotalBytes == nil || g.UsedBytes == nil || g.Name != "Tesla K80" {
			t.Errorf("device %v: total %v used %v name %q", g.Index, g.TotalBytes, g.UsedBytes, g.Name)
		}
	}
	if rows != 3 {
		t.Errorf("%d start-up rows, want 3", rows)
	}
}
