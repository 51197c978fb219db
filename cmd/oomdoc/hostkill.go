package main

import (
	"fmt"

	"github.com/oomdoc/oomdoc/parser"
)

// hostKillCapture is what to capture when a command was killed by SIGKILL
// without saying why: the kernel's OOM killer and cgroup limits log the
// kill outside the program's output.
func hostKillCapture() []string {
	return []string{
		// each a description, then on its own line the command, which the
		// report prints as code, never wrapped
		"the kernel log around the kill:\nsudo dmesg -T | grep -iE 'killed process|out of memory|oom'",
		"the same from the journal:\njournalctl -k --since '1 hour ago' | grep -i oom",
		"the cgroup's OOM counters (containers, systemd units, SLURM jobs; oom_kill > 0 means the limit was hit):\ncat /sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)/memory.events",
	}
}

// withSuspectedHostKill returns res with one suspected host OOM kill: a
// command killed by SIGKILL (status 137) whose output names no failure is
// most often the kernel's OOM killer or a cgroup limit, which print
// nothing to the program's output. The event is marked Suspected, so the
// rules weigh it as a likely, not certain, host-RAM kill, and its message
// says what was seen. It is built from the existing event kind rather than
// a new parser path: the parser reads output, and the exit status is not
// part of it.
func withSuspectedHostKill(res *parser.Result, code int) *parser.Result {
	out := *res
	out.Events = []parser.Event{{
		ID:        "e1",
		Kind:      parser.KindHostKill,
		Input:     res.Input,
		Line:      res.Lines,
		Phase:     parser.PhaseUnknown,
		Signal:    "SIGKILL",
		Suspected: true,
		Message:   fmt.Sprintf("the command was killed by SIGKILL (exit status %d) and its output names no failure: the host's OOM killer or a memory limit is the usual sender", code),
	}}
	return &out
}
