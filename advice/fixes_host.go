package advice

import (
	"strings"

	"github.com/oomdoc/oomdoc/parser"
)

func vaeFixes(c *fixContext) []Fix {
	fixes := []Fix{{
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
	if c.lf.vaeTiling != nil {
		// Already tiling: each tile's decode is what must fit.
		fixes = append([]Fix{{
			ID:      "smaller-vae-tiles",
			Title:   "Use smaller VAE tiles",
			Why:     "With tiled decoding each tile is decoded on its own; the decoder tile size sets the peak.",
			Snippet: "# Tiled VAE: a lower \"Decoder Tile Size\" (e.g. 96 or 64) in the extension's panel",
			Caveat:  "Slower decode; more seams to blend.",
		}}, fixes...)
	}
	return fixes
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
	if c.f.Ev.Variant == "windows-commit-limit" {
		return windowsCommitFixes()
	}
	if strings.HasPrefix(c.f.Ev.Variant, "yarn-") {
		return yarnFixes(c.f.Ev.Variant == "yarn-virtual-memory-limit")
	}
	limitWhy := "The kernel or the batch system killed the process at its memory limit."
	if c.f.Ev.Kind == parser.KindCPU {
		// An allocator's refusal (DefaultCPUAllocator, NumPy's
		// _ArrayMemoryError, MemoryError): nothing was killed.
		limitWhy = "The allocation was refused at the machine's (or the container's) memory limit."
	}
	reduce := Fix{
		ID:      "reduce-host-memory",
		Title:   "Lower host-RAM peaks: fewer workers, memory-mapped loading, no full CPU copies",
		Why:     "Each DataLoader worker holds its own copy of the dataset object; loading a checkpoint fully into RAM doubles the model's size at load time.",
		Snippet: "DataLoader(ds, num_workers=2)\nstate = torch.load(path, map_location=\"cpu\", mmap=True)\nmodel = AutoModel.from_pretrained(model_id, low_cpu_mem_usage=True)",
		Caveat:  "Fewer workers can slow data loading.",
	}
	if c.f.Ev.Phase == parser.PhaseLoad {
		// Killed while loading: the loader's peak, not the workers'.
		reduce.Title = "Lower the loading peak: 16-bit, shard by shard, straight to the GPU"
		reduce.Why = "A checkpoint loaded whole into RAM, or upcast to float32 there, needs several times the model's 16-bit size at once; loading it shard by shard in its own dtype, onto the GPU, keeps RAM near one shard."
		reduce.Snippet = "model = AutoModel.from_pretrained(model_id, torch_dtype=\"auto\", low_cpu_mem_usage=True, device_map=\"auto\")\nstate = torch.load(path, map_location=\"cpu\", mmap=True)   # a plain checkpoint"
		reduce.Caveat = "device_map=\"auto\" needs accelerate, and spills to CPU RAM what the GPU cannot hold."
	}
	more := Fix{
		ID:      "more-host-memory",
		Title:   "Raise the memory limit (job, container) or add swap",
		Why:     limitWhy,
		Snippet: "#SBATCH --mem=64G     # SLURM\ndocker run --memory=64g ...",
		Caveat:  "Swap is slow.",
	}
	switch c.f.Ev.Framework {
	case "kubernetes":
		// the kill was the container's cgroup limit, set in the pod spec
		more.Title = "Raise the container's memory limit in the pod spec"
		more.Snippet = "resources:\n  limits:\n    memory: 64Gi   # the container's spec; requests.memory too, so the scheduler places it on a node that has it"
		more.Caveat = "Needs a node with that much memory free."
	case "slurm":
		more.Snippet = "#SBATCH --mem=64G     # or --mem-per-cpu; sacct -j JOBID -o MaxRSS shows what the job reached"
	case "pbs":
		more.Title, more.Caveat = "Raise the job's memory request", "A larger request may wait longer in the queue."
		more.Snippet = "#PBS -l mem=64gb      # or -l select=1:ncpus=8:mem=64gb (PBS Pro); qstat -f JOBID shows resources_used.mem"
		if c.f.Ev.Variant == "pbs-virtual-memory-limit" {
			more.Snippet = "#PBS -l vmem=64gb     # the kill was for virtual memory, which CUDA and JVMs reserve far beyond what they touch"
		}
	case "lsf":
		more.Title, more.Caveat = "Raise the job's memory limit", "A larger request may wait longer in the queue."
		more.Snippet = "bsub -M 64G -R \"rusage[mem=64G]\" ...   # -M is the limit LSF kills at; bjobs -l JOBID shows MAX MEM"
	case "colab":
		more.Title = "Use a runtime with more RAM, or lower the peak"
		more.Snippet = "Runtime → Change runtime type → High-RAM (Colab Pro), or a larger machine\n# the notebook's peak is what counts: free what earlier cells hold (del x; gc.collect())"
		more.Caveat = "High-RAM runtimes need a paid plan."
	case "docker":
		more.Title = "Raise the container's memory limit"
		more.Snippet = "docker run --memory=64g --memory-swap=64g ...   # compose: mem_limit: 64g; docker stats shows the use"
		more.Caveat = "Needs that much memory free on the host."
	case "systemd":
		more.Title = "Raise the service's memory limit, or free the machine's memory"
		more.Snippet = "systemctl edit UNIT     # [Service] MemoryMax=64G (or infinity); systemctl show UNIT -p MemoryMax shows the limit\njournalctl -u UNIT -k   # the kernel's oom-kill lines name what was killed and its RSS"
		more.Caveat = "Without a MemoryMax= on the unit the limit was the machine's: then add RAM or swap, or lower the peak."
	case "dask":
		more.Title = "Give each Dask worker more memory, or fewer threads"
		more.Snippet = "LocalCluster(n_workers=2, threads_per_worker=2, memory_limit=\"8GB\")   # or dask worker --memory-limit 8GB"
		more.Caveat = "Fewer workers fit on the machine."
	}
	return []Fix{reduce, more}
}

// windowsCommitFixes are the fixes for Windows' commit limit (error 1455,
// "the paging file is too small"): every process's reserved memory counts
// against RAM plus the paging file, and each spawned worker re-imports
// torch and maps its CUDA DLLs anew.
func windowsCommitFixes() []Fix {
	return []Fix{{
		ID:      "larger-paging-file",
		Title:   "Enlarge the Windows paging file (or let Windows manage its size)",
		Why:     "Windows refuses memory once every process's commitments exceed RAM plus the paging file, even with RAM still free; CUDA libraries commit gigabytes each time they are loaded.",
		Snippet: "System Properties → Advanced → Performance Settings → Advanced → Virtual memory → Change…\n# \"System managed size\" on the drive with free space, or a custom size of 1.5–2× RAM; then reboot",
		Caveat:  "Needs free disk space and a reboot.",
	}, {
		ID:      "fewer-spawned-workers",
		Title:   "Start fewer worker processes",
		Why:     "On Windows each DataLoader worker (or multiprocessing child) is spawned anew and loads torch and its CUDA DLLs again, each committing its own share.",
		Snippet: "DataLoader(ds, num_workers=2)   # or 0 while debugging",
		Caveat:  "Fewer workers can slow data loading.",
	}}
}

// yarnFixes are the fixes for a container YARN killed at its limit (a
// Spark executor): the limit is the executor's memory plus its overhead,
// and native memory — Python workers, off-heap buffers, a CUDA context —
// counts against the overhead; a virtual-memory kill counts reserved
// address space, which JVMs and CUDA reserve far beyond what they touch.
func yarnFixes(virtual bool) []Fix {
	overhead := Fix{
		ID:      "raise-executor-overhead",
		Title:   "Raise the executor's memory overhead (or its memory)",
		Why:     "YARN kills a container whose memory passes the executor's heap plus its overhead; memory outside the JVM heap (Python workers, native and off-heap buffers, a CUDA context) all counts against the overhead.",
		Snippet: "spark-submit --conf spark.executor.memoryOverhead=4g --conf spark.executor.memory=8g ...\n# Spark before 2.3: spark.yarn.executor.memoryOverhead",
		Caveat:  "Fewer executors fit on each node.",
	}
	if !virtual {
		return []Fix{overhead}
	}
	return []Fix{{
		ID:      "relax-yarn-vmem-check",
		Title:   "Relax YARN's virtual-memory check",
		Why:     "The container was killed for reserved address space, not for memory in use: JVMs, Python and CUDA reserve far more virtual memory than they touch, and YARN's check multiplies only the physical limit by vmem-pmem-ratio (2.1 by default).",
		Snippet: "# yarn-site.xml on the NodeManagers\nyarn.nodemanager.vmem-check-enabled = false\n# or: yarn.nodemanager.vmem-pmem-ratio = 5",
		Caveat:  "Needs the cluster's configuration; the physical-memory check still applies.",
	}, overhead}
}

func mpsFixes(c *fixContext) []Fix {
	fixes := []Fix{{
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
	if c.f.Ev.Framework != "pytorch" && c.f.Ev.Framework != "" {
		return fixes[:1] // the watermark is PyTorch's; MLX's limit already relaxes into swap
	}
	return fixes
}
