package parser

import "testing"

func TestStripPrefixes(t *testing.T) {
	rank := func(n int) *int { return &n }
	tests := []struct {
		name, in, text string
		rank           *int
	}{
		{"plain", "torch.OutOfMemoryError: CUDA", "torch.OutOfMemoryError: CUDA", nil},
		{"rank prefix", "[rank3]: Traceback (most recent call last):", "Traceback (most recent call last):", rank(3)},
		{"rank without bracket", "rank4]: torch.OutOfMemoryError: x", "torch.OutOfMemoryError: x", rank(4)},
		{"torchrun tee", "[default0]:Traceback", "Traceback", rank(0)},
		{"tee and rank", "[default3]:[rank3]: boom", "boom", rank(3)},
		{"srun label", "0: step 4 loss 1.2", "step 4 loss 1.2", rank(0)},
		{"mpi tag", "[1,2]<stderr>:boom", "boom", rank(2)},
		{"vllm process tag and level", "(EngineCore_DP0 pid=16388) ERROR 03-01 21:32:52 [core.py:708] ValueError: x", "ValueError: x", nil},
		{"vllm worker rank", "(VllmWorker rank=2 pid=428) boom", "boom", rank(2)},
		{"glog", "E0325 20:57:27.620000 2606 site-packages/torch/api.py:869] failed", "failed", nil},
		{"tensorflow", "2024-07-12 14:40:46.377091: W tensorflow/tsl/framework/bfc_allocator.cc:485] Allocator", "Allocator", nil},
		{"deepspeed", "[2023-04-14 13:10:02,121] [INFO] [utils.py:786:see_memory_usage] MA 12.51 GB", "MA 12.51 GB", nil},
		{"iso and level", "2024-06-17T13:18:29.371622Z ERROR shard-manager: boom", "boom", nil},
		{"iso keeps exception", "2024-06-17 13:18:29 RuntimeError: boom", "RuntimeError: boom", nil},
		{"dmesg", "[ 5403.117934] Out of memory: Killed process 1234 (python)", "Out of memory: Killed process 1234 (python)", nil},
		{"journal", "Mar 11 10:15:33 gpu-node-3 kernel: Memory cgroup out of memory", "Memory cgroup out of memory", nil},
		{"python logging", "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9)", "failed (exitcode: -9)", nil},
		{"quote", "> RuntimeError: x", "RuntimeError: x", nil},
		{"llama.cpp log", "1.06.520.077 E ggml_backend_cuda_buffer_type_alloc_buffer: allocating 51748.72 MiB", "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 51748.72 MiB", nil},
		{"llama.cpp log, long run", "123.59.000.001 W sched_reserve: retrying", "sched_reserve: retrying", nil},
		{"a version is no llama.cpp prefix", "1.06.520.077 ggml", "1.06.520.077 ggml", nil},
		{"nor is a level without its space", "1.06.520.077 Error", "1.06.520.077 Error", nil},
		{"docker compose service", "tabbyapi-1  | 2025-03-14 11:05:29.634 ERROR:    torch.OutOfMemoryError: CUDA out of memory.", "torch.OutOfMemoryError: CUDA out of memory.", nil},
		{"docker compose continuation", "tabbyapi-1  | Tried to allocate 260.00 MiB.", "Tried to allocate 260.00 MiB.", nil},
		{"compose v1 service", "web_1     | Killed", "Killed", nil},
		{"a table is no service", "step-1 |loss", "step-1 |loss", nil},
		{"a name without replica", "model  | 7B", "model  | 7B", nil},
		{"code is not a prefix", "return torch._C._nn.cross_entropy_loss(input)", "return torch._C._nn.cross_entropy_loss(input)", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := stripPrefixes(tc.in)
			if got.text != tc.text {
				t.Errorf("text = %q, want %q", got.text, tc.text)
			}
			if (got.rank == nil) != (tc.rank == nil) || got.rank != nil && *got.rank != *tc.rank {
				t.Errorf("rank = %v, want %v", showInt(got.rank), showInt(tc.rank))
			}
		})
	}
}

func TestStripANSI(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"sgr", "\x1b[0;31mOutOfMemoryError\x1b[0m: x", "OutOfMemoryError: x"},
		{"osc title", "\x1b]0;evil title\x07text", "text"},
		{"osc 52 clipboard", "\x1b]52;c;ZXZpbA==\x1b\\text", "text"},
		{"json-escaped sgr", `\u001b[31mTypeError\u001b[39m`, "TypeError"},
		{"nul bytes", "a\x00b", "ab"},
		{"untouched", "plain", "plain"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(stripANSI([]byte(tc.in))); got != tc.want {
				t.Errorf("stripANSI(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestRawShapeOf: lines of one template (digits aside) share a shape;
// any other byte, its place or the count of bytes tells shapes apart.
func TestRawShapeOf(t *testing.T) {
	same := [][2]string{
		{"step 5 | loss 0.25 | mem 12.00 GB", "step 15 | loss 0.2573 | mem 1.00 GB"},
		{"[rank3]: 2024-01-01 iter 9", "[rank]: -- iter 123456"},
		{"", "0123456789"},
	}
	for _, p := range same {
		if rawShapeOf([]byte(p[0])) != rawShapeOf([]byte(p[1])) {
			t.Errorf("%q and %q: shapes differ, want one", p[0], p[1])
		}
	}
	differ := [][2]string{
		{"step 5 | loss", "step 5 | lost"},
		{"ab", "ba"},
		{"abcdefgh", "abcdefgh "},
		{"abcdefghabcdefgh", "abcdefgh"},
		{"x", "x\x00"},
		{"step 1 INFO memory 2 GB", "step 1 ERROR memory 2 GB"},
	}
	for _, p := range differ {
		if rawShapeOf([]byte(p[0])) == rawShapeOf([]byte(p[1])) {
			t.Errorf("%q and %q: one shape, want two", p[0], p[1])
		}
	}
}

// TestRankStreamIgnoresTheBracket: a rank prefix names its stream by the
// rank alone, so a paste whose first line lost its "[" stays one traceback.
func TestRankStreamIgnoresTheBracket(t *testing.T) {
	want := stripPrefixes("[rank0]: File \"x.py\", line 1").stream
	for _, line := range []string{"rank0]:   File \"x.py\", line 1", "[rank0]:File \"x.py\"", "[rank0]:     x = y"} {
		if got := stripPrefixes(line).stream; got != want {
			t.Errorf("%q: stream %q, want %q", line, got, want)
		}
	}
	if other := stripPrefixes("[rank1]: x").stream; other == want {
		t.Errorf("ranks 0 and 1 share stream %q", other)
	}
}
