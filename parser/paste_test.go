package parser

import (
	"strings"
	"testing"
)

// TestReshapedMessages: messages a paste or a person reshaped read as the
// original — wrapped before a clause, split mid-word, a continuation that
// lost its rank prefix, a backslash continuation, retyped in lower case
// without parentheses — and a message cut before its last clause is
// flagged truncated.
func TestReshapedMessages(t *testing.T) {
	for _, tc := range []struct {
		name, log  string
		req, total int64 // 0: not expected
		truncated  bool
	}{
		{"wrap before the clause", "RuntimeError: CUDA out of memory.\nTried to allocate 20.00 MiB (GPU 0; 4.00 GiB total capacity; 3.10 GiB already allocated; 1.50 MiB free; 3.20 GiB reserved in total by PyTorch)\n", 20 << 20, 4 << 30, false},
		{"word split by the wrap", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capac\nity of 24.00 GiB of which 1.00 GiB is free. Of the allocated memory 21.00 GiB is allocated by PyTorch, and 300.00 MiB is reserved by PyTorch but unallocated.\n", 2 << 30, 24 << 30, false},
		{"continuation without the rank prefix", "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 24.00 GiB of which 1.00 GiB is free.\nOf the allocated memory 21.00 GiB is allocated by PyTorch, and 300.00 MiB is reserved by PyTorch but unallocated.\n", 2 << 30, 24 << 30, false},
		{"backslash continuation", "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 24.00 GiB total \\\ncapacity; 21.00 GiB already allocated; 10.00 MiB free; 22.00 GiB reserved in total by PyTorch)\n", 2 << 30, 24 << 30, false},
		{"retyped by hand", "runtimeerror: cuda out of memory. tried to allocate 20.00 mib gpu 0; 4.00 gib total capacity; 3.10 gib already allocated; 1.50 mib free; 3.20 gib reserved in total by pytorch\n", 20 << 20, 4 << 30, false},
		{"retyped with a comma, spaces lost", "cuda out of memory, tried to allocate 50MiB(GPU 0; 1.96GiB totalcapacity;1.33GiB already allocated; 43.5MiB free;1.36 GiB reserved in total by Pytorch)\n", 50 << 20, 2104533975, false},
		{"cut before the last clause", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 24.00 GiB of which 1.00 GiB is free.\n", 2 << 30, 24 << 30, true},
		{"the sentence alone", "RuntimeError: CUDA out of memory.\n", 0, 0, true},
	} {
		res, err := Parse(strings.NewReader(tc.log), "x")
		if err != nil || len(res.Events) != 1 {
			t.Errorf("%s: %d events, err %v", tc.name, len(res.Events), err)
			continue
		}
		ev := res.Events[0]
		got := func(p *int64) int64 {
			if p == nil {
				return 0
			}
			return *p
		}
		if got(ev.RequestedBytes) != tc.req || got(ev.TotalBytes) != tc.total || ev.Truncated != tc.truncated || ev.Kind != KindCUDA {
			t.Errorf("%s: kind %s requested %d total %d truncated %v; want %d %d %v\nmessage %q", tc.name, ev.Kind, got(ev.RequestedBytes), got(ev.TotalBytes), ev.Truncated, tc.req, tc.total, tc.truncated, ev.Message)
		}
	}
}

// TestSplitWord: only the halves of a message word are rejoined.
func TestSplitWord(t *testing.T) {
	for _, tc := range []struct {
		prev, next string
		want       bool
	}{
		{"GPU 0 has a total capac", "ity of 24.00 GiB", true},
		{"Tried to alloc", "ate 2.00 GiB", true},
		{"2.00 Gi", "B. GPU 0", true},
		{"GPU 0 has a total", "capacity of", false},
		{"the model", "is loaded", false},
		{"Of the allocated memory 4", "0.30 GiB is allocated by PyTorch", true},
		{"Of the allocated memory 4", ".30 GiB is allocated", true},
		{"step 4", "2 of 10", false},
		{"epoch 4", "0.30 loss", false},
	} {
		if got := splitWord(tc.prev, tc.next); got != tc.want {
			t.Errorf("splitWord(%q, %q) = %v, want %v", tc.prev, tc.next, got, tc.want)
		}
	}
}

// TestPendingOrderDeterministic: two failures still pending on one
// physical line (split by \r) at the end of input are numbered the same
// way on every run, never in map order (issue 15 §6).
func TestPendingOrderDeterministic(t *testing.T) {
	log := "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 24.00 GiB of which 1.00 GiB is free.\r[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 1 has a total capacity of 24.00 GiB of which 1.00 GiB is free."
	first := ""
	for range 40 {
		res, err := Parse(strings.NewReader(log), "x")
		if err != nil || len(res.Events) != 2 {
			t.Fatalf("%d events, err %v", len(res.Events), err)
		}
		got := resultJSON(t, res)
		if first == "" {
			first = got
		} else if got != first {
			t.Fatalf("runs differ:\n%s\n%s", first, got)
		}
	}
}

// TestHeaderOnlyNotebook: a notebook's exception header naming a memory
// error, whose message was not pasted, is the failure when nothing else
// failed; with the message present, the message is the event.
func TestHeaderOnlyNotebook(t *testing.T) {
	head := "OutOfMemoryError                          Traceback (most recent call last)\nCell In[5], line 3\n      1 x = torch.randn(1 << 16, 1 << 16, device='cuda')\n----> 3 y = x @ x\n"
	res, err := Parse(strings.NewReader(head), "x")
	if err != nil || len(res.Events) != 1 || res.Events[0].Kind != KindCUDA || !res.Events[0].Truncated || res.Events[0].Exception != "OutOfMemoryError" {
		t.Fatalf("header only: %+v, err %v", res.Events, err)
	}
	res, _ = Parse(strings.NewReader(head+"\n"+oomLine), "x")
	if len(res.Events) != 1 || res.Events[0].Detection.Family != "torch-allocator" {
		t.Fatalf("with the message: %+v", res.Events)
	}
}

// TestHostKillForms: a kill notice glued to a progress bar and one printed
// in the user's language are host kills.
func TestHostKillForms(t *testing.T) {
	for _, log := range []string{
		"100%|██████████| 10/10 [00:05<00:00,  1.9it/s][1]    48213 killed     python train.py\n",
		"Epoch 1:  40%|████      | 4/10 [00:05<00:07]zsh: killed     python train.py\n",
		"Loading checkpoint shards:  50%|█████     | 1/2 [00:09<00:09]Killed\n",
		"Getötet\n",
		"已杀死\n",
		"Убито\n",
	} {
		res, err := Parse(strings.NewReader(log), "x")
		if err != nil || len(res.Events) != 1 || res.Events[0].Kind != KindHostKill {
			t.Errorf("%q: %+v, err %v", log, res.Events, err)
		}
	}
}

// TestHostAndLimitForms: host-memory refusals and per-buffer limits that
// have families of their own.
func TestHostAndLimitForms(t *testing.T) {
	for _, tc := range []struct{ log, kind, device string }{
		{"OSError: [Errno 12] Cannot allocate memory\n", KindCPU, "cpu"},
		{"bash: fork: Cannot allocate memory\n", KindCPU, "cpu"},
		{"Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\n    x = [0] * (1 << 40)\nMemoryError\n", KindCPU, "cpu"},
		{"ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).\n", KindHostKill, "cpu"},
		{"Process finished with exit code 137 (interrupted by signal 9: SIGKILL)\n", KindHostKill, "cpu"},
		{"RuntimeError: Invalid buffer size: 12.00 GB\n", KindMPS, "mps"},
		{"RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`\n", KindCUBLAS, "cuda"},
	} {
		res, err := Parse(strings.NewReader(tc.log), "x")
		if err != nil || len(res.Events) != 1 || res.Events[0].Kind != tc.kind || res.Events[0].Device == nil || res.Events[0].Device.Type != tc.device {
			t.Errorf("%q: %+v, err %v", tc.log, res.Events, err)
		}
	}
}

// TestUnFence: Markdown code-fence residue goes, inline code stays.
func TestUnFence(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Killed`", "Killed"},
		{"Killed```", "Killed"},
		{"```Traceback (most recent call last):", "Traceback (most recent call last):"},
		{"`RuntimeError: CUDA out of memory.", "RuntimeError: CUDA out of memory."},
		{"set `max_split_size_mb` to avoid fragmentation", "set `max_split_size_mb` to avoid fragmentation"},
		{"see `torch.cuda.memory_summary()`", "see `torch.cuda.memory_summary()`"},
		{"no backtick here", "no backtick here"},
		{"```", ""},
	} {
		if got := unFence(tc.in); got != tc.want {
			t.Errorf("unFence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
