package rules

import (
	"sort"
	"strconv"
	"strings"

	"github.com/oomdoc/oomdoc/parser"
)

// deviceImbalance: everything lands on one GPU (cuda:0) in a multi-GPU job.
// It fires on several ranks all failing on device 0, on DataParallel
// gather/scatter frames, on map_location to cuda:0, and weakly on a full
// device 0 whose holder the log does not name.
func deviceImbalance() Rule {
	return Rule{
		ID:        "device-imbalance",
		Title:     "Everything lands on one GPU (usually cuda:0) in a multi-GPU job",
		Recognise: "Several ranks all reporting GPU 0; DataParallel gather/parallel_apply frames; torch.load(map_location='cuda:0') or .cuda() in every worker; one GPU full while the others idle.",
		Check:     checkDeviceImbalance,
	}
}

func checkDeviceImbalance(f *Facts) *Finding {
	ev := f.Ev
	switch ev.Kind {
	case parser.KindHostKill, parser.KindCPU, parser.KindServing, parser.KindMPS:
		return nil
	}
	fd := &Finding{Culprit: "device-imbalance", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested}}
	fd.Title = "Several processes put their memory on the same GPU"
	fd.Explanation = "In a multi-GPU job every process or replica should use its own device. When they all default to cuda:0 (no torch.cuda.set_device / CUDA_VISIBLE_DEVICES per worker, map_location='cuda:0', DataParallel gathering outputs), GPU 0 runs out while the others sit idle."
	if ranks := f.ranksOnDevice(0); len(ranks) >= 2 && deviceIndex(ev) == 0 {
		fd.Confidence = 0.85
		fd.Arithmetic = append(fd.Arithmetic, "ranks "+joinInts(ranks)+" all failed on GPU 0")
	} else if e, ok := f.Find(words("data_parallel.py", "parallel_apply", "gather(", "scatter_gather", "DataParallel")); ok {
		fd.Confidence = 0.7
		fd.Evidence = append(fd.Evidence, e)
		fd.Explanation = "DataParallel runs the replicas on every GPU but gathers outputs (and keeps the master copy) on GPU 0, which therefore needs far more memory than the others."
	} else if e, ok := f.Find(words("map_location='cuda:0'", `map_location="cuda:0"`, "map_location='cuda'", `map_location="cuda"`)); ok {
		fd.Confidence = 0.6
		fd.Evidence = append(fd.Evidence, e)
	} else if deviceIndex(ev) == 0 && f.Holder() == 0 && f.FreeKnown && f.Capacity > 0 && f.Free < max(f.Requested, 1) {
		fd.Confidence = 0.25
		fd.Decide = "nvidia-smi while the job runs: if GPU 0 is full and the others are idle, the workers share one device"
	} else {
		return nil
	}
	fd.Evidence = append(fd.Evidence, f.EventLine())
	return fd
}

func deviceIndex(ev *parser.Event) int {
	if ev.Device == nil || ev.Device.Index == nil {
		return -1
	}
	return *ev.Device.Index
}

// ranksOnDevice lists the distinct ranks whose failures report device d.
func (f *Facts) ranksOnDevice(d int) []int {
	seen := map[int]bool{}
	all := append([]parser.Event{*f.Ev}, f.Others...)
	for i := range all {
		if all[i].Rank != nil && deviceIndex(&all[i]) == d {
			seen[*all[i].Rank] = true
		}
	}
	out := make([]int, 0, len(seen))
	for r := range seen {
		out = append(out, r)
	}
	sort.Ints(out)
	return out
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
