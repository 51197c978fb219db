package parser

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
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

// TestAssigns: the gate before settingsIn and reModelFlag finds a name
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
			if len(settingsIn(line, settings, 1)) > 0 && !assigns(line, settings) {
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

// settingPattern is the regular expression settingsIn reads without
// compiling: the reference its tests hold it to.
func settingPattern() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s(,{"'-])(` + strings.Join(settingNames(), "|") + `)["']?\s*[=:]\s*["']?([^,)\s"'}]+)`)
}

// settingsByPattern is what settingPattern finds, in settingsIn's form.
func settingsByPattern(re *regexp.Regexp, text string, n int) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(text, n) {
		out = append(out, m[1]+"="+m[2])
	}
	return out
}

// settingsFound is settingsIn's result as name=value strings.
func settingsFound(text string, names map[string]bool, n int) []string {
	var out []string
	for _, s := range settingsIn(text, names, n) {
		out = append(out, s.name+"="+s.value)
	}
	return out
}

// TestSettingsIn reads the settings of small lines, each shape once.
func TestSettingsIn(t *testing.T) {
	names := nameSet(settingNames())
	for _, tc := range []struct {
		text string
		want []string
	}{
		{`processor(max_pixels=768*768, min_pixels=256*28*28)`, []string{"max_pixels=768*768", "min_pixels=256*28*28"}},
		{`{"torch_dtype": "float32", 'device_map': 'auto'}`, []string{"torch_dtype=float32", "device_map=auto"}},
		{`--max-model-len=4096`, []string{"max-model-len=4096"}},
		{`batch_size=8`, []string{"batch_size=8"}},    // at the line's start
		{`-batch_size=8`, []string{"batch_size=8"}},   // after a dash at offset 0
		{`x-batch_size: 8`, []string{"batch_size=8"}}, // after a dash inside a word
		{`height = 1024, width = 768`, []string{"height=1024", "width=768"}},
		{`args.batch_size=4`, nil},                                    // no word start before it
		{`my_batch_size=4`, nil},                                      // part of a longer name
		{`batch_size-x=4`, nil},                                       // a longer name after it
		{`num_beams=""`, nil},                                         // no value
		{`num_beams= , use_cache=False`, []string{"use_cache=False"}}, // the first has no value
		{`height:512,width:512,height:64`, []string{"height=512", "width=512", "height=64"}},
	} {
		if got := settingsFound(tc.text, names, 8); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("settingsIn(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestSettingsInEqualsThePattern: on every line of every fixture and on
// lines made to sit at the pattern's edges, settingsIn reads what the
// regular expression it replaces reads.
func TestSettingsInEqualsThePattern(t *testing.T) {
	re, names := settingPattern(), nameSet(settingNames())
	var lines []string
	for _, path := range fixtures.Paths(filepath.Join("..", "fixtures")) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(data), "\n")...)
	}
	for _, name := range settingNames() {
		for _, shape := range []string{"N=1", " N = '2' ", "(N:3)", "{\"N\": \"x\"}", "aN=4", "-N=\t5,N=6", "N-N=7", "N= ", "'N'=''"} {
			lines = append(lines, strings.ReplaceAll(shape, "N", name))
		}
	}
	for _, line := range lines {
		for _, n := range []int{1, 8} {
			if got, want := settingsFound(line, names, n), settingsByPattern(re, line, n); !reflect.DeepEqual(got, want) {
				t.Errorf("settingsIn(%q, %d) = %q, the pattern reads %q", line, n, got, want)
			}
		}
	}
}

// FuzzSettingsIn holds settingsIn to the pattern it replaces on any text.
func FuzzSettingsIn(f *testing.F) {
	for _, s := range []string{`processor(max_pixels=768*768)`, `{"torch_dtype": "float32"}`, `--max-model-len=4096`, `x-batch_size: 8 height=1`, "dtype=\xff\xfe", `num_beams=""`} {
		f.Add(s)
	}
	re, names := settingPattern(), nameSet(settingNames())
	f.Fuzz(func(t *testing.T, line string) {
		for _, n := range []int{1, 8} {
			if got, want := settingsFound(line, names, n), settingsByPattern(re, line, n); !reflect.DeepEqual(got, want) {
				t.Errorf("settingsIn(%q, %d) = %q, the pattern reads %q", line, n, got, want)
			}
		}
	})
}
