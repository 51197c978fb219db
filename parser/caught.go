package parser

import "strings"

// caughtWindow is how many lines after a failure a program's own words
// that it caught the failure and went on may come.
const caughtWindow = 2

// skipWords are the words of a training loop that caught an out-of-memory
// error and dropped the batch instead of crashing: fairseq's "| WARNING:
// ran out of memory on GPU #2, skipping batch", a loop's "OOM in step 12,
// skipping this batch".
func skipWords() []string {
	return []string{"skipping batch", "skipping this batch", "skipping the batch", "skip this batch", "skipping step", "skipping this step", "skipping iteration"}
}

// retryWords are the words of a runtime that caught a failed allocation
// and tries again another way: llama.cpp's "sched_reserve: compute buffer
// allocation failed, retrying without pipeline parallelism".
func retryWords() []string {
	return []string{"retrying without", "retrying with"}
}

// caughtAndWentOn returns the line that says ev's failure was caught and
// the program went on, and the notice that line makes: one of the first
// caughtWindow lines after the failure that names memory ("out of
// memory", "OOM") and a skip, or says nothing but the skip ("Skipping
// batch" under fairseq's "| WARNING: ran out of memory with exception:
// CUDA out of memory. …"), is nonfatal-oom-skipped; one that names an
// allocation and a retry is nonfatal-oom-retry. Such a failure is a
// notice, not the crash; a later failure that ends the run is an event of
// its own.
//
// Example: "| WARNING: ran out of memory on GPU #2, skipping batch" right
// after fairseq's THCudaCheck FAIL … out of memory.
func caughtAndWentOn(ev *Event) (Span, string, bool) {
	for k, l := range ev.Following {
		if k == caughtWindow {
			break
		}
		low := strings.ToLower(strings.TrimLeft(l.Text, "|-*> \t"))
		memory := strings.Contains(low, "memory") || HasWord(low, []string{"oom"})
		for _, w := range skipWords() {
			if memory && strings.Contains(low, w) || strings.HasPrefix(low, w) {
				return l, "nonfatal-oom-skipped", true
			}
		}
		if memory || strings.Contains(low, "alloc") {
			for _, w := range retryWords() {
				if strings.Contains(low, w) {
					return l, "nonfatal-oom-retry", true
				}
			}
		}
	}
	return Span{}, "", false
}
