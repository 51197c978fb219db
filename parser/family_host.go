package parser

// Host memory kills: the kernel OOM killer, SIGKILL notices, schedulers.

import (
	"strings"
)

var (
	reKernelKill    = lazyRE(`Kill(?:ed)? process (\d+) \(([^)]*)\)`)
	reOOMKillTask   = lazyRE(`oom-kill:.*?task=([^,]+),pid=(\d+)`)
	reShellKilled   = lazyRE(`line \d+:\s+(\d+) Killed\s+(.*)$`)
	reElasticFailed = lazyRE(`failed \(exitcode: -9\) local_rank: (\d+) \(pid: (\d+)\)`)
	reElasticExit   = lazyRE(`exitcode\s*: -9 \(pid: (\d+)\)`)
	reSigkillPID    = lazyRE(`Signal 9 \(SIGKILL\) received by PID (\d+)`)
	reSlurmLimit    = lazyRE(`exceeded memory limit \((\d+) > (\d+)\)`)
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
	case strings.Contains(msg, "oom") || strings.Contains(msg, "Out Of Memory") || strings.Contains(msg, "memory limit"):
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
	default:
		ev.Suspected = true
	}
}
