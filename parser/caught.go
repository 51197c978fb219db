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

// caughtAndSkipped returns the line that says ev's failure was caught and
// its batch skipped: one of the first caughtWindow lines after the
// failure, naming memory ("out of memory", "OOM") and a skip, or saying
// nothing but the skip ("Skipping batch" under fairseq's "| WARNING: ran
// out of memory with exception: CUDA out of memory. …"). The program
// went on, so the failure is a notice, not the crash; a later failure that
// ends the run is an event of its own.
//
// Example: "| WARNING: ran out of memory on GPU #2, skipping batch" right
// after fairseq's THCudaCheck FAIL … out of memory.
func caughtAndSkipped(ev *Event) (Span, bool) {
	for k, l := range ev.Following {
		if k == caughtWindow {
			break
		}
		low := strings.ToLower(strings.TrimLeft(l.Text, "|-*> \t"))
		memory := strings.Contains(low, "memory") || HasWord(low, []string{"oom"})
		for _, w := range skipWords() {
			if memory && strings.Contains(low, w) || strings.HasPrefix(low, w) {
				return l, true
			}
		}
	}
	return Span{}, false
}
