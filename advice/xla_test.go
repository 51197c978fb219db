package advice

import (
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

// TestXLAPreallocationInLog: the fix that turns XLA's preallocation on is
// offered where the log shows it off, and not where it shows it on.
func TestXLAPreallocationInLog(t *testing.T) {
	const oom = "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 12884901888 bytes.\n"
	for _, tc := range []struct {
		value string
		want  bool
	}{{"false", true}, {"true", false}} {
		res, err := parser.Parse(strings.NewReader("+ export XLA_PYTHON_CLIENT_PREALLOCATE="+tc.value+"\n"+oom), "jax.log")
		if err != nil {
			t.Fatal(err)
		}
		rep := Build(rules.Input{Result: res, Catalog: models.Load()})
		got := false
		for _, d := range rep.Diagnoses {
			for _, fx := range d.Fixes {
				got = got || fx.ID == "xla-preallocate"
			}
		}
		if got != tc.want {
			t.Errorf("PREALLOCATE=%s: xla-preallocate offered %v, want %v", tc.value, got, tc.want)
		}
	}
}
