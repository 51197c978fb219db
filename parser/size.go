package parser

import (
	"math/bits"
	"strconv"
	"strings"
)

// maxBytes is the largest size oomdoc accepts as a real figure: 2^60 bytes
// (one exbibyte), the bound PyTorch itself refuses with "Tried to allocate
// more than 1EB memory". Anything larger is a sentinel or garbage.
const maxBytes = 1 << 60

// implausibleBytes is the smallest request that no run could have meant:
// one pebibyte (2^50 bytes), thousands of times what the largest
// accelerator or host holds. A request this large is a size computed
// wrongly (an overflowed product, uninitialised memory read as a length:
// "Tried to allocate 538976288.13 GiB" is 0x20202020 GiB, four ASCII
// spaces), however exactly it parses.
const implausibleBytes = 1 << 50

// bogusProcessBytes is what NVML_VALUE_NOT_AVAILABLE (0xFFFFFFFFFFFFFFFF)
// renders as through PyTorch's format_size: "17179869184.00 GiB". It means
// "unknown", never a size.
const bogusProcessBytes = "17179869184.00"

// unitBytes maps a printed unit to its multiplier. PyTorch prints binary
// units with an i (KiB, MiB, GiB); old MPS messages, DeepSpeed, TPU runtimes,
// the kernel, nvidia-smi and list_gpu_processes print KB/MB/GB/kB/K/M/G and
// mean the same binary multiples (research/formats.md §7.2), so both
// spellings are read as powers of 1024.
func unitBytes(unit string) (uint64, bool) {
	switch strings.TrimSpace(unit) {
	case "", "B", "b", "byte", "bytes", "Bytes":
		return 1, true
	case "KiB", "KB", "kB", "K", "k", "kiB", "kb":
		return 1 << 10, true
	case "MiB", "MB", "M", "mb":
		return 1 << 20, true
	case "GiB", "GB", "G", "gb":
		return 1 << 30, true
	case "TiB", "TB", "T":
		return 1 << 40, true
	case "PiB", "PB", "P":
		return 1 << 50, true
	case "EiB", "EB":
		return 1 << 60, true // refused as too large, but read as a size
	}
	return 0, false
}

// ParseSize converts a printed size such as "576.00 MiB", "0 bytes",
// "6.00MiB", "449MiB" or "5520758552" into an exact byte count:
// round(value × unit), computed in integer arithmetic so that no float
// rounding creeps in. It reports false for text that is not a size, for
// negative numbers, and for values of 2^60 bytes or more, which no device
// has and which PyTorch prints only as sentinels.
func ParseSize(text string) (int64, bool) {
	n, st := parseSize(text)
	return n, st == sizeOK
}

// A sizeStatus says how a printed size parsed.
type sizeStatus int

const (
	sizeOK        sizeStatus = iota
	sizeMalformed            // not a size
	sizeTooLarge             // a well-formed size of 2^60 bytes or more: no real allocation
)

// oversize reports whether text is a well-formed size of at least 2^60
// bytes (one exbibyte), more than any device holds: a request of that
// size ("buffer of size 4585490524328388608") is a size computed wrongly —
// a bad shape, a negative dimension read as unsigned, an integer
// overflow — not a memory shortage.
func oversize(text string) bool {
	_, st := parseSize(text)
	return st == sizeTooLarge
}

// overMax sets the event's request and the per-buffer maximum it went
// over from two byte counts as printed ("Buffer size (870585948) exceeds
// the max buffer size limit (536870912)").
func overMax(ev *Event, request, max string) {
	requestOf(ev, request+" bytes")
	ev.MaxAllocationBytes = sizeOf(max + " bytes")
}

// requestOf sets the event's request from a printed size: its bytes, or —
// for a size too large for any device — none, with RequestOverflow, so
// that no family reads an overflowed request as merely unknown.
func requestOf(ev *Event, text string) {
	ev.RequestedBytes = sizeOf(text)
	if ev.RequestedBytes == nil && oversize(text) {
		ev.RequestOverflow = true
	}
}

// parseSize is ParseSize with the reason a text is refused.
func parseSize(text string) (int64, sizeStatus) {
	s := dropThousands(strings.TrimSpace(text))
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9') {
		i++
	}
	if i == 0 {
		return 0, sizeMalformed
	}
	intPart := s[:i]
	frac := ""
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && (s[j] >= '0' && s[j] <= '9') {
			j++
		}
		frac = s[i+1 : j]
		i = j
	}
	mult, ok := unitBytes(s[i:])
	if !ok {
		return 0, sizeMalformed
	}
	if len(intPart)+len(frac) > 19 {
		if len(strings.TrimLeft(intPart, "0")) > 19 {
			return 0, sizeTooLarge // 10^19 and more
		}
		return 0, sizeMalformed
	}
	// mantissa = intPart‖frac as an integer; value = mantissa / 10^len(frac).
	var mantissa uint64
	for _, c := range intPart + frac {
		mantissa = mantissa*10 + uint64(c-'0')
	}
	var scale uint64 = 1
	for range frac {
		scale *= 10
	}
	hi, lo := bits.Mul64(mantissa, mult)
	if hi >= scale {
		return 0, sizeTooLarge // the quotient would overflow 64 bits
	}
	q, r := bits.Div64(hi, lo, scale)
	if r*2 >= scale {
		q++
	}
	if q >= maxBytes {
		return 0, sizeTooLarge
	}
	return int64(q), sizeOK
}

// dropThousands removes the thousands separators of a leading integer
// printed in groups of three ("167,772,160 B" → "167772160 B"); any other
// use of commas is left for ParseSize to refuse.
func dropThousands(s string) string {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == 0 || i > 3 || i >= len(s) || s[i] != ',' {
		return s
	}
	out := []byte(s[:i])
	for i < len(s) && s[i] == ',' {
		if i+4 > len(s) || !isDigit(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) || i+4 < len(s) && isDigit(s[i+4]) {
			return s
		}
		out = append(out, s[i+1:i+4]...)
		i += 4
	}
	return string(out) + s[i:]
}

// sizeOf is ParseSize returning a pointer, nil when the text is not a size.
func sizeOf(text string) *int64 {
	if strings.HasPrefix(strings.TrimSpace(text), bogusProcessBytes) {
		return nil
	}
	n, ok := ParseSize(text)
	if !ok {
		return nil
	}
	return &n
}

// FormatSize renders bytes the way PyTorch's format_size does ("576.00 MiB",
// "1024 bytes"), so that figures oomdoc prints read like the log's own.
func FormatSize(n int64) string {
	const (
		kib = 1024
		mib = 1024 * kib
		gib = 1024 * mib
	)
	neg := ""
	if n < 0 {
		neg, n = "-", -n
	}
	switch {
	case n <= kib:
		return neg + strconv.FormatInt(n, 10) + " bytes"
	case n <= mib:
		return neg + fixed2(n, kib) + " KiB"
	case n <= gib:
		return neg + fixed2(n, mib) + " MiB"
	default:
		return neg + fixed2(n, gib) + " GiB"
	}
}

// fixed2 renders n/unit with two decimals, rounding half up.
func fixed2(n, unit int64) string {
	whole, rem := n/unit, n%unit
	hundredths := (rem*100 + unit/2) / unit
	if hundredths == 100 {
		whole, hundredths = whole+1, 0
	}
	f := strconv.FormatInt(hundredths, 10)
	if hundredths < 10 {
		f = "0" + f
	}
	return strconv.FormatInt(whole, 10) + "." + f
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// SizeReport reports whether a line reports the size of something already
// allocated, as native runtimes log each buffer they create
// ("llama_kv_cache_init: CUDA0 KV buffer size = 379.23 MiB", "KV self
// size = 1005.79 MiB"): a fact about an allocation that succeeded, not
// the one that failed.
func SizeReport(line string) bool {
	for rest := line; ; {
		i := strings.Index(rest, "size")
		if i < 0 {
			return false
		}
		after := strings.TrimLeft(rest[i+len("size"):], " ")
		if strings.HasPrefix(after, "=") {
			v := strings.TrimLeft(after[1:], " ")
			if n := len(v) - len(strings.TrimLeft(v, "0123456789.")); n > 0 {
				unit := strings.TrimLeft(v[n:], " ")
				for _, u := range []string{"MiB", "GiB", "KiB", "MB", "GB", "KB", "B "} {
					if strings.HasPrefix(unit+" ", u) {
						return true
					}
				}
			}
		}
		rest = rest[i+len("size"):]
	}
}
