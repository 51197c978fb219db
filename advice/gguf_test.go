package advice

import (
	"testing"

	"github.com/oomdoc/oomdoc/parser"
)

// TestGGUFType: the quantisation a llama.cpp log names, and whether it is
// already 4 bits or fewer.
func TestGGUFType(t *testing.T) {
	for _, tc := range []struct {
		line, want string
		low        bool
	}{
		{"llm_load_print_meta: model ftype      = Q4_K - Medium", "Q4_K", true},
		{"print_info: file type   = Q8_0", "Q8_0", false},
		{"llama_model_loader: loaded meta data from models/Meta-Llama-3.1-70B-Instruct-Q4_K_M.gguf (version GGUF V3 (latest))", "Q4_K_M", true},
		{"loading model from /models/mistral-7b.IQ3_XS.gguf", "IQ3_XS", true},
		{"print_info: file type   = BF16", "BF16", false},
		{"llm_load_print_meta: model size       = 39.59 GiB (4.82 BPW)", "", false},
	} {
		ev := &parser.Event{ContextLines: []parser.Span{{Line: 3, Text: tc.line}}}
		got, _ := ggufType(ev)
		if got != tc.want || lowBitGGUF(got) != tc.low {
			t.Errorf("%q: type %q (low %v), want %q (low %v)", tc.line, got, lowBitGGUF(got), tc.want, tc.low)
		}
	}
}
