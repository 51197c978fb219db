package parser

import (
	"slices"
	"strings"
	"testing"
)

// TestYARNContainerKill: YARN's kill of a container over its limit, in the
// wordings of Spark before and after 2.4 and of Hadoop's NodeManager, is a
// host kill with the usage and limit of the memory the kill names.
func TestYARNContainerKill(t *testing.T) {
	const gb = 1 << 30
	for _, tc := range []struct {
		line      string
		variant   string
		used, lim int64
	}{
		{"ExecutorLostFailure (executor 13 exited caused by one of the running tasks) Reason: Container killed by YARN for exceeding memory limits. 20.0 GB of 20 GB physical memory used. Consider boosting spark.yarn.executor.memoryOverhead.", "yarn-container-limit", 20 * gb, 20 * gb},
		{"Reason: Container killed by YARN for exceeding physical memory limits. 11.4 GB of 11 GB physical memory used. Consider boosting spark.executor.memoryOverhead.", "yarn-container-limit", 12240656794, 11 * gb},
		{"WARN ContainersMonitorImpl: Container [pid=4733,containerID=container_1484470874016_0001_02_000001] is running beyond virtual memory limits. Current usage: 351.6 MB of 1 GB physical memory used; 2.2 GB of 2.1 GB virtual memory used. Killing container.", "yarn-virtual-memory-limit", 2362232013, 2254857830},
	} {
		res, err := Parse(strings.NewReader(tc.line+"\n"), "x")
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Events) != 1 {
			t.Errorf("%.60q: %d events, want 1", tc.line, len(res.Events))
			continue
		}
		ev := res.Events[0]
		if ev.Kind != KindHostKill || ev.Variant != tc.variant || ev.ProcessInUseBytes == nil || *ev.ProcessInUseBytes != tc.used || ev.TotalBytes == nil || *ev.TotalBytes != tc.lim {
			t.Errorf("%.60q: %s %s used %v of %v, want %s %s %d of %d", tc.line, ev.Kind, ev.Variant, deref(ev.ProcessInUseBytes), deref(ev.TotalBytes), KindHostKill, tc.variant, tc.used, tc.lim)
		}
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestKernelKillResident: the kernel's "Killed process" line gives the
// process's resident memory (anonymous, file-backed and shared, in KiB).
func TestKernelKillResident(t *testing.T) {
	log := "[Thu Mar 14 01:57:55 2019] Out of memory: Kill process 89746 (python) score 1031 or sacrifice child\n" +
		"[Thu Mar 14 01:57:55 2019] Killed process 89746 (python) total-vm:118026216kB, anon-rss:109819332kB, file-rss:3324kB, shmem-rss:0kB\n"
	res, err := Parse(strings.NewReader(log), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 {
		t.Fatalf("%d events, want 1", len(res.Events))
	}
	if got, want := deref(res.Events[0].ProcessInUseBytes), int64(109819332+3324)<<10; got != want {
		t.Errorf("resident %v, want %d", got, want)
	}
}

// TestSignalNineExitCodes: a process that exits on SIGKILL, as a launcher,
// Python's subprocess or Go's os/exec reports it (a negative code is the signal), is a
// host kill; other negative codes and other signals are not.
func TestSignalNineExitCodes(t *testing.T) {
	for _, tc := range []struct {
		line string
		kill bool
	}{
		{"subprocess.CalledProcessError: Command '['python', 'train.py']' returned non-zero exit status -9.", true},
		{"subprocess.CalledProcessError: Command '['python', 'train.py']' died with <Signals.SIGKILL: 9>.", true},
		{"ERROR: error code -11", false},
		{"subprocess.CalledProcessError: Command '['python', 'train.py']' returned non-zero exit status 1.", false},
		{"exit code -90 from the solver", false},
		{"Process finished with exit code -9", true},                                         // an IDE's run console
		{"failed to solve: executor failed running [/bin/sh -c make]: exit code: 137", true}, // BuildKit
		{"[pod-0] terminated with exit code (137). Reason [Error]. Message:", true},
		{"exit code: 1370", false},
		{"exit code -9.5 in the fit", false},
		{"Solving environment: ...working... Killed", true}, // the shell's notice after a progress line
		{"the job was ... Killed by the scheduler", false},
		{"Error: llama runner process has terminated: signal: killed", true}, // Go's os/exec (Ollama)
		{"exec: process exited: signal: killed", true},
		{`time=2025-05-16T17:45:16.661+02:00 level=ERROR source=sched.go:478 msg="error loading llama server" error="llama runner process has terminated: signal: killed"`, true}, // Ollama's logfmt quotes the error
		{`error="llama runner process has terminated: signal: killed by a user"`, false},
		{"the worker was signal: killed by the user", false},
		{"Error: llama runner process has terminated: signal: segmentation fault", false},
	} {
		res, err := Parse(strings.NewReader(tc.line+"\n"), "x")
		if err != nil {
			t.Fatal(err)
		}
		kill := len(res.Events) == 1 && res.Events[0].Kind == KindHostKill
		if kill != tc.kill || len(res.Events) > 1 {
			t.Errorf("%q: %d events (host kill %v), want host kill %v", tc.line, len(res.Events), kill, tc.kill)
		}
	}
}

// TestContainerExit137: a container's exit on SIGKILL as Kubernetes
// reports it (its status, kubectl describe) is a host kill, and an
// OOMKilled reason is no suspected one.
func TestContainerExit137(t *testing.T) {
	for _, tc := range []struct {
		line      string
		kill      bool
		suspected bool
	}{
		{"      Exit Code:    137", true, true},
		{"        exitCode: 137", true, true},
		{"bert-finetune-7d9f8-x2kqp   0/1     OOMKilled   3 (41s ago)   12m", true, false},
		{"      Exit Code:    1", false, false},
	} {
		res, err := Parse(strings.NewReader(tc.line+"\n"), "x")
		if err != nil {
			t.Fatal(err)
		}
		kill := len(res.Events) == 1 && res.Events[0].Kind == KindHostKill
		if kill != tc.kill || kill && res.Events[0].Suspected != tc.suspected {
			t.Errorf("%q: %d events, host kill %v, want %v (suspected %v)", tc.line, len(res.Events), kill, tc.kill, tc.suspected)
		}
	}
}

// TestSchedulerMemoryKills: a batch scheduler's or cluster's kill for
// memory, in its own words, is a host kill with what the job used of its
// limit where printed; its other kills are not.
func TestSchedulerMemoryKills(t *testing.T) {
	for _, tc := range []struct {
		line        string
		kill        bool
		used, limit int64 // 0: null
	}{
		{"=>> PBS: job killed: mem 38427376kb exceeded limit 33554432kb", true, 38427376 << 10, 33554432 << 10},
		{"=>> PBS: job killed: vmem 3372163072 exceeded limit 2147483648", true, 3372163072, 2147483648},
		{"dask-worker.o1838772:=>> PBS: job killed: mem job total 115343360 kb exceeded limit 115343360 kb", true, 115343360 << 10, 115343360 << 10},
		{"=>> PBS: job killed: walltime 3630 exceeded limit 3600", false, 0, 0},
		{"TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.", true, 0, 0},
		{"TERM_RUNLIMIT: job killed after reaching LSF run time limit.", false, 0, 0},
		{"(raylet, ip=172.31.66.10) [2022-09-22 16:02:34,214 E 138 138] (raylet) node_manager.cc:2966: System memory low at node with IP 172.31.66.10. Used memory (54.90GB) / total capacity (57.60GB) (0.95307) exceeds threshold 0.95, killing latest task with name  and", true, 58948426138, 61847529062},
		{"distributed.nanny - WARNING - Worker exceeded 95% memory budget. Restarting", true, 0, 0},
		{"Message:        The node was low on resource: memory. Container app was using 1275700Ki, which exceeds its request of 0.", true, 0, 0},
		{"Message:        The node was low on resource: ephemeral-storage.", false, 0, 0},
	} {
		res, err := Parse(strings.NewReader(tc.line+"\n"), "x")
		if err != nil {
			t.Fatal(err)
		}
		kill := len(res.Events) == 1 && res.Events[0].Kind == KindHostKill
		if kill != tc.kill {
			t.Errorf("%q: %d events (host kill %v), want host kill %v", tc.line, len(res.Events), kill, tc.kill)
			continue
		}
		if !kill {
			continue
		}
		val := func(p *int64) int64 {
			if p == nil {
				return 0
			}
			return *p
		}
		if ev := res.Events[0]; val(ev.ProcessInUseBytes) != tc.used || val(ev.TotalBytes) != tc.limit {
			t.Errorf("%q: used %d of %d, want %d of %d", tc.line, val(ev.ProcessInUseBytes), val(ev.TotalBytes), tc.used, tc.limit)
		}
	}
}

// TestTerminatedWorker: a DataLoader worker's SIGTERM is a suspected host
// kill only when nothing else in the log explains it: another failure
// ending the run, or a launcher or scheduler that says it sent the signal.
func TestTerminatedWorker(t *testing.T) {
	const worker = "RuntimeError: DataLoader worker (pid 8102) is killed by signal: Terminated.\n"
	for _, tc := range []struct {
		name, log string
		want      []string
	}{
		{"alone", worker, []string{KindHostKill}},
		{"after a rank's OOM", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 23.55 GiB of which 3.00 MiB is free.\n" + worker, []string{KindCUDA}},
		{"torchrun sent it", "W1202 12:00:01.000000 api.py:897] Sending process 4242 closing signal SIGTERM\n" + worker, nil},
		{"a Slurm time limit", "slurmstepd: error: *** JOB 1234 ON node01 CANCELLED AT 2024-05-01T10:00:00 DUE TO TIME LIMIT ***\n" + worker, nil},
	} {
		res, err := Parse(strings.NewReader(tc.log), "t.log")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ev := range res.Events {
			got = append(got, ev.Kind)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: events %v, want %v", tc.name, got, tc.want)
		}
	}
}
