// Package loggen writes realistic, deterministic multi-rank training logs
// of any size for oomdoc's benchmarks and scale tests: tqdm progress bars
// redrawn with \r, timestamped logger lines with [rankN]: prefixes,
// warnings, handled non-OOM tracebacks, and at the end one CUDA OOM with its
// traceback per rank.
package loggen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
)

// Options shape a generated log.
type Options struct {
	Size  int64  // bytes of body before the final failures
	Ranks int    // ranks that print, and that fail at the end
	Seed  uint64 // same seed, same log
}

// Write writes the log to w.
func Write(w io.Writer, o Options) error {
	if o.Ranks < 1 {
		o.Ranks = 1
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	r := rand.New(rand.NewPCG(o.Seed, 0x6f6f6d))
	var n int64
	count := func(k int, err error) error {
		n += int64(k)
		return err
	}
	step := 0
	for n < o.Size {
		rank := r.IntN(o.Ranks)
		var err error
		switch k := r.IntN(100); {
		case k < 40:
			// a tqdm bar redrawn several times on one physical line
			for j := 0; j < 8 && err == nil; j++ {
				p := (step*8 + j) % 1000
				err = count(fmt.Fprintf(bw, "[rank%d]: Epoch 2:  %2d%%|%-10s| %d/1000 [03:%02d<05:12,  3.%02dit/s, loss=%.4f]\r", rank, p/10, bar(p), p, p%60, p%100, 2*r.Float64()))
			}
			err = count(fmt.Fprint(bw, "\n"))
		case k < 80:
			step++
			err = count(fmt.Fprintf(bw, "[rank%d]:[2025-03-25 20:%02d:%02d,%03d] INFO trainer.py:%d >> step %d | loss %.4f | lr %.2e | grad_norm %.3f | tokens/s %d\n",
				rank, step/60%60, step%60, step%1000, 1200+r.IntN(50), step, 2*r.Float64(), 3e-4*r.Float64(), r.Float64()*4, 30000+r.IntN(5000)))
		case k < 92:
			err = count(fmt.Fprintf(bw, "[rank%d]: /opt/venv/lib/python3.11/site-packages/torch/utils/checkpoint.py:%d: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.\n", rank, 90+r.IntN(10)))
		case k < 97:
			err = count(fmt.Fprintf(bw, "[rank%d]: W0325 20:57:%02d.%06d 2606 torch/distributed/c10d/ProcessGroupNCCL.cpp:1250] Warning: collective took %dms\n", rank, step%60, r.IntN(999999), r.IntN(900)))
		default:
			err = count(fmt.Fprintf(bw, "[rank%d]: Traceback (most recent call last):\n[rank%d]:   File \"/app/data.py\", line 77, in __getitem__\n[rank%d]:     img = Image.open(path)\n[rank%d]: FileNotFoundError: [Errno 2] No such file or directory: '/data/img_%07d.jpg' (skipped)\n", rank, rank, rank, rank, r.IntN(9999999)))
		}
		if err != nil {
			return err
		}
	}
	for rank := range o.Ranks {
		fmt.Fprintf(bw, "[rank%d]: Traceback (most recent call last):\n[rank%d]:   File \"/app/train.py\", line 212, in <module>\n[rank%d]:     loss.backward()\n[rank%d]:   File \"/opt/venv/lib/python3.11/site-packages/torch/_tensor.py\", line 626, in backward\n[rank%d]:     torch.autograd.backward(\n", rank, rank, rank, rank, rank)
		fmt.Fprintf(bw, "[rank%d]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU %d has a total capacity of 79.10 GiB of which 1.25 GiB is free. Including non-PyTorch memory, this process has 77.84 GiB memory in use. Of the allocated memory 74.02 GiB is allocated by PyTorch, and 2.91 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\n", rank, rank%8)
	}
	return bw.Flush()
}

func bar(p int) string {
	full := p / 100
	s := ""
	for i := 0; i < full; i++ {
		s += "█"
	}
	return s
}
