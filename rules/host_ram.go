package rules

import (
	"fmt"
	"strings"

	"github.com/oomdoc/oomdoc/parser"
)

// hostRAM: CPU RAM ran out — the kernel's OOM killer, a SIGKILL, a
// DataLoader worker killed, or PyTorch's CPU allocator refusing.
func hostRAM() Culprit {
	return Culprit{
		ID:        "host-ram",
		Title:     "Host (CPU) RAM ran out, not GPU memory",
		Doc:       "The machine's RAM (or its container's or batch job's limit) ran out: the kernel's OOM killer ended the process, or an allocation on the CPU was refused. Loading a checkpoint into RAM before moving it to the GPU, DataLoader workers each holding a copy of the dataset, and CPU copies of large tensors are the usual holders. GPU settings do not change it.",
		Recognise: "\"Killed\", \"killed by signal: Killed\", exit code -9/137, the kernel's \"Out of memory: Killed process\", cgroup oom-kill, DefaultCPUAllocator: can't allocate memory; a DataLoader \"Bus error\" means /dev/shm.",
		// A device allocator's failure is never host RAM; a graph runtime's
		// or an unknown runtime's may be (a tensor on the CPU device).
		Excludes: []string{parser.KindCUDA, parser.KindHIP, parser.KindMPS, parser.KindXPU, parser.KindCUDARuntime, parser.KindCUBLAS, parser.KindCUDNN, parser.KindNCCL, parser.KindServing, parser.KindPaddle},
		Signals: []Signal{
			{Name: hostCPUAlloc, Strength: EvidenceSignal, Start: 3.0, Doc: "a CPU allocator refused an allocation"},
			{Name: hostKill, Strength: EvidenceSignal, Start: 3.0, Doc: "the kernel or batch system killed the process for memory"},
			{Name: hostSuspectKill, Strength: EvidenceSignal, Start: 1.5, Doc: "a SIGKILL / 'Killed' the log does not attribute to memory"},
			{Name: hostShm, Strength: EvidenceSignal, Start: 3.0, Doc: "a DataLoader worker died of SIGBUS (shared memory full)"},
			{Name: hostTerminated, Strength: HypothesisSignal, Start: 0.5, Doc: "a DataLoader worker terminated by SIGTERM: what memory monitors (earlyoom, a Kubernetes eviction, a batch system) send first, and what a main process sends its workers on shutdown"},
			{Name: hostPossibleKill, Strength: HypothesisSignal, Start: 0.5, Doc: "a worker died and its runtime names the OOM killer as one possible cause (Ray), with no crash of another kind in the log"},
		},
		GuessNeeds:  hostMemoryPossible,
		WouldDecide: "the kernel log: a SIGKILL is an OOM kill only when the kernel or the batch system says so",
		Capture:     "dmesg | grep -i -E 'killed process|out of memory' (or journalctl -k), and the cgroup's memory.events",
		Assess:      checkHostRAM,
	}
}

// Signals of host-ram.
const (
	hostCPUAlloc     = "host-ram/cpu-allocator"
	hostKill         = "host-ram/oom-kill"
	hostSuspectKill  = "host-ram/suspected-kill"
	hostShm          = "host-ram/shared-memory"
	hostPossibleKill = "host-ram/possible-kill"
	hostTerminated   = "host-ram/worker-terminated"
)

// hostMemoryPossible reports whether the failure could be host RAM's: a
// device allocator's message (a CUDA, ROCm, MPS or XPU device, a
// TensorFlow GPU_0_bfc) says the device ran out, not the machine.
func hostMemoryPossible(f *Facts) bool {
	d := f.Ev.Device
	return d == nil || d.Type == "" || d.Type == "cpu" || d.Type == "host"
}

func checkHostRAM(f *Facts) *Finding {
	ev := f.Ev
	fd := &Finding{Culprit: "host-ram", Event: ev.ID, Quantities: Quantities{RequestedBytes: f.Requested}}
	kind := ev.Kind
	if kind == parser.KindGeneric && ev.Device != nil && ev.Device.Type == "cpu" {
		// a runtime's own words that name host memory: Caffe's "Check
		// failed: *ptr host allocation of size 141386560 failed", a
		// std::bad_alloc abort
		kind = parser.KindCPU
	}
	switch kind {
	case parser.KindCPU:
		fd.fire(hostCPUAlloc)
		fd.Title = "The CPU allocator could not get host memory"
		if f.Requested > 0 {
			fd.Title = fmt.Sprintf("One %s host allocation failed", size(f.Requested))
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("requested %s of host RAM in one piece", size(f.Requested)))
		}
		fd.Explanation = "This is host RAM, not the GPU: a tensor on the CPU (loading a checkpoint, moving a model or a full-graph batch to CPU, building a large array) asked for more than the machine — or its container's limit — can give."
	case parser.KindHostKill:
		if ev.Variant == parser.VariantRayWorkerDied {
			// Ray lists the OOM killer first after any unexpected exit: a
			// possibility (the parser drops it where the log shows another
			// crash).
			fd.fire(hostPossibleKill)
			fd.Title = "A worker died; Ray names the kernel's OOM killer as one possible cause"
			fd.Explanation = "Ray prints the same list of possible causes — the OOM killer, `ray stop --force`, a crash — after any unexpected exit of a worker. The kernel log of that node says which it was."
			fd.Decide = "the node's kernel log (dmesg -T | grep -i -E 'killed process|out of memory') or Ray's raylet log (\"killed due to memory pressure\")"
			fd.Evidence = append(fd.Evidence, f.EventLine())
			return fd
		}
		switch {
		case ev.Signal == "Terminated":
			fd.fire(hostTerminated)
			fd.Title = "A worker was terminated by SIGTERM; the log does not say by whom"
			fd.Decide = "who sent the SIGTERM: the kernel log and earlyoom/systemd-oomd (journalctl -k; journalctl -u earlyoom), the pod's events (kubectl describe pod: Evicted, memory pressure) or the batch system's job record; a main process that exited first sends it too"
		case !ev.Suspected:
			fd.fire(hostKill)
			fd.Title = "The process was killed for using too much host RAM"
		default:
			fd.fire(hostSuspectKill)
			fd.Title = "The process was killed, most likely by the kernel's OOM killer"
			fd.Decide = "the kernel log (dmesg | grep -i oom, or journalctl -k): a SIGKILL is an OOM kill only when the kernel or the batch system says so"
		}
		fd.Explanation = "The operating system (kernel OOM killer, cgroup limit, batch system) killed the process because the machine's RAM ran out. GPU settings do not change this: loading, dataloader workers and CPU copies of tensors do."
		if ev.Signal == "Terminated" {
			fd.Explanation = "A SIGTERM is what memory monitors (earlyoom, systemd-oomd, a Kubernetes eviction, a batch system over its memory limit) send first, and also what a scheduler's time limit or preemption and a main process shutting its workers down send. If it was memory, host RAM ran out: dataloader workers, loading and CPU copies of tensors use it, and GPU settings do not change it."
		}
		if used := ev.ProcessInUseBytes; used != nil && !ev.Suspected {
			if ev.TotalBytes != nil {
				fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("it used %s of its %s limit", size(*used), size(*ev.TotalBytes)))
			} else {
				fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("it held %s of RAM when it was killed (resident: anonymous, file and shared)", size(*used)))
			}
		}
		if strings.Contains(ev.Signal, "Bus error") {
			fd.Title = "DataLoader workers ran out of shared memory (/dev/shm)"
			fd.Explanation = "A DataLoader worker died of SIGBUS: workers hand batches to the main process through shared memory (/dev/shm), and it is full — common in Docker's default 64 MB /dev/shm or with many workers and large batches."
			fd.Signals = []string{hostShm}
		}
	default:
		return nil
	}
	fd.Evidence = append(fd.Evidence, f.EventLine())
	return fd
}
