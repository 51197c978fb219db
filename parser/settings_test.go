package parser

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/fixtures"
)

// TestSettingsFromContext reads the settings a log prints near its
// failure: keyword arguments and config lines, and a serving engine's
// command-line flags with their value after a space.
func TestSettingsFromContext(t *testing.T) {
	const oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 31.74 GiB of which 1.02 GiB is free.\n"
	for _, tc := range []struct {
		name string
		line string
		want []string
	}{
		{"keyword arguments", `model = AutoModel.from_pretrained(name, torch_dtype=torch.float16, device_map="auto")`, []string{"torch_dtype=torch.float16", "device_map=auto"}},
		{"a vLLM command line", `python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen1.5-14B-Chat --dtype half --gpu-memory-utilization 0.95 --max-model-len 8192`, []string{"dtype=half", "gpu_memory_utilization=0.95", "max_model_len=8192"}},
		{"a flag with = still reads once", `vllm serve M --gpu-memory-utilization=0.9`, []string{"gpu_memory_utilization=0.9"}},
		{"a flag followed by another flag has no value", `vllm serve M --dtype --max-num-seqs 8`, []string{"max_num_seqs=8"}},
		{"an exported JAX allocator switch", `+ export XLA_PYTHON_CLIENT_PREALLOCATE=false`, []string{"XLA_PYTHON_CLIENT_PREALLOCATE=false"}},
		{"a JAX switch a hint only names", `If you run out of memory, try XLA_PYTHON_CLIENT_PREALLOCATE=false`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Parse(strings.NewReader(tc.line+"\n"+oom), "in.log")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range res.Context.Settings {
				got = append(got, s.Name+"="+s.Value)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("settings %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAssigns: the gate before reSetting and reModelFlag finds a name
// assigned with "=" or ":" after a word's start, as the patterns read it.
func TestAssigns(t *testing.T) {
	settings := nameSet(settingNames())
	for _, tc := range []struct {
		text string
		want bool
	}{
		{`processor(max_pixels=768*768)`, true},
		{`{"torch_dtype": "float32"}`, true},
		{`--max-model-len=4096`, true},
		{`x-batch_size: 8`, true},
		{`	height	= 1024`, true},
		{`args.batch_size=4`, false}, // no word start before the name
		{`my_batch_size=4`, false},   // part of a longer name
		{`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation`, false}, // after "="
		{`batch = next(iter(loader))`, false},                                              // a variable that holds a name's part
		{`the batch_size is 8`, false},                                                     // no assignment
	} {
		if got := assigns(tc.text, settings); got != tc.want {
			t.Errorf("assigns(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
	models := nameSet(modelKeys())
	for _, tc := range []struct {
		text string
		want bool
	}{
		{`cfg.model_name_or_path='meta-llama/Llama-2-7b-hf'`, true}, // after any byte not a word's, as \b
		{`[model_id="org/name"]`, true},
		{`model_args.model_path: "org/name"`, true},
		{`mymodel_id="org/name"`, false},
		{`model.generate(**inputs)`, false},
	} {
		if got := assignsKey(tc.text, models); got != tc.want {
			t.Errorf("assignsKey(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestAssignsNeverHidesAMatch: on every line of every fixture, a line the
// setting or model-id pattern reads passes the gate in front of it.
func TestAssignsNeverHidesAMatch(t *testing.T) {
	settings, models := nameSet(settingNames()), nameSet(modelKeys())
	lines := 0
	for _, path := range fixtures.Paths(filepath.Join("..", "fixtures")) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			lines++
			if reSetting.MatchString(line) && !assigns(line, settings) {
				t.Errorf("%s: the setting gate hides %q", path, line)
			}
			if m := reModelFlag.FindStringSubmatch(line); m != nil && !strings.Contains(line, "--model") && !strings.Contains(line, "vllm serve") && !assignsKey(line, models) {
				t.Errorf("%s: the model-id gate hides %q", path, line)
			}
		}
	}
	if lines < 1000 {
		t.Fatalf("read %d fixture lines, want the whole fixture tree", lines)
	}
}
