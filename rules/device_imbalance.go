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
// Signals of device-imbalance.
const (
	imbalanceRanksOnZero = "device-imbalance/ranks-on-gpu0"
	imbalanceDP          = "device-imbalance/dataparallel-frames"
	imbalanceMapLocation = "device-imbalance/map-location-gpu0"
	imbalanceGPU0Full    = "device-imbalance/gpu0-full-unexplained"
)

// deviceImbalance: everything lands on one GPU (cuda:0) in a multi-GPU job.
// It fires on several ranks all failing on device 0, on DataParallel
// gather/scatter frames, on map_location to cuda:0, and as a prior on a
// full device 0 whose holder the log does not name.
func deviceImbalance() Culprit {
	return Culprit{
		ID:        "device-imbalance",
		Title:     "Everything lands on one GPU (usually cuda:0) in a multi-GPU job",
		Doc:       "In a multi-GPU job every process or replica should use its own device. When they all default to cuda:0 (no torch.cuda.set_device / CUDA_VISIBLE_DEVICES per worker, map_location='cuda:0', DataParallel gathering outputs, device_map putting most layers on the first GPU), GPU 0 runs out while the others sit idle.",
		Recognise: "Several ranks all reporting GPU 0; DataParallel gather/parallel_apply frames; torch.load(map_location='cuda:0') or .cuda() in every worker; one GPU full while the others idle.",
		Excludes:  []string{parser.KindHostKill, parser.KindCPU, parser.KindServing, parser.KindMPS},
		Signals: []Signal{
			{Name: imbalanceRanksOnZero, Strength: EvidenceSignal, Start: 2.5, Doc: "several ranks all fail on GPU 0"},
			{Name: imbalanceDP, Strength: EvidenceSignal, Start: 1.5, Doc: "DataParallel gather/scatter frames"},
			{Name: imbalanceMapLocation, Strength: EvidenceSignal, Start: 1.0, Doc: "torch.load(map_location='cuda:0')"},
			{Name: imbalanceGPU0Full, Strength: PriorSignal, Start: -1.0, Doc: "GPU 0 full and the log does not say who holds it"},
		},
		WouldDecide: "whether the other GPUs are idle while GPU 0 is full",
		Capture:     "nvidia-smi while the job runs (every GPU's memory use)",
		Assess:      checkDeviceImbalance,
	}
}

func checkDeviceImbalance(f *Facts) *Finding {
	ev := f.Ev
	fd := &Finding{Culprit: "device-imbalance", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested}}
	fd.Title = "Several processes put their memory on the same GPU"
	fd.Explanation = "In a multi-GPU job every process or replica should use its own device. When they all default to cuda:0 (no torch.cuda.set_device / CUDA_VISIBLE_DEVICES per worker, map_location='cuda:0', DataParallel gathering outputs), GPU 0 runs out while the others sit idle."
	if ranks := f.ranksOnDevice(0); len(ranks) >= 2 && deviceIndex(ev) == 0 {
		fd.fire(imbalanceRanksOnZero)
		fd.Arithmetic = append(fd.Arithmetic, "ranks "+joinInts(ranks)+" all failed on GPU 0")
	} else if e, ok := f.Find(words("data_parallel.py", "parallel_apply", "scatter_gather", "DataParallel")); ok {
		fd.fire(imbalanceDP)
		fd.Evidence = append(fd.Evidence, e)
		fd.Explanation = "DataParallel runs the replicas on every GPU but gathers outputs (and keeps the master copy) on GPU 0, which therefore needs far more memory than the others."
	} else if e, ok := f.Find(words("map_location='cuda:0'", `map_location="cuda:0"`, "map_location='cuda'", `map_location="cuda"`)); ok {
		fd.fire(imbalanceMapLocation)
		fd.Evidence = append(fd.Evidence, e)
	} else if deviceIndex(ev) == 0 && f.Holder() == 0 && f.FreeKnown && f.Capacity > 0 && f.Free < max(f.Requested, 1) {
		fd.fire(imbalanceGPU0Full)
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
