package loggen

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Shapes are the adversarial and realistic inputs of the linear-time
// benchmark (issue 15 §1, issue 11 acceptance 3), by name.
var Shapes = []string{"repeated", "distinct", "ranks", "json-escapes", "anchored", "training"}

// torchOOM is a full PyTorch 2.x CUDA OOM with its traceback, as a serving
// engine logs it for each failed request (~1 KB).
const torchOOM = `Traceback (most recent call last):
  File "/app/server.py", line 212, in handle
    out = model.generate(**inputs, max_new_tokens=512)
  File "/opt/venv/lib/python3.11/site-packages/torch/utils/_contextlib.py", line 116, in decorate_context
    return func(*args, **kwargs)
  File "/opt/venv/lib/python3.11/site-packages/transformers/generation/utils.py", line 2255, in generate
    result = self._sample(
  File "/opt/venv/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py", line 1190, in forward
    logits = self.lm_head(hidden_states)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.20 GiB is free. Including non-PyTorch memory, this process has 77.94 GiB memory in use. Of the allocated memory 74.10 GiB is allocated by PyTorch, and 3.17 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
`

// WriteShape writes the named shape, scaled by n (its count of failures,
// ranks or lines; 0 takes the benchmark's default), to w.
func WriteShape(w io.Writer, name string, n int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var err error
	put := func(format string, a ...any) {
		if err == nil {
			_, err = fmt.Fprintf(bw, format, a...)
		}
	}
	def := func(d int) int {
		if n > 0 {
			return n
		}
		return d
	}
	switch name {
	case "repeated": // one request's OOM logged again for every request
		for i := range def(10000) {
			put("INFO 04-01 12:%02d:%02d [server.py:88] request %d failed\n", i/60%60, i%60, i)
			put("%s", torchOOM)
		}
	case "distinct": // a different request size in every OOM line
		for i := range def(1000) {
			put("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %d.%02d MiB. GPU %d has a total capacity of 79.15 GiB of which %d.00 MiB is free. Of the allocated memory 74.10 GiB is allocated by PyTorch, and 3.17 GiB is reserved by PyTorch but unallocated.\n", 100+i, i%100, i%8, 1+i%900)
		}
	case "ranks": // every rank of a large job prints its traceback and OOM
		for r := range def(1024) {
			for _, l := range strings.SplitAfter(strings.Replace(torchOOM, "GPU 0", fmt.Sprintf("GPU %d", r%8), 1), "\n") {
				if l != "" {
					put("[rank%d]: %s", r, l)
				}
			}
		}
	case "json-escapes": // JSON-lines logs whose messages are escape-heavy
		esc := strings.Repeat(`\"x\" \\n`, 125) // 1,000 escapes
		for i := range def(1000) {
			put(`{"ts": %d, "level": "error", "msg": "CUDA out of memory. Tried to allocate 2.00 GiB. %s"}`+"\n", i, esc)
		}
	case "anchored": // every line holds an anchor word, none is a failure
		for i := range def(1 << 20) {
			put("[rank%d]: step %d | memory allocated %d.%02d GiB | max memory reserved 70.00 GiB | Killed workers 0\n", i%8, i, 60+i%10, i%100)
		}
	case "training": // a real run: tqdm redraws, memory figures, warnings, handled tracebacks, one OOM per rank at the end
		steps := def(200000)
		for i := range steps {
			r := i % 8
			switch i % 10 {
			case 0, 1, 2, 3:
				for j := range 6 {
					p := (i + j) % 1000
					put("[rank%d]: Epoch 2:  %2d%%|%-10s| %d/1000 [03:%02d<05:12,  3.%02dit/s, loss=0.%04d]\r", r, p/10, bar(p), p, p%60, p%100, (i*7+j)%10000)
				}
				put("\n")
			case 4, 5, 6:
				put("[rank%d]:[2025-03-25 20:%02d:%02d,%03d] INFO trainer.py:1244 >> step %d | loss 0.%04d | mem_allocated %d.%02d GB | max_memory_reserved 71.%02d GB | tokens/s %d\n", r, i/60%60, i%60, i%1000, i, i%10000, 60+i%10, i%100, i%100, 30000+i%5000)
			case 7:
				put("[rank%d]: /opt/venv/lib/python3.11/site-packages/torch/utils/checkpoint.py:95: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.\n", r)
			case 8:
				put("[rank%d]: W0325 20:57:%02d.%06d 2606 torch/distributed/c10d/ProcessGroupNCCL.cpp:1250] Warning: memory pool of stream %d grew to %d MiB\n", r, i%60, i%999999, i%4, 512+i%512)
			default:
				put("[rank%d]: Traceback (most recent call last):\n[rank%d]:   File \"/app/data.py\", line 77, in __getitem__\n[rank%d]:     img = Image.open(path)\n[rank%d]: FileNotFoundError: [Errno 2] No such file or directory: '/data/img_%07d.jpg' (skipped)\n", r, r, r, r, i)
			}
		}
		for r := range 8 {
			for _, l := range strings.SplitAfter(strings.Replace(torchOOM, "GPU 0", fmt.Sprintf("GPU %d", r), 1), "\n") {
				if l != "" {
					put("[rank%d]: %s", r, l)
				}
			}
		}
	default:
		return fmt.Errorf("loggen: no shape %q (have %s)", name, strings.Join(Shapes, ", "))
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}
