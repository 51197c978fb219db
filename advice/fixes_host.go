package advice

import (
	"strings"

	"github.com/oomdoc/oomdoc/parser"
)

func vaeFixes(c *fixContext) []Fix {
	return []Fix{{
		ID:      "vae-tiling",
		Title:   "Decode in tiles",
		Why:     "Tiled decoding processes the latent in overlapping tiles, so the peak no longer grows with the full image size.",
		Snippet: "pipe.enable_vae_tiling()     # diffusers\n# stable-diffusion.cpp: --vae-tiling   ComfyUI: \"VAE Decode (Tiled)\"",
		Caveat:  "Slower decode; rare seams at tile borders.",
	}, {
		ID:      "vae-slicing",
		Title:   "Decode one image of the batch at a time",
		Why:     "Slicing decodes images sequentially instead of the whole batch at once.",
		Snippet: "pipe.enable_vae_slicing()",
		Caveat:  "Slower for large batches.",
	}}
}

func hostFixes(c *fixContext) []Fix {
	if strings.Contains(c.f.Ev.Signal, "Bus error") {
		return []Fix{{
			ID:      "raise-shm",
			Title:   "Give the container more shared memory, or use fewer DataLoader workers",
			Why:     "Workers pass batches through /dev/shm; Docker's default is 64 MB.",
			Snippet: "docker run --shm-size=16g ...   # or --ipc=host\nDataLoader(ds, num_workers=2)",
			Caveat:  "Fewer workers can slow data loading.",
		}}
	}
	limitWhy := "The kernel or the batch system killed the process at its memory limit."
	if c.f.Ev.Kind == parser.KindCPU {
		// An allocator's refusal (DefaultCPUAllocator, NumPy's
		// _ArrayMemoryError, MemoryError): nothing was killed.
		limitWhy = "The allocation was refused at the machine's (or the container's) memory limit."
	}
	return []Fix{{
		ID:      "reduce-host-memory",
		Title:   "Lower host-RAM peaks: fewer workers, memory-mapped loading, no full CPU copies",
		Why:     "Each DataLoader worker holds its own copy of the dataset object; loading a checkpoint fully into RAM doubles the model's size at load time.",
		Snippet: "DataLoader(ds, num_workers=2)\nstate = torch.load(path, map_location=\"cpu\", mmap=True)\nmodel = AutoModel.from_pretrained(model_id, low_cpu_mem_usage=True)",
		Caveat:  "Fewer workers can slow data loading.",
	}, {
		ID:      "more-host-memory",
		Title:   "Raise the memory limit (job, container) or add swap",
		Why:     limitWhy,
		Snippet: "#SBATCH --mem=64G     # SLURM\ndocker run --memory=64g ...",
		Caveat:  "Swap is slow.",
	}}
}

func mpsFixes(c *fixContext) []Fix {
	return []Fix{{
		ID:      "shrink-mps-workload",
		Title:   "Shrink the workload: a smaller model, lower resolution or batch",
		Why:     "GPU and CPU share the Mac's RAM; the cap protects the whole system.",
		Snippet: "# e.g. a smaller or quantised model, batch_size=1, lower image resolution",
		Caveat:  "Lower quality or throughput.",
	}, {
		ID:      "mps-high-watermark",
		Title:   "Raise the MPS cap with PYTORCH_MPS_HIGH_WATERMARK_RATIO",
		Why:     "The ratio scales the cap on MPS allocations; 0.0 removes it.",
		Snippet: "export PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0   # no cap",
		Caveat:  "Without a cap the system can swap heavily or freeze; save your work first.",
	}}
}
