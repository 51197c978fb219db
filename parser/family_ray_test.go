package parser

import (
	"strings"
	"testing"
)

// TestRayWorkerDeath: Ray's list of possible causes after a worker's death
// is a possible host kill only when nothing else in the log explains the
// death — not after a CUDA OOM inside the worker, nor after a crash.
func TestRayWorkerDeath(t *testing.T) {
	death := "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.\n"
	for _, tc := range []struct {
		name, before string
		kinds        []string
	}{
		{"alone", "", []string{KindHostKill}},
		{"after a CUDA OOM in the worker", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.68 GiB of which 1.20 GiB is free. Of the allocated memory 21.00 GiB is allocated by PyTorch, and 300.00 MiB is reserved by PyTorch but unallocated.\n", []string{KindCUDA}},
		{"after a segmentation fault", "(RayTrainWorker pid=48211) Fatal Python error: Segmentation fault\n", nil},
	} {
		res, err := Parse(strings.NewReader(tc.before+death), "x")
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, ev := range res.Events {
			kinds = append(kinds, ev.Kind)
			if ev.Kind == KindHostKill && (!ev.Suspected || ev.Variant != "ray-worker-died") {
				t.Errorf("%s: host kill suspected %v variant %q, want a suspected ray-worker-died", tc.name, ev.Suspected, ev.Variant)
			}
		}
		if strings.Join(kinds, ",") != strings.Join(tc.kinds, ",") {
			t.Errorf("%s: events %v, want %v", tc.name, kinds, tc.kinds)
		}
	}
}
