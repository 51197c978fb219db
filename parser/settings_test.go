package parser

import (
	"reflect"
	"strings"
	"testing"
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
