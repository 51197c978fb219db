package parser

import (
	"strings"
	"testing"
)

// TestRaisedFrom: a failure raised from another exception records it when
// the chain is right above the failure's own traceback, and nothing when
// the lines above are not the end of a chained traceback.
func TestRaisedFrom(t *testing.T) {
	const wrapper = "Traceback (most recent call last):\n  File \"/srv/server.py\", line 73, in Warmup\n    raise RuntimeError(\nRuntimeError: Not enough memory to handle 4096 prefill tokens. You need to decrease `--max-batch-prefill-tokens`\n"
	for _, tc := range []struct {
		name, log, want string
	}{
		{"direct cause", "  File \"/srv/attn.py\", line 63, in attention\n    return kernel(q, k, v)\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n\nThe above exception was the direct cause of the following exception:\n\n" + wrapper, "RuntimeError: CUDA error: no kernel image is available for execution on the device"},
		{"during handling", "KeyError: 'flash'\n\nDuring handling of the above exception, another exception occurred:\n\n" + wrapper, "KeyError: 'flash'"},
		{"no chain", "INFO warming up\nERROR warm-up failed\n" + wrapper, ""},
		{"a chain farther up is not this failure's", "ValueError: bad shape\n\nThe above exception was the direct cause of the following exception:\n\nINFO retrying\n" + wrapper, ""},
	} {
		res, err := Parse(strings.NewReader(tc.log), "in.log")
		if err != nil || len(res.Events) == 0 {
			t.Fatalf("%s: %v, %d events", tc.name, err, len(res.Events))
		}
		ev := res.Events[len(res.Events)-1]
		got := ""
		if ev.RaisedFrom != nil {
			got = ev.RaisedFrom.Text
		}
		if got != tc.want {
			t.Errorf("%s: raised from %q, want %q", tc.name, got, tc.want)
		}
	}
}
