package rules

import (
	"strconv"
	"strings"

	"github.com/oomdoc/oomdoc/parser"
)

// size renders bytes as PyTorch prints them ("576.00 MiB").
func size(n int64) string { return parser.FormatSize(n) }

// billions renders a parameter count ("13.35B").
func billions(n int64) string {
	return strconv.FormatFloat(float64(n)/1e9, 'f', 2, 64) + "B"
}

// commas renders an integer with thousands separators ("65,532").
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// pct renders a ratio as a whole percentage.
func pct(part, whole int64) string {
	if whole == 0 {
		return "?%"
	}
	return strconv.FormatInt((part*100+whole/2)/whole, 10) + "%"
}

// requestRange returns the bounds of the program's real request: the
// allocator's rounding when the parser knows it, else the printed figure.
func requestRange(ev *parser.Event) (lo, hi int64) {
	if ev.RequestedBytes == nil {
		return 0, 0
	}
	n := *ev.RequestedBytes
	lo, hi = n, n
	if !strings.Contains(ev.Message, strconv.FormatInt(n, 10)) {
		// A figure printed with two decimals is itself rounded by half a
		// hundredth of its unit.
		unit := int64(1)
		switch {
		case n > 1<<30:
			unit = 1 << 30
		case n > 1<<20:
			unit = 1 << 20
		case n > 1<<10:
			unit = 1 << 10
		}
		lo, hi = n-unit/200, n+unit/200
	}
	if ev.RequestMinBytes != nil && ev.RequestMaxBytes != nil {
		lo, hi = min(lo, *ev.RequestMinBytes), max(hi, *ev.RequestMaxBytes)
	}
	return lo, hi
}

// factor finds the largest integer t with t×unit inside [lo, hi]: the
// token count behind a tensor of unit bytes per token. ok is false when no
// integer fits.
func factor(lo, hi, unit int64) (t int64, ok bool) {
	if unit <= 0 || hi < unit {
		return 0, false
	}
	t = hi / unit
	return t, t*unit >= lo
}
