package parser

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTextSetFirst(t *testing.T) {
	texts := []string{
		`loss.backward()`,
		`File "C:\envs\torch\autograd\__init__.py", line 200, in backward`,
		`self._backward_hooks`,
		``,
		`model.generate(**inputs)`,
	}
	s := NewTextSet(texts)
	for _, tc := range []struct {
		words []string
		want  int
		ok    bool
	}{
		{[]string{"backward"}, 0, true},             // the first text that holds it
		{[]string{"generate", "backward"}, 0, true}, // the earliest text wins, not the earliest word
		{[]string{"autograd/__init__.py"}, 1, true}, // a path word in Windows spelling
		{[]string{"hooks"}, -1, false},              // an identifier inside a longer one
		{[]string{"_backward_hooks"}, 2, true},      // punctuated words match as written
		{[]string{"generate("}, 4, true},            // not an identifier: a plain substring
		{[]string{"backward()\nFile"}, -1, false},   // never across two texts
		{[]string{""}, -1, false},                   // an empty word matches nothing
		{[]string{"train", "eval"}, -1, false},      // none
		{[]string{"inputs", "hooks", "model.generate"}, 4, true},
	} {
		got, ok := s.First(tc.words)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("First(%q) = %d, %v; want %d, %v", tc.words, got, ok, tc.want, tc.ok)
		}
	}
}

// TestTextSetAgreesWithHasWord checks First against HasWord applied to
// each text in turn, on the lines of real logs and the vocabulary's own
// words, with random subsets of both.
func TestTextSetAgreesWithHasWord(t *testing.T) {
	var lines []string
	paths, _ := filepath.Glob(filepath.Join("..", "fixtures", "corpus", "*.log"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			lines = append(lines, string(l))
		}
	}
	var vocab []string
	for _, c := range []Cue{CueOptimizer(), CueBackward(), CueLoad(), CueData(), CueDecode(), CueGenerate(), CueEval(), CueForward(), CueServing(), CueVLLM()} {
		vocab = append(vocab, c.Words...)
	}
	vocab = append(vocab, "File", "line", "torch", "cuda", "__init__.py", "site-packages/torch", "F.softmax(")
	r := rand.New(rand.NewPCG(1, 2))
	matched := 0
	for round := 0; round < 3000; round++ {
		texts := make([]string, r.IntN(12))
		for i := range texts {
			texts[i] = lines[r.IntN(len(lines))]
		}
		words := make([]string, 1+r.IntN(6))
		for i := range words {
			words[i] = vocab[r.IntN(len(vocab))]
			if f := strings.Fields(lines[r.IntN(len(lines))]); len(f) > 0 && r.IntN(2) == 0 {
				words[i] = f[r.IntN(len(f))] // a word some log line holds
			}
		}
		want, wantOK := -1, false
		for i, text := range texts {
			if HasWord(text, words) {
				want, wantOK = i, true
				break
			}
		}
		if wantOK {
			matched++
		}
		got, ok := NewTextSet(texts).First(words)
		if ok != wantOK || ok && got != want {
			t.Fatalf("First(%q) on %q = %d, %v; HasWord says %d, %v", words, strings.Join(texts, " | "), got, ok, want, wantOK)
		}
	}
	if matched < 300 {
		t.Fatalf("only %d of 3000 rounds found a word: the comparison tests too little", matched)
	}
	t.Logf("%d of 3000 rounds found a word", matched)
}
