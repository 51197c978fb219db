package rules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/fixtures"
	parserpkg "github.com/oomdoc/oomdoc/parser"
)

// TestNoFixtureSpecificCues guards against rules fitted to particular
// logs: no string in the rules names a fixture file, and no cue word (an
// argument of words(…)) occurs in exactly one labelled corpus log and in
// no other fixture, which would make it a key to that one case rather
// than a pattern of a format, a frame or a library.
func TestNoFixtureSpecificCues(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var cueWords, literals []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "words" {
					for _, a := range n.Args {
						if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							s, _ := strconv.Unquote(lit.Value)
							cueWords = append(cueWords, s)
						}
					}
				}
			case *ast.BasicLit:
				if n.Kind == token.STRING {
					s, _ := strconv.Unquote(n.Value)
					literals = append(literals, s)
				}
			}
			return true
		})
	}
	for _, c := range parserpkg.Vocabulary() {
		cueWords = append(cueWords, c.Words...)
	}
	if len(cueWords) < 50 {
		t.Fatalf("found only %d cue words: the test no longer sees the rules' cues", len(cueWords))
	}
	corpus := map[string]string{}
	copies := map[string]bool{} // a culprit fixture that is a corpus log, byte for byte, is no second witness
	var others []string
	for _, p := range fixtures.Paths(filepath.Join("..", "fixtures")) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(filepath.ToSlash(p), "/corpus/") {
			copies[string(data)] = true
		}
	}
	for _, p := range fixtures.Paths(filepath.Join("..", "fixtures")) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(filepath.ToSlash(p), "/corpus/") {
			if !copies[string(data)] {
				others = append(others, string(data))
			}
			continue
		}
		corpus[p] = string(data)
		base := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		for _, l := range literals {
			if strings.Contains(l, base) {
				t.Errorf("a rule's string %q names the corpus log %s", l, p)
			}
		}
	}
	sort.Strings(cueWords)
	for i, w := range cueWords {
		if i > 0 && cueWords[i-1] == w {
			continue // one verdict per word, however many cues use it
		}
		var in []string
		for p, text := range corpus {
			if hasAny(text, []string{w}) {
				in = append(in, filepath.Base(p))
			}
		}
		if len(in) != 1 {
			continue
		}
		elsewhere := false
		for _, text := range others {
			if hasAny(text, []string{w}) {
				elsewhere = true
				break
			}
		}
		if why, ok := generalCues()[w]; !elsewhere && !ok {
			t.Errorf("cue word %q occurs only in corpus log %s: a key to one case, not a pattern (add a fixture that shows it elsewhere, or say in generalCues why it is general)", w, in[0])
		} else if ok && elsewhere {
			t.Errorf("cue word %q is listed in generalCues (%s) but now has a second fixture: drop it from the list", w, why)
		}
	}
}

// generalCues are cue words that only one corpus log happens to show,
// each with why it names a library or framework in general rather than
// that log.
func generalCues() map[string]string {
	return map[string]string{
		"Loading pipeline components": "diffusers prints this bar whenever it loads any pipeline",
		"compute_loss":                "Hugging Face Trainer.compute_loss",
		"demo":                        "the usual name of a model repository's inference script",
		"infer(":                      "the usual name of an inference entry point",
		"jax/":                        "any frame inside the jax package",
		"v_cache":                     "the value half of a KV cache in most hand-written decoders",
		"setup_caches":                "gpt-fast's and torchtune's call that preallocates the KV cache",
		"cache_shape":                 "the shape argument of every static KV-cache constructor",
		"KVCache":                     "the KV-cache class name in gpt-fast, torchtune and most hand-written decoders",
		"kv_cache":                    "the usual variable and module name of a KV cache",
		"vae: ":                       "stable-diffusion.cpp's log prefix for its VAE stage",
		"vllm serve":                  "vLLM's server command line",
		"lmdeploy":                    "LMDeploy's package and command name, in every frame and log line of the engine",
		"turbomind":                   "LMDeploy's TurboMind engine: its module path and class names",
		"[TM]":                        "the prefix of every log line TurboMind's C++ core prints",
		"generate_step":               "mlx-lm's and mlx-vlm's token-by-token generation function",
	}
}
