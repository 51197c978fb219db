package parser

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// stripANSI removes terminal escape sequences (CSI "ESC [ … final", OSC
// "ESC ] … BEL|ESC \", two-byte "ESC x") and NUL bytes from b. It returns b
// itself when there is nothing to remove.
func stripANSI(b []byte) []byte {
	if bytes.IndexByte(b, 0x1b) < 0 && bytes.IndexByte(b, 0) < 0 && !bytes.Contains(b, []byte(`\u001b[`)) && !bytes.Contains(b, []byte(`\x1b[`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == 0:
			continue
		case c == 0x1b && i+1 < len(b) && b[i+1] == '[':
			j := i + 2
			for j < len(b) && (b[j] < 0x40 || b[j] > 0x7e) {
				j++
			}
			i = j
		case c == 0x1b && i+1 < len(b) && b[i+1] == ']':
			j := i + 2
			for j < len(b) && b[j] != 0x07 && !(b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\') {
				j++
			}
			if j < len(b) && b[j] == 0x1b {
				j++
			}
			i = j
		case c == 0x1b:
			i++ // two-byte escape
		case c == '\\' && bytes.HasPrefix(b[i:], []byte(`\u001b[`)):
			j := i + 7
			for j < len(b) && (b[j] < 0x40 || b[j] > 0x7e) {
				j++
			}
			i = j
		case c == '\\' && bytes.HasPrefix(b[i:], []byte(`\x1b[`)):
			j := i + 5
			for j < len(b) && (b[j] < 0x40 || b[j] > 0x7e) {
				j++
			}
			i = j
		default:
			out = append(out, c)
		}
	}
	return out
}

// toText converts b to a valid UTF-8 string, replacing invalid bytes.
func toText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// Line prefixes that loggers and launchers put in front of every line
// (research/formats.md §5.5, §7.2). Each is stripped before matching; the
// rank ones also name the stream a traceback belongs to.
var (
	// "[rank3]: ", "rank4]: " (a paste that lost its bracket)
	rankPrefix = lazyRE(`^\[?rank(\d+)\]:\s?`)
	// "[default0]:" from torchrun --tee / LocalElasticAgent
	defaultPrefix = lazyRE(`^\[([A-Za-z_]*?)(\d+)\]:`)
	// "[1,0]<stderr>:" from Open MPI --tag-output
	mpiPrefix = lazyRE(`^\[\d+,(\d+)\]<std(?:out|err)>:\s?`)
	// "(EngineCore_DP0 pid=16388) ", "(VllmWorker rank=0 pid=428) "
	procTagPrefix = lazyRE(`^\([A-Za-z_][\w]*(?: rank=(\d+))?(?: pid=\d+)\)\s*`)
	// "ERROR 04-01 23:46:56 [engine.py:160] " (vLLM)
	vllmPrefix = lazyRE(`^(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[[^\]]*\] `)
	// "E0325 20:57:27.620000 2606 site-packages/…/api.py:869] " (glog)
	glogPrefix = lazyRE(`^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [^\]]*\] `)
	// "2024-07-12 14:40:46.377091: W tensorflow/…/bfc_allocator.cc:485] " (TensorFlow C++)
	tfPrefix = lazyRE(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: [IWEF] [^\]]*\] `)
	// "[2023-04-14 13:10:02,121] [INFO] [utils.py:786:see_memory_usage] " (DeepSpeed)
	dsPrefix = lazyRE(`^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\] \[\w+\] \[[^\]]*\] `)
	// "2024-06-17T13:18:29.371622Z ERROR shard-manager: ", "2024-01-01 10:00:00,123 - INFO - "
	isoPrefix = lazyRE(`^\[?\d{4}-\d\d-\d\d[ T_]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?\s*(?:[-|:]\s*)?(?:(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL|TRACE)\s*(?:[-|:]\s*)?([\w.\-]+:\s+)?)?`)
	// "ERROR:torch.distributed.elastic.multiprocessing.api:" (Python logging default)
	pyLogPrefix = lazyRE(`^(?:INFO|WARNING|ERROR|DEBUG|CRITICAL):[\w.]+:`)
	// "[ 5403.117934] " (dmesg), "[Tue Mar 11 10:15:33 2025] " (dmesg -T)
	dmesgPrefix = lazyRE(`^\[\s*\d+\.\d+\]\s*|^\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\]\s*`)
	// "Mar 11 10:15:33 gpu-node-3 kernel: " (journal)
	journalPrefix = lazyRE(`^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ \S+?: `)
	// "11 16:42:50" (MegEngine), "[11:47:17] "
	clockPrefix = lazyRE(`^(?:\d{1,2} )?\[?\d\d:\d\d:\d\d(?:\.\d+)?\]?\s?`)
	// "0: " from srun --label
	srunPrefix = lazyRE(`^(\d{1,4}): `)
)

// A stripped line is the text left after removing known prefixes, with the
// rank they named (if any) and the prefix itself as a stream key.
type stripped struct {
	text   string
	rank   *int
	stream string
}

// stripPrefixes removes known log prefixes from the start of s, repeatedly.
func stripPrefixes(s string) stripped {
	out := stripped{text: s}
	for range 8 {
		t := out.text
		if t == "" {
			break
		}
		c := t[0]
		var m []string
		if name, n := composePrefix(t); n > 0 {
			out.stream += name // without the padding, which Compose changes when a longer name attaches
			out.text = t[n:]
			continue
		}
		switch {
		case c == 'r':
			if m = rankPrefix.FindStringSubmatch(t); m != nil {
				out.setRank(m[1], rankStream(m[1]))
			}
		case c == '[' && fastRank(t, &out):
			continue
		case c == '[':
			// Each pattern runs only when the bytes after "[" can begin it.
			c1 := byte(0)
			if len(t) > 1 {
				c1 = t[1]
			}
			isDate := isDateAt(t[1:])
			if c1 == 'r' {
				if m = rankPrefix.FindStringSubmatch(t); m != nil {
					out.setRank(m[1], rankStream(m[1]))
					break
				}
			}
			if isDigit(c1) && !isDate {
				if m = mpiPrefix.FindStringSubmatch(t); m != nil {
					out.setRank(m[1], m[0])
					break
				}
			}
			if !isDate && strings.Contains(t[:min(len(t), 48)], "]:") {
				if m = defaultPrefix.FindStringSubmatch(t); m != nil {
					if out.rank == nil {
						out.setRank(m[2], m[0])
					} else {
						out.stream += m[0]
					}
					break
				}
			}
			switch {
			case isDate:
				if m = dsPrefix.FindStringSubmatch(t); m == nil {
					m = isoMatch(t)
				}
			case c1 == ' ' || isDigit(c1) || c1 >= 'A' && c1 <= 'Z':
				if m = dmesgPrefix.FindStringSubmatch(t); m == nil {
					m = clockPrefix.FindStringSubmatch(t)
				}
			}
		case c == '(':
			if m = procTagPrefix.FindStringSubmatch(t); m != nil {
				out.stream += m[0]
				if m[1] != "" && out.rank == nil {
					out.setRank(m[1], "")
				}
			}
		case c >= '0' && c <= '9':
			if n := ggmlLogPrefix(t); n > 0 {
				m = []string{t[:n]}
			} else if !isDateAt(t) {
				if m = clockPrefix.FindStringSubmatch(t); m == nil {
					if m = srunPrefix.FindStringSubmatch(t); m != nil {
						out.setRank(m[1], m[0])
					}
				}
			} else if m = tfPrefix.FindStringSubmatch(t); m == nil {
				if m = isoMatch(t); m == nil {
					if m = clockPrefix.FindStringSubmatch(t); m == nil {
						if m = srunPrefix.FindStringSubmatch(t); m != nil {
							out.setRank(m[1], m[0])
						}
					}
				}
			}
		case c == 'I' || c == 'W' || c == 'E' || c == 'F' || c == 'D' || c == 'C':
			switch {
			case len(t) > 1 && isDigit(t[1]):
				m = glogPrefix.FindStringSubmatch(t)
			case levelWord(t):
				if m = vllmPrefix.FindStringSubmatch(t); m == nil {
					m = pyLogPrefix.FindStringSubmatch(t)
				}
			}
		case c >= 'A' && c <= 'Z' && journalShaped(t):
			m = journalPrefix.FindStringSubmatch(t)
		case c == '>':
			m = []string{"> "}
			if !strings.HasPrefix(t, "> ") {
				m = []string{">"}
			}
		}
		if m == nil || m[0] == "" {
			break
		}
		out.text = t[len(m[0]):]
	}
	return out
}

// isoMatch is isoPrefix's match, less the logger name after the level
// when that name is an exception's class: "ERROR:    torch.OutOfMemoryError:
// CUDA out of memory." keeps its exception.
func isoMatch(t string) []string {
	m := isoPrefix.FindStringSubmatch(t)
	if m != nil && m[1] != "" {
		name := strings.TrimRight(m[1], ": \t")
		if strings.HasSuffix(name, "Error") || strings.HasSuffix(name, "Exception") || strings.HasSuffix(name, "Failure") {
			m[0] = m[0][:len(m[0])-len(m[1])]
		}
	}
	return m
}

// composePrefix returns the service tag Docker Compose puts before each
// line of a container's output — the service name, a dash or underscore
// and the replica number, padding, then "| ": "tabbyapi-1  | ", "web_1
// | " — as the name and the tag's length, and 0 when t does not start
// with one. Read without a regexp: most lines start with no such tag, and
// the scan stops at the first byte that cannot be one's.
func composePrefix(t string) (name string, n int) {
	i := 0
	for i < len(t) && i < 64 && (identByte(t[i]) || t[i] == '-' || t[i] == '.') {
		i++
	}
	j := i
	for j > 0 && isDigit(t[j-1]) {
		j--
	}
	if j == i || j < 2 || (t[j-1] != '-' && t[j-1] != '_') {
		return "", 0 // no replica number after a dash or underscore
	}
	k := i
	for k < len(t) && t[k] == ' ' {
		k++
	}
	if k == i || k >= len(t) || t[k] != '|' {
		return "", 0
	}
	k++
	switch {
	case k == len(t):
		return t[:i], k // a blank line of the container's
	case t[k] == ' ':
		return t[:i], k + 1
	}
	return "", 0
}

// fastRank strips the commonest prefix, "[rankN]: ", without a regexp.
func fastRank(t string, out *stripped) bool {
	if !strings.HasPrefix(t, "[rank") {
		return false
	}
	j := len("[rank")
	for j < len(t) && t[j] >= '0' && t[j] <= '9' {
		j++
	}
	if j == len("[rank") || j+1 >= len(t) || t[j] != ']' || t[j+1] != ':' {
		return false
	}
	end := j + 2
	if end < len(t) && t[end] == ' ' {
		end++
	}
	out.setRank(t[len("[rank"):j], rankStream(t[len("[rank"):j]))
	out.text = t[end:]
	return true
}

// rankStream is the stream key of a "[rankN]:" prefix: the rank alone, so
// that "[rank0]: ", "[rank0]:" and a paste's "rank0]: " (its first line cut
// one byte late) are one stream.
func rankStream(num string) string { return "[rank" + num + "]" }

func (s *stripped) setRank(num, prefix string) {
	if n, err := strconv.Atoi(num); err == nil {
		s.rank = &n
	}
	s.stream += prefix
}

// ggmlLogPrefix returns the length of llama.cpp's log prefix at the start
// of t — minutes.seconds.milliseconds.microseconds since start, then the
// level letter: "1.06.520.077 E ggml_backend_cuda_buffer_type_alloc_buffer:
// …" — or 0. Read by hand: it is tried on every line that starts with a
// digit.
func ggmlLogPrefix(t string) int {
	i := 0
	for i < len(t) && i < 6 && isDigit(t[i]) {
		i++
	}
	if i == 0 {
		return 0
	}
	for _, w := range []int{2, 3, 3} {
		if i >= len(t) || t[i] != '.' {
			return 0
		}
		i++
		for k := 0; k < w; k++ {
			if i >= len(t) || !isDigit(t[i]) {
				return 0
			}
			i++
		}
	}
	if i+3 > len(t) || t[i] != ' ' || !strings.ContainsRune("DIWE", rune(t[i+1])) || t[i+2] != ' ' {
		return 0
	}
	return i + 3
}

// isDateAt reports whether s starts with a date "2024-06-17".
func isDateAt(s string) bool {
	return len(s) >= 10 && isDigit(s[0]) && isDigit(s[1]) && isDigit(s[2]) && isDigit(s[3]) && s[4] == '-' && isDigit(s[5]) && isDigit(s[6]) && s[7] == '-'
}

// levelWord reports whether s starts with a logging level name.
func levelWord(s string) bool {
	for _, w := range []string{"INFO", "WARNING", "ERROR", "DEBUG", "CRITICAL"} {
		if strings.HasPrefix(s, w) {
			return true
		}
	}
	return false
}

// journalShaped reports whether t has the fixed bytes of a journal
// prefix's date, "Mar 11 10:15:33 ": a space after the month, a digit
// before the time and the time's colons. It spares compiling and running
// journalPrefix on the many lines that start with a capital letter
// ("Traceback", "RuntimeError: …") and hold no date.
func journalShaped(t string) bool {
	return len(t) > 16 && t[3] == ' ' && isDigit(t[5]) && t[6] == ' ' && t[9] == ':' && t[12] == ':' && t[15] == ' '
}
