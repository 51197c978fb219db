package parser

// Host memory kills: the kernel OOM killer, SIGKILL notices, schedulers.

import (
	"strconv"
	"strings"
)

var (
	reKernelKill  = lazyRE(`Kill(?:ed)? process (\d+) \(([^)]*)\)`)
	reOOMKillTask = lazyRE(`oom-kill:.*?task=([^,]+),pid=(\d+)`)
	// the killed process's resident memory: "anon-rss:109819332kB,
	// file-rss:3324kB, shmem-rss:0kB" (the kernel's kB are KiB)
	reKernelRSS     = lazyRE(`anon-rss:(\d+)kB, file-rss:(\d+)kB, shmem-rss:(\d+)kB`)
	reShellKilled   = lazyRE(`line \d+:\s+(\d+) Killed\s+(.*)$`)
	reElasticFailed = lazyRE(`failed \(exitcode: -9\) local_rank: (\d+) \(pid: (\d+)\)`)
	reElasticExit   = lazyRE(`exitcode\s*: -9 \(pid: (\d+)\)`)
	reSigkillPID    = lazyRE(`Signal 9 \(SIGKILL\) received by PID (\d+)`)
	reSlurmLimit    = lazyRE(`exceeded memory limit \((\d+) > (\d+)\)`)
	// "… where the task (…, pid=11362, memory used=1.25GB) was running was
	// 27.71GB / 28.80GB (0.962273), which exceeds the memory usage threshold"
	// (the node's memory in use / its total)
	reRayNode = lazyRE(`was running was (\d+(?:\.\d+)?[KMGT]?B) / (\d+(?:\.\d+)?[KMGT]?B)`)
	// YARN's container kill and the usage it prints (used of the limit)
	reYARNKill  = lazyRE(`Container killed by YARN for exceeding (?:(physical|virtual) )?memory limits|is running beyond (physical|virtual) memory limits`)
	reYARNUsage = lazyRE(`(\d+(?:\.\d+)? [KMGT]?B) of (\d+(?:\.\d+)? [KMGT]?B) (physical|virtual) memory used`)
	reRayTask   = lazyRE(`pid=(\d+), memory used=(\d+(?:\.\d+)?[KMGT]?B)\)`)
)

func fillKernelKill(ev *Event, msg string) {
	ev.Framework, ev.Device, ev.Signal = "linux", &Device{Type: "cpu"}, "Killed"
	if m := reKernelKill.FindStringSubmatch(msg); m != nil {
		ev.PID = int64p(m[1])
	} else if m := reOOMKillTask.FindStringSubmatch(msg); m != nil {
		ev.PID = int64p(m[2])
	}
	if strings.Contains(msg, "invoked oom-killer") {
		ev.Suspected = false
	}
	if m := reKernelRSS.FindStringSubmatch(msg); m != nil {
		// its resident set when killed: anonymous, file-backed and shared
		var kib int64
		for _, f := range m[1:] {
			n, err := strconv.ParseInt(f, 10, 64)
			if err != nil || n > 1<<40 {
				return
			}
			kib += n
		}
		rss := kib << 10
		ev.ProcessInUseBytes = &rss
	}
}

func fillSigkill(ev *Event, msg string) {
	ev.Device, ev.Signal = &Device{Type: "cpu"}, "SIGKILL"
	switch {
	case reJobKilled.MatchString(msg):
		ev.PID = int64p(reJobKilled.FindStringSubmatch(msg)[1])
		ev.Suspected = true
	case reShellKilled.MatchString(msg):
		ev.PID = int64p(reShellKilled.FindStringSubmatch(msg)[1])
		ev.Suspected = true
	case reElasticFailed.MatchString(msg):
		m := reElasticFailed.FindStringSubmatch(msg)
		ev.PID = int64p(m[2])
		ev.Suspected, ev.Framework = true, "torchrun"
	case reElasticExit.MatchString(msg):
		ev.PID = int64p(reElasticExit.FindStringSubmatch(msg)[1])
		ev.Suspected, ev.Framework = true, "torchrun"
	case reSigkillPID.MatchString(msg):
		ev.PID = int64p(reSigkillPID.FindStringSubmatch(msg)[1])
		ev.Suspected, ev.Framework = true, "torchrun"
	case strings.Contains(msg, "after using all available RAM"):
		// Colab's banner: the runtime's RAM, which a larger runtime raises
		ev.Framework = "colab"
	case strings.Contains(msg, "by the OOM killer") || strings.Contains(msg, "result 'oom-kill'"):
		// systemd's unit: its MemoryMax=, or the machine, was the limit
		ev.Framework = "systemd"
	case strings.Contains(msg, "init was OOM-killed"):
		// runc's: the container's cgroup limit, a pod's when the kubelet
		// reports it, else a plain container's (docker run --memory)
		ev.Framework = "docker"
		if strings.Contains(msg, "kubelet") {
			ev.Framework = "kubernetes"
		}
	case strings.Contains(msg, "oom") || strings.Contains(msg, "OOMKilled") || strings.Contains(msg, "Out Of Memory") || strings.Contains(msg, "memory limit"):
		// the scheduler or the container runtime says the kill was for memory
		ev.Framework = "slurm"
		if m := reSlurmLimit.FindStringSubmatch(msg); m != nil {
			ev.ProcessInUseBytes = sizeOf(m[1])
			ev.TotalBytes = sizeOf(m[2])
		}
		if strings.Contains(msg, "OOMKilled") {
			ev.Framework = "kubernetes"
		}
	case strings.Contains(msg, "appears to have died"):
		ev.Framework, ev.Suspected = "jupyter", true
	case strings.Contains(msg, "exitCode") || strings.Contains(msg, "Exit Code:"):
		ev.Framework, ev.Suspected = "kubernetes", true // a container's status: 137 is SIGKILL, most often its memory limit
	default:
		ev.Suspected = true
	}
}

// fillYARNKill reads YARN's container kill: the memory the container used
// and its limit, physical or virtual (YARN's vmem check counts reserved
// address space, which a JVM or a CUDA context inflates).
func fillYARNKill(ev *Event, msg string) {
	ev.Framework, ev.Device, ev.Signal, ev.Variant = "yarn", &Device{Type: "cpu"}, "SIGKILL", "yarn-container-limit"
	kind := "" // the limit the kill names, when it names one
	if m := reYARNKill.FindStringSubmatch(msg); m != nil {
		kind = m[1] + m[2]
	}
	// Hadoop prints both usages, physical first; the one the kill is for
	// is the one that counts ("… beyond virtual memory limits. Current
	// usage: 351.6 MB of 1 GB physical memory used; 2.2 GB of 2.1 GB
	// virtual memory used").
	var use []string
	for _, m := range reYARNUsage.FindAllStringSubmatch(msg, 2) {
		if use == nil || m[3] == kind {
			use = m
		}
	}
	if use != nil {
		ev.ProcessInUseBytes, ev.TotalBytes = sizeOf(use[1]), sizeOf(use[2])
		if kind == "" {
			kind = use[3]
		}
	}
	if kind == "virtual" {
		ev.Variant = "yarn-virtual-memory-limit"
	}
}

// fillRayKill reads Ray's memory-monitor kill: the node's total memory,
// the killed task's PID and its memory. A dead actor's list of
// "potential root causes" that puts the OOM killer first is only a
// possibility (variant ray-worker-died, suspected).
func fillRayKill(ev *Event, msg string) {
	ev.Framework, ev.Device, ev.Signal = "ray", &Device{Type: "cpu"}, "SIGKILL"
	if strings.Contains(msg, "killed by SIGKILL by OOM killer") {
		ev.Suspected, ev.Variant = true, VariantRayWorkerDied
	}
	if m := reRayNode.FindStringSubmatch(msg); m != nil {
		ev.TotalBytes = sizeOf(m[2]) // the node's; m[1], all its processes, has no field
	}
	if m := reRayTask.FindStringSubmatch(msg); m != nil {
		ev.PID, ev.ProcessInUseBytes = int64p(m[1]), sizeOf(m[2])
	}
}

// reSchedulerKill finds a scheduler's or cluster's kill for memory (the
// scheduler-memory-kill family); rePBSKill and reRaySystemLow read their
// figures.
var (
	reSchedulerKill = lazyRE(`PBS: job killed: (?:p?v?mem)\b|TERM_MEMLIMIT: job killed after reaching LSF memory usage limit|System memory low at node with IP \S+ Used memory|Worker exceeded \d+% memory budget\b|The node was low on resource: memory`)
	rePBSKill       = lazyRE(`PBS: job killed: (p?v?mem)(?: job total)? (\d+) ?([kmg]?b)? exceeded limit (\d+) ?([kmg]?b)?`)
	reRaySystemLow  = lazyRE(`Used memory \((\d+(?:\.\d+)?\s?[KMGT]i?B)\) / total capacity \((\d+(?:\.\d+)?\s?[KMGT]i?B)\)`)
)

// fillSchedulerKill reads a scheduler's kill: who killed, and what the job
// used of its limit where the words print both (PBS counts kb as 1024
// bytes; a bare count is bytes).
func fillSchedulerKill(ev *Event, msg string) {
	ev.Device, ev.Signal = &Device{Type: "cpu"}, "SIGKILL"
	switch {
	case strings.Contains(msg, "PBS:"):
		ev.Framework, ev.Variant = "pbs", "pbs-memory-limit"
		if m := rePBSKill.FindStringSubmatch(msg); m != nil {
			ev.ProcessInUseBytes, ev.TotalBytes = pbsBytes(m[2], m[3]), pbsBytes(m[4], m[5])
			if m[1] == "vmem" {
				ev.Variant = "pbs-virtual-memory-limit"
			}
		}
	case strings.Contains(msg, "TERM_MEMLIMIT"):
		ev.Framework, ev.Variant = "lsf", "lsf-memory-limit"
	case strings.Contains(msg, "System memory low"):
		ev.Framework, ev.Variant = "ray", "ray-memory-monitor"
		if m := reRaySystemLow.FindStringSubmatch(msg); m != nil {
			ev.ProcessInUseBytes, ev.TotalBytes = sizeOf(m[1]), sizeOf(m[2])
		}
	case strings.Contains(msg, "memory budget"):
		ev.Framework, ev.Variant = "dask", "dask-memory-budget"
	default:
		ev.Framework, ev.Variant = "kubernetes", "kubelet-eviction"
	}
}

// pbsBytes reads a PBS figure: n in kb (PBS's kilobytes are 1,024 bytes),
// mb or gb, or bare bytes.
func pbsBytes(n, unit string) *int64 {
	v, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		return nil
	}
	mult := map[string]int64{"": 1, "b": 1, "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30}[unit]
	if mult == 0 || v > (1<<62)/mult {
		return nil
	}
	v *= mult
	return &v
}
