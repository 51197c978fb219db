package advice

import (
	"testing"

	"github.com/oomdoc/oomdoc/parser"
)

// TestGGUFType: the quantisation a llama.cpp log names, and its bits when
// 4 or fewer.
func TestGGUFType(t *testing.T) {
	for _, tc := range []struct {
		line, want string
		bits       int
	}{
		{"llm_load_print_meta: model ftype      = Q4_K - Medium", "Q4_K", 4},
		{"print_info: file type   = Q8_0", "Q8_0", 0},
		{"llama_model_loader: loaded meta data from models/Meta-Llama-3.1-70B-Instruct-Q4_K_M.gguf (version GGUF V3 (latest))", "Q4_K_M", 4},
		{"loading model from /models/mistral-7b.IQ3_XS.gguf", "IQ3_XS", 3},
		{"print_info: file type   = IQ2_XXS - 2.0625 bpw", "IQ2_XXS", 2},
		{"print_info: file type   = BF16", "BF16", 0},
		{"llm_load_print_meta: model size       = 39.59 GiB (4.82 BPW)", "", 0},
	} {
		ev := &parser.Event{ContextLines: []parser.Span{{Line: 3, Text: tc.line}}}
		got, _ := ggufType(ev, nil)
		if got != tc.want || ggufBits(got) != tc.bits {
			t.Errorf("%q: type %q (%d bits), want %q (%d bits)", tc.line, got, ggufBits(got), tc.want, tc.bits)
		}
	}
}
