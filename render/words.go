package render

import (
	"fmt"
	"strings"

	"github.com/oomdoc/oomdoc/advice"
	"github.com/oomdoc/oomdoc/parser"
)

// verdictWords is the one-line verdict: what ran out where and when, the
// request against what was free, and the shortfall.
func verdictWords(ev *parser.Event, short *int64) string {
	what := kindWords(ev)
	if ev.Kind == parser.KindHostKill && ev.Suspected {
		// A SIGKILL or a bare "Killed" is an OOM kill only when the kernel
		// or the batch system says so; the verdict must not say more.
		what = "Process killed (suspected host OOM kill)"
	}
	if ev.Device != nil {
		what += " on " + deviceName(ev.Device)
	}
	if ev.Phase != "" && ev.Phase != parser.PhaseUnknown {
		what += " during " + ev.Phase
	}
	if ev.Line > 0 {
		what += fmt.Sprintf(" (line %d)", ev.Line)
	}
	if ev.RequestOverflow && ev.RequestedBytes == nil {
		what += ": a request larger than any device (over 1 EiB)"
	}
	if ev.RequestOverflow && ev.RequestedBytes != nil {
		return what + ": " + parser.FormatSize(*ev.RequestedBytes) + " requested, more than any device holds"
	}
	if ev.RequestedBytes != nil {
		what += ": " + parser.FormatSize(*ev.RequestedBytes) + " requested"
		if ev.TotalBytes != nil && *ev.RequestedBytes > *ev.TotalBytes {
			// No freeing helps a request above the whole device: the
			// tensor, or the capacity the runtime sees, is the question.
			return what + ", more than the device's " + parser.FormatSize(*ev.TotalBytes) + capacityWord(ev)
		}
		if ev.FreeBytes != nil {
			what += ", " + parser.FormatSize(*ev.FreeBytes) + " free"
		}
		if short != nil {
			what += ", short by " + parser.FormatSize(*short)
		}
	} else if ev.RequiredBytes != nil && ev.TotalBytes != nil && short != nil {
		// a compile-time verdict on the whole program: "Used 17.82G of
		// 15.48G hbm"
		what += fmt.Sprintf(": the program needs %s of %s, short by %s", parser.FormatSize(*ev.RequiredBytes), parser.FormatSize(*ev.TotalBytes), parser.FormatSize(*short))
	}
	return what
}

// savingWords is " — saves ≈X, then it fits" or " — saves ≈X, still short
// by Y" for a fix, "" when the saving is unknown.
func savingWords(fx advice.Fix) string {
	if fx.SavesBytes == nil {
		return ""
	}
	s := " — saves ≈" + parser.FormatSize(*fx.SavesBytes)
	switch {
	case fx.ShortAfter == nil:
	case *fx.ShortAfter == 0:
		s += ", then it fits"
	default:
		s += ", still short by " + parser.FormatSize(*fx.ShortAfter)
	}
	return s
}

// figureWords lists the figures a failure message establishes.
func figureWords(ev *parser.Event) string {
	b, ok := barOf(ev)
	if !ok {
		return ""
	}
	var parts []string
	if b.knownAllocated {
		parts = append(parts, "allocated "+parser.FormatSize(b.allocated))
	}
	if b.knownUnalloc {
		parts = append(parts, "reserved, unused "+parser.FormatSize(b.unallocated))
	}
	if b.knownOutside {
		parts = append(parts, "outside PyTorch "+parser.FormatSize(b.outside))
	}
	if b.knownFree {
		parts = append(parts, fmt.Sprintf("free %s of %s", parser.FormatSize(b.free), parser.FormatSize(b.capacity)))
	}
	return strings.Join(parts, " · ")
}

// whereWords locates a line so that it can be opened: "crash.log:25";
// standard input and a notebook's extracted outputs have no such path.
func whereWords(input string, line int) string {
	switch {
	case input == "-":
		return fmt.Sprintf("line %d of standard input", line)
	case strings.HasSuffix(input, ".ipynb"):
		return fmt.Sprintf("%s, line %d of its cell outputs", input, line)
	}
	return fmt.Sprintf("%s:%d", input, line)
}

// overflowWords is what a report says in place of a cause when the request
// is larger than any device: the size is wrong, not the memory short.
const overflowWords = "Not a memory shortage: no device holds a request this large (a pebibyte or more). A size was computed wrongly — a bad tensor shape, a negative dimension read as unsigned, an integer overflow — and no memory setting helps; find the operation whose input shapes multiply to it."

// noCause is the sentence a report gives when no culprit is named: why
// not, in a short form for the first screen and a long one for the
// Cause section. The first event is the one the first screen's verdict
// names.
func noCause(rep advice.Report) (short, long string) {
	if len(rep.Events) > 0 && rep.Events[0].RequestOverflow {
		return "Not a memory shortage: a size was computed wrongly, into a request no device holds (the Cause below says how).", overflowWords
	}
	return "Cause unknown: the log does not show what holds the memory.",
		"Unknown. None of oomdoc's culprits matches the evidence in this log, and oomdoc does not guess."
}

// oversubscribedWords is the note a report gives when PyTorch holds more
// than the device's capacity, "" otherwise.
func oversubscribedWords(ev *parser.Event) string {
	b, ok := barOf(ev)
	if !ok || !b.oversubscribed() {
		return ""
	}
	return fmt.Sprintf("PyTorch holds %s on a device of %s, more than it has: on Windows the driver pages the excess into shared system memory (the CUDA system-memory fallback, slow) until that runs out too; elsewhere the capacity printed is not the whole device's.", parser.FormatSize(b.allocated+b.unallocated), parser.FormatSize(b.capacity))
}

// capacityWord names what an event's total is: the device's total, or for
// MPS the allocator's cap ("max allowed", a high-watermark share of the
// unified memory).
func capacityWord(ev *parser.Event) string {
	if ev.Kind == parser.KindMPS && ev.OtherAllocationsBytes != nil {
		return " max allowed"
	}
	return " total"
}
