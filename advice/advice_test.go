package advice

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/fixtures"
	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

func build(t *testing.T, path string, h rules.Hints) Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := parser.Parse(f, filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	return Build(rules.Input{Result: res, Hints: h, Catalog: models.Load()})
}

func ineffectiveIDs(rep Report) map[string]Ineffective {
	out := map[string]Ineffective{}
	for _, x := range rep.Ineffective {
		out[x.ID] = x
	}
	return out
}

// TestOvisReference is the first worked case.
func TestOvisReference(t *testing.T) {
	rep := build(t, filepath.Join("..", "fixtures", "reference", "ovis2.5-2b-visual-softmax.log"), rules.Hints{})
	if len(rep.Diagnoses) == 0 || rep.Diagnoses[0].Culprit != "visual-tokens" {
		t.Fatalf("first diagnosis: %+v", rep.Diagnoses)
	}
	d := rep.Diagnoses[0]
	if got := strings.Join(d.Arithmetic, " | "); !strings.Contains(got, "576.00 MiB ≈ 2,304 tokens × 65,532 × 4 B") || !strings.Contains(got, "1344*1792") || !strings.Contains(got, "2,352") {
		t.Errorf("arithmetic: %s", got)
	}
	fx := d.Fixes[0]
	if fx.ID != "lower-max-pixels" || !strings.Contains(fx.Title, "max_pixels=768*768") {
		t.Fatalf("first fix: %+v", fx)
	}
	if fx.SavesBytes == nil || *fx.SavesBytes != 452984832 {
		t.Errorf("saving = %v, want 452984832 (576 MiB → 144 MiB)", fx.SavesBytes)
	}
	if !strings.Contains(fx.Saving, "2,304 → ≈576") || !strings.Contains(fx.Saving, "576.00 MiB → ≈144.00 MiB") {
		t.Errorf("saving text: %s", fx.Saving)
	}
	x := ineffectiveIDs(rep)
	for _, id := range []string{"empty-cache", "thinking-budget", "use-fast-warning"} {
		if _, ok := x[id]; !ok {
			t.Errorf("won't-help lacks %s: %v", id, rep.Ineffective)
		}
	}
	if !strings.Contains(x["thinking-budget"].Why, "Thinking is off") {
		t.Errorf("thinking budget reason: %s", x["thinking-budget"].Why)
	}
	if !strings.Contains(x["use-fast-warning"].Why, "Unrelated") {
		t.Errorf("use_fast reason: %s", x["use-fast-warning"].Why)
	}
}

// TestLLaVAReference is the second worked case, with and without
// the model named on the command line.
func TestLLaVAReference(t *testing.T) {
	path := filepath.Join("..", "fixtures", "reference", "llava-1.5-13b-load-12gib.log")
	t.Run("with --model", func(t *testing.T) {
		rep := build(t, path, rules.Hints{Model: "llava-hf/llava-1.5-13b-hf"})
		d := rep.Diagnoses[0]
		if d.Culprit != "weights-too-large" || !strings.Contains(strings.Join(d.Arithmetic, " "), "13.35B params × 2 B (16-bit) ≈ 24.87 GiB") {
			t.Fatalf("first diagnosis: %s %v", d.Culprit, d.Arithmetic)
		}
		fx := d.Fixes[0]
		if fx.ID != "load-in-4bit" || !strings.Contains(fx.Snippet, "quantization_config=bnb") || !strings.Contains(fx.Snippet, "BitsAndBytesConfig(") || fx.SavesBytes == nil {
			t.Fatalf("first fix: %+v", fx)
		}
		if !strings.Contains(fx.Saving, "≈7.43 GiB") {
			t.Errorf("4-bit size: %s", fx.Saving)
		}
		fits := map[string]bool{}
		for _, r := range rep.WhatFits.Rows {
			fits[r.Option] = r.Fits
		}
		for option, want := range map[string]bool{
			"llava-1.5-13b-hf bf16/fp16": false, "llava-1.5-13b-hf int8": false, "llava-1.5-13b-hf nf4": true,
			"llava-1.5-13b-hf nf4 + double quant": true, "llava-1.5-7b-hf bf16/fp16": false,
			"llava-1.5-7b-hf int8": true, "llava-1.5-7b-hf nf4": true,
		} {
			got, ok := fits[option]
			if !ok || got != want {
				t.Errorf("what fits %q = %v (present %v), want %v", option, got, ok, want)
			}
		}
		x := ineffectiveIDs(rep)
		for _, id := range []string{"empty-cache", "low-cpu-mem-usage", "reduce-batch-size"} {
			if _, ok := x[id]; !ok {
				t.Errorf("won't-help lacks %s: %v", id, rep.Ineffective)
			}
		}
		if _, ok := x["pad-token-id"]; ok {
			t.Errorf("won't-help quotes a pad_token_id warning the log does not hold")
		}
		if !strings.Contains(fx.Snippet, "LlavaForConditionalGeneration.from_pretrained(") {
			t.Errorf("4-bit snippet does not load with the log's class: %s", fx.Snippet)
		}
	})
	t.Run("without --model", func(t *testing.T) {
		rep := build(t, path, rules.Hints{})
		if rep.Diagnoses[0].Culprit != "weights-too-large" {
			t.Fatalf("first diagnosis: %s", rep.Diagnoses[0].Culprit)
		}
	})
}

// TestEveryIDHasAPage: every culprit, every fix any report can give and
// every won't-help id has an explain page.
func TestEveryIDHasAPage(t *testing.T) {
	pages := map[string]bool{}
	for _, p := range Pages() {
		if pages[p.ID] {
			t.Errorf("two pages for %q", p.ID)
		}
		pages[p.ID] = true
		if p.Title == "" {
			t.Errorf("%q: page without a title", p.ID)
		}
	}
	for _, r := range rules.All() {
		if !pages[r.ID] {
			t.Errorf("culprit %q has no page", r.ID)
		}
	}
	for id := range fixBuilders() {
		if !pages[id] {
			t.Errorf("culprit %q has no page", id)
		}
	}
	for _, path := range fixtures.Paths(filepath.Join("..", "fixtures")) {
		rep := build(t, path, rules.Hints{})
		for _, d := range rep.Diagnoses {
			for _, fx := range d.Fixes {
				if !pages[fx.ID] {
					t.Errorf("%s: fix %q has no explain page", path, fx.ID)
				}
			}
		}
		for _, x := range rep.Ineffective {
			if !pages[x.ID] {
				t.Errorf("%s: won't-help %q has no explain page", path, x.ID)
			}
		}
	}
}

// TestNoContradictedAdvice runs every fixture and checks the two rules the
// evidence must never be broken on: no fragmentation setting first when
// the idle cache is smaller than the request, and no gradient
// checkpointing for an inference phase.
func TestNoContradictedAdvice(t *testing.T) {
	for _, path := range fixtures.Paths(filepath.Join("..", "fixtures")) {
		rep := build(t, path, rules.Hints{})
		if len(rep.Diagnoses) == 0 || len(rep.Events) == 0 {
			continue
		}
		ev := eventByID(rep, rep.Diagnoses[0].Event)
		first := rep.Diagnoses[0].Fixes
		if len(first) > 0 && (first[0].ID == "expandable-segments" || first[0].ID == "max-split-size") {
			if ev.ReservedUnallocatedBytes == nil || ev.RequestedBytes == nil || *ev.ReservedUnallocatedBytes < *ev.RequestedBytes {
				t.Errorf("%s: %s recommended first with reserved-unallocated below the request", path, first[0].ID)
			}
		}
		for _, d := range rep.Diagnoses {
			e := eventByID(rep, d.Event)
			switch e.Phase {
			case parser.PhaseGenerate, parser.PhaseLoad, parser.PhaseDecode, parser.PhaseEval:
				for _, fx := range d.Fixes {
					if fx.ID == "gradient-checkpointing" {
						t.Errorf("%s: gradient checkpointing recommended for a %s failure", path, e.Phase)
					}
				}
			}
		}
		for _, x := range rep.Ineffective {
			for _, d := range rep.Diagnoses {
				for _, fx := range d.Fixes {
					if fx.ID == x.ID {
						t.Errorf("%s: %q is both a fix and a won't-help", path, x.ID)
					}
				}
			}
		}
	}
}

func eventByID(rep Report, id string) parser.Event {
	for _, ev := range rep.Events {
		if ev.ID == id {
			return ev
		}
	}
	return rep.Events[0]
}

func TestAllocConfVar(t *testing.T) {
	tests := []struct {
		name string
		env  Env
		want string
		note bool
	}{
		{"old torch", Env{Torch: "2.1.2"}, "PYTORCH_CUDA_ALLOC_CONF", false},
		{"2.9.1 trap", Env{Torch: "2.9.1+cu128"}, "PYTORCH_CUDA_ALLOC_CONF", true},
		{"new torch", Env{Torch: "2.11.0"}, "PYTORCH_ALLOC_CONF", true},
		{"unknown", Env{}, "PYTORCH_CUDA_ALLOC_CONF", true},
		{"unknown, new hint", Env{HintEnv: "PYTORCH_ALLOC_CONF"}, "PYTORCH_CUDA_ALLOC_CONF", true},
		{"rocm", Env{ROCm: true}, "PYTORCH_HIP_ALLOC_CONF", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, note := tc.env.AllocConfVar()
			if got != tc.want || (note != "") != tc.note {
				t.Errorf("got %s (note %q), want %s (note %v)", got, note, tc.want, tc.note)
			}
		})
	}
}

func TestDTypeAndLogitsSpelling(t *testing.T) {
	tests := []struct {
		transformers, dtype, logits string
	}{
		{"4.40.0", "torch_dtype", "num_logits_to_keep"},
		{"4.49.0", "torch_dtype", "logits_to_keep"},
		{"4.56.1", "dtype", "logits_to_keep"},
		{"5.0.0", "dtype", "logits_to_keep"},
		{"", "dtype", "logits_to_keep"},
	}
	for _, tc := range tests {
		t.Run("transformers "+tc.transformers, func(t *testing.T) {
			e := Env{Transformers: tc.transformers}
			if got, _ := e.DTypeArg(); got != tc.dtype {
				t.Errorf("dtype arg %s, want %s", got, tc.dtype)
			}
			if got, _ := e.LogitsToKeepArg(); got != tc.logits {
				t.Errorf("logits arg %s, want %s", got, tc.logits)
			}
		})
	}
}

// TestVLLMInsideEngineNeverRaisesUtilisation: a CUDA OOM printed by a vLLM
// process must not be told to raise gpu_memory_utilization, only warned
// against it.
func TestVLLMInsideEngineNeverRaisesUtilisation(t *testing.T) {
	rep := build(t, filepath.Join("..", "fixtures", "formats", "vllm-worker-prefix-profile.log"), rules.Hints{})
	for _, d := range rep.Diagnoses {
		for _, fx := range d.Fixes {
			if fx.ID == "raise-gpu-memory-utilization" {
				t.Errorf("%s offers raising gpu_memory_utilization", d.Culprit)
			}
		}
	}
	if _, ok := ineffectiveIDs(rep)["raising-gpu-memory-utilization"]; !ok {
		t.Errorf("won't-help lacks raising-gpu-memory-utilization: %v", rep.Ineffective)
	}
}

// TestAcceptanceNoRuledOutFix: the logs that show a fix already in place
// (or that cannot apply) never get it offered, and the report says what
// the log shows, citing the line (issue 12, acceptance 3).
func TestAcceptanceNoRuledOutFix(t *testing.T) {
	tests := []struct {
		file  string
		never []string       // fix ids that must not be offered
		said  map[string]int // won't-help id → the line it must cite
	}{
		{"tried-expandable-segments.log", []string{"expandable-segments"}, map[string]int{"expandable-segments": 1}},
		{"tried-gradient-checkpointing.log", []string{"gradient-checkpointing"}, map[string]int{"gradient-checkpointing": 5}},
		{"tried-4bit-weights.log", []string{"load-in-4bit", "load-in-8bit"}, map[string]int{"load-in-4bit": 4, "load-in-8bit": 4}},
		{"notebook-kernel-only-process.log", []string{"free-the-gpu", "pick-idle-gpu"}, map[string]int{"free-the-gpu": 15}},
		{"notebook-error-output.ipynb", []string{"free-the-gpu", "pick-idle-gpu"}, map[string]int{"free-the-gpu": 6}},
		{"xpu-oom-fragmented.log", []string{"expandable-segments", "max-split-size", "record-memory-history", "offloaded-kv-cache"}, map[string]int{"expandable-segments": 10}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			rep := build(t, filepath.Join("..", "fixtures", "formats", tc.file), rules.Hints{})
			for _, d := range rep.Diagnoses {
				for _, fx := range d.Fixes {
					for _, id := range tc.never {
						if fx.ID == id {
							t.Errorf("offers %s, which the log rules out", id)
						}
					}
				}
			}
			x := ineffectiveIDs(rep)
			for id, line := range tc.said {
				if got, ok := x[id]; !ok || got.Line != line {
					t.Errorf("won't-help %s: %+v, want it citing line %d", id, got, line)
				}
			}
		})
	}
	t.Run("xpu spells its own empty_cache", func(t *testing.T) {
		rep := build(t, filepath.Join("..", "fixtures", "corpus", "h2a-002.log"), rules.Hints{})
		for _, x := range rep.Ineffective {
			if strings.Contains(x.Title, "torch.cuda") {
				t.Errorf("XPU report says %s", x.Title)
			}
		}
		if x, ok := ineffectiveIDs(rep)["empty-cache"]; !ok || x.Title != "torch.xpu.empty_cache()" {
			t.Errorf("empty-cache on XPU: %+v", x)
		}
	})
}

// TestFixIDsAreUnique: one id is one change — every form of a fix, for
// any culprit, framework or variant, has the same title and reasoning
// (only the snippet is spelled for the framework).
func TestFixIDsAreUnique(t *testing.T) {
	type text struct{ title, why string }
	seen := map[string]text{}
	for _, r := range rules.All() {
		for _, fx := range everyFixForm(r.ID) {
			got := text{fx.Title, fx.Why}
			if prev, ok := seen[fx.ID]; ok && prev != got {
				t.Errorf("fix %q is defined twice:\n  %q\n  %q", fx.ID, prev, got)
			}
			seen[fx.ID] = got
		}
	}
	if len(seen) < 30 {
		t.Errorf("only %d fix ids", len(seen))
	}
}

// TestMergeRanksAcrossInputs: several inputs give one list of diagnoses,
// ranked by confidence.
func TestMergeRanksAcrossInputs(t *testing.T) {
	var reps []Report
	for _, id := range []string{"trn-021", "trn-007", "inf-035"} {
		reps = append(reps, build(t, filepath.Join("..", "fixtures", "corpus", id+".log"), rules.Hints{}))
	}
	m := Merge(reps)
	n := 0
	for _, r := range reps {
		n += len(r.Diagnoses)
	}
	if len(m.Diagnoses) != n || n < 2 {
		t.Fatalf("merged %d diagnoses of %d", len(m.Diagnoses), n)
	}
	for i := 1; i < len(m.Diagnoses); i++ {
		if m.Diagnoses[i].Confidence > m.Diagnoses[i-1].Confidence {
			t.Errorf("diagnosis %d (%.2f) ranked below %d (%.2f)", i, m.Diagnoses[i].Confidence, i-1, m.Diagnoses[i-1].Confidence)
		}
	}
}

// TestWeightFixesInsideVLLM: a PyTorch OOM raised inside vLLM's model
// loader gets vLLM's weight fixes (a quantised checkpoint, tensor
// parallelism, CPU offload), never a transformers from_pretrained snippet
// the user cannot apply to `vllm serve`.
func TestWeightFixesInsideVLLM(t *testing.T) {
	rep := build(t, filepath.Join("..", "fixtures", "formats", "vllm-load-torch-oom.log"), rules.Hints{Model: "Qwen/Qwen2.5-72B-Instruct"})
	var ids []string
	for _, d := range rep.Diagnoses {
		if d.Culprit != "weights-too-large" {
			continue
		}
		for _, fx := range d.Fixes {
			ids = append(ids, fx.ID)
			if strings.Contains(fx.Snippet, "from_pretrained") {
				t.Errorf("fix %s offers a transformers snippet inside vLLM: %q", fx.ID, fx.Snippet)
			}
		}
	}
	if len(ids) == 0 || !strings.HasPrefix(ids[0], "vllm-") {
		t.Errorf("weights-too-large fixes %v: want vLLM's first", ids)
	}
}

// TestVLLMShareAlreadyHigh: a command line that already gives vLLM 0.95
// of the device rules out raising it, citing that line.
func TestVLLMShareAlreadyHigh(t *testing.T) {
	rep := build(t, filepath.Join("..", "fixtures", "formats", "tried-vllm-share-095.log"), rules.Hints{})
	for _, d := range rep.Diagnoses {
		for _, fx := range d.Fixes {
			if fx.ID == "raise-gpu-memory-utilization" {
				t.Errorf("%s recommends raising gpu_memory_utilization, which the command line sets to 0.95", d.Culprit)
			}
		}
	}
	x, ok := ineffectiveIDs(rep)["raise-gpu-memory-utilization"]
	if !ok || !x.Tried || x.Line != 1 {
		t.Errorf("raising gpu_memory_utilization: %+v, want it ruled out as tried at line 1", x)
	}
}

// TestContainerLimitFix: a Kubernetes container killed at its limit is
// told to raise the limit in its pod spec, not a Slurm or docker flag.
func TestContainerLimitFix(t *testing.T) {
	rep := build(t, filepath.Join("..", "fixtures", "formats", "kubernetes-exitcode-137.log"), rules.Hints{})
	if len(rep.Diagnoses) == 0 || rep.Diagnoses[0].Culprit != "host-ram" {
		t.Fatalf("diagnoses %+v, want host-ram first", rep.Diagnoses)
	}
	for _, fx := range rep.Diagnoses[0].Fixes {
		if fx.ID == "more-host-memory" {
			if !strings.Contains(fx.Snippet, "limits:") || strings.Contains(fx.Snippet, "SBATCH") {
				t.Errorf("more-host-memory snippet %q, want the pod spec's limits", fx.Snippet)
			}
			return
		}
	}
	t.Errorf("no more-host-memory fix: %+v", rep.Diagnoses[0].Fixes)
}

// TestSchedulerLimitFix: a job a batch scheduler killed at its memory
// limit is told to raise it in that scheduler's words, not another's.
func TestSchedulerLimitFix(t *testing.T) {
	for _, tc := range []struct{ file, want, not string }{
		{"pbs-job-killed-mem.log", "#PBS -l mem=", "SBATCH"},
		{"pbs-job-killed-vmem.log", "#PBS -l vmem=", "SBATCH"},
		{"lsf-term-memlimit.log", "bsub -M", "SBATCH"},
		{"dask-nanny-memory-budget.log", "memory_limit", "SBATCH"},
	} {
		rep := build(t, filepath.Join("..", "fixtures", "formats", tc.file), rules.Hints{})
		if len(rep.Diagnoses) == 0 || rep.Diagnoses[0].Culprit != "host-ram" {
			t.Errorf("%s: diagnoses %+v, want host-ram first", tc.file, rep.Diagnoses)
			continue
		}
		found := false
		for _, fx := range rep.Diagnoses[0].Fixes {
			if fx.ID == "more-host-memory" {
				found = true
				if !strings.Contains(fx.Snippet, tc.want) || strings.Contains(fx.Snippet, tc.not) {
					t.Errorf("%s: more-host-memory snippet %q, want %q and no %q", tc.file, fx.Snippet, tc.want, tc.not)
				}
			}
		}
		if !found {
			t.Errorf("%s: no more-host-memory fix", tc.file)
		}
	}
}
