package parser

import (
	"strings"
	"testing"
)

func TestRaisedFailure(t *testing.T) {
	const frames = `Traceback (most recent call last):
  File "/venv/lib/python3.12/site-packages/vllm/v1/core/kv_cache_utils.py", line 1243, in get_kv_cache_configs
    check_enough_kv_cache_memory(vllm_config, spec, available)
  File "/venv/lib/python3.12/site-packages/vllm/v1/core/kv_cache_utils.py", line 699, in check_enough_kv_cache_memory
    raise ValueError("No available memory for the cache blocks. "
                     "Try increasing ` + "`gpu_memory_utilization`" + ` when "
                     "initializing the engine.")
`
	noise := strings.Repeat("INFO step done\n", raisedWindow+1)
	for _, tc := range []struct {
		name      string
		log       string
		events    int
		truncated bool
	}{
		{"cut before the exception line: the raise names it", frames, 1, true},
		{"the exception line follows: one event, from it", frames + "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.\n", 1, false},
		{"the log goes on past the window: no failure", frames + noise, 0, false},
		{"a raise that names no memory failure", strings.ReplaceAll(frames, "No available memory for the cache blocks", "Unsupported dtype"), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Parse(strings.NewReader(tc.log), "in.log")
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Events) != tc.events {
				t.Fatalf("%d events, want %d", len(res.Events), tc.events)
			}
			if tc.events == 0 {
				return
			}
			ev := res.Events[0]
			if ev.Kind != KindServing || ev.Truncated != tc.truncated || len(ev.Frames) != 2 {
				t.Errorf("kind %s, truncated %v, %d frames; want %s, %v, 2", ev.Kind, ev.Truncated, len(ev.Frames), KindServing, tc.truncated)
			}
			if tc.truncated && (ev.Line != 5 || ev.Message != "No available memory for the cache blocks.") {
				t.Errorf("line %d, message %q: want the raise's line 5 and its literal", ev.Line, ev.Message)
			}
		})
	}
}
