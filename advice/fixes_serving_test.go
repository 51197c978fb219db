package advice

import (
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/parser"
)

// TestTGIFixes: the prefill fix halves the batch TGI refused, and sets no
// input or total limit the log did not ask for.
func TestTGIFixes(t *testing.T) {
	n := int64(131122)
	for _, tc := range []struct {
		name            string
		tokens          *int64
		saving, snippet string
	}{
		{"the refused batch is printed", &n, "prefill batch 131,122 → 65,561 tokens", "--max-batch-prefill-tokens 65561 "},
		{"no figure", nil, "", "--max-batch-prefill-tokens 8192"},
	} {
		fx := tgiFixes(&parser.Event{Variant: "tgi-warmup", PrefillTokens: tc.tokens})[0]
		if fx.Saving != tc.saving || !strings.Contains(fx.Snippet, tc.snippet) {
			t.Errorf("%s: saving %q, snippet %q", tc.name, fx.Saving, fx.Snippet)
		}
		if strings.Contains(fx.Snippet, "--max-input-tokens") || strings.Contains(fx.Snippet, "--max-total-tokens") {
			t.Errorf("%s: snippet sets limits the log did not ask for: %q", tc.name, fx.Snippet)
		}
	}
}
