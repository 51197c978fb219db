package advice

import (
	"fmt"
	"strings"

	"github.com/oomdoc/oomdoc/parser"
)

func fragmentationFixes(c *fixContext) []Fix {
	if c.f.Ev.Kind == parser.KindXLA {
		if s, ok := c.f.Setting("XLA_PYTHON_CLIENT_PREALLOCATE"); ok && strings.EqualFold(strings.Trim(s.Value, `'"`), "true") {
			return nil // already preallocating: the pool did not grow, so it did not fragment growing
		}
		return []Fix{{
			ID:      "xla-preallocate",
			Title:   "Let XLA preallocate its pool (or give it a fixed fraction)",
			Why:     "A pool allocated up front does not fragment as it grows.",
			Snippet: "export XLA_PYTHON_CLIENT_PREALLOCATE=true\nexport XLA_CLIENT_MEM_FRACTION=.90   # older jax: XLA_PYTHON_CLIENT_MEM_FRACTION",
			Caveat:  "Other processes cannot use the preallocated memory.",
		}}
	}
	name, note := c.env.AllocConfVar()
	fx := Fix{
		ID:      "expandable-segments",
		Title:   "Enable expandable segments",
		Why:     "Segments that grow in place leave no unusable slivers between blocks.",
		Snippet: fmt.Sprintf("export %s=expandable_segments:True   # before Python starts, not inside the script", name),
		Caveat:  "Unsupported on Windows and some ROCm builds (ignored with a warning); tensors then cannot be shared between processes via IPC.",
		Note:    note,
	}
	var cites []fact
	if c.env.allocWarned != nil {
		cites = append(cites, *c.env.allocWarned)
	}
	if py := c.lf.expandableInPython; py != nil {
		fx.Why += fmt.Sprintf(" Line %d sets %s from Python, which only takes effect before CUDA is initialised: export it in the shell instead.", py.Line, py.Token)
		cites = append(cites, *py)
	}
	fx.cites = cites
	if c.fd.Quantities.HolderBytes > 0 {
		fx.SavesBytes = bytesp(c.fd.Quantities.HolderBytes)
		fx.Saving = "up to the " + size(c.fd.Quantities.HolderBytes) + " reserved but unallocated becomes usable"
	}
	return []Fix{fx, {
		ID:      "max-split-size",
		Title:   "Last resort: cap block splitting with max_split_size_mb",
		Why:     "Large cached blocks are no longer split for small requests, so big requests can reuse them.",
		Snippet: fmt.Sprintf("export %s=max_split_size_mb:512", name),
		Caveat:  "Can slow allocation and raise peak memory; ignored with backend:cudaMallocAsync.",
		Note:    note,
		cites:   cites,
	}}
}

func otherProcessFixes(c *fixContext) []Fix {
	smi := "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"
	if c.lf.device == "xpu" {
		smi = "xpu-smi ps"
	} else if c.lf.device == "rocm" {
		smi = "rocm-smi --showpids"
	}
	free := Fix{
		ID:      "free-the-gpu",
		Title:   "Stop the other processes holding the GPU",
		Why:     "Memory another process holds is invisible to this program's allocator and cannot be freed from inside it.",
		Snippet: smi + "\n# stop stale jobs, zombie workers, other notebooks' kernels; kill <pid>",
		Caveat:  "Make sure the process is yours and finished before killing it.",
	}
	if c.fd.Quantities.HolderBytes > 0 {
		free.SavesBytes = bytesp(c.fd.Quantities.HolderBytes)
		free.Saving = size(c.fd.Quantities.HolderBytes) + " held outside this process's allocator"
	}
	out := []Fix{free, {
		ID:      "pick-idle-gpu",
		Title:   "Run on a GPU nobody else uses",
		Why:     "CUDA_VISIBLE_DEVICES hides busy devices from the program.",
		Snippet: "CUDA_VISIBLE_DEVICES=1 python run.py",
		Caveat:  "Needs an idle device.",
	}}
	if c.lf.soleProcess != nil {
		in := Fix{
			ID:      "release-in-process-memory",
			Title:   "Release the memory this process holds outside PyTorch",
			Why:     "No other process holds the device: the memory outside PyTorch's allocator belongs to this program — another library's pool (TensorFlow, JAX, CuPy), CUDA graphs or contexts, or what earlier notebook cells left behind.",
			Snippet: "# in a notebook: restart the kernel (Kernel → Restart), then run only the cells you need\n# in a script: stop other GPU libraries from preallocating, e.g.\nimport os; os.environ[\"XLA_PYTHON_CLIENT_PREALLOCATE\"] = \"false\"  # JAX, before it is imported",
			Caveat:  "A kernel restart loses the notebook's state.",
		}
		if c.fd.Quantities.HolderBytes > 0 {
			in.SavesBytes = bytesp(c.fd.Quantities.HolderBytes)
			in.Saving = size(c.fd.Quantities.HolderBytes) + " held in this process outside PyTorch's allocator"
		}
		out = append([]Fix{in}, out...)
	}
	if c.f.Ev.Kind == parser.KindServing {
		out = append([]Fix{lowerGPUUtilisation()}, out...)
	}
	return out
}

// lowerGPUUtilisation is vLLM's fix for a share of the device that is not
// free at startup.
func lowerGPUUtilisation() Fix {
	return Fix{
		ID:      "lower-gpu-memory-utilization",
		Title:   "Lower --gpu-memory-utilization to what is actually free",
		Why:     "vLLM asks for this fraction of the whole device at startup; it must not exceed the share that is free (another process holds part of it).",
		Snippet: "vllm serve MODEL --gpu-memory-utilization 0.80",
		Caveat:  "A smaller KV cache: fewer concurrent sequences.",
	}
}

func imbalanceFixes(c *fixContext) []Fix {
	return []Fix{{
		ID:      "one-device-per-process",
		Title:   "Give every process its own GPU",
		Why:     "Each worker must select its device before touching CUDA, or they all use cuda:0.",
		Snippet: "local_rank = int(os.environ[\"LOCAL_RANK\"])\ntorch.cuda.set_device(local_rank)\nmodel.to(f\"cuda:{local_rank}\")\n# or launch each worker with CUDA_VISIBLE_DEVICES=<its gpu>",
		Caveat:  "None.",
	}, {
		ID:      "ddp-not-dataparallel",
		Title:   "Use DistributedDataParallel instead of DataParallel",
		Why:     "DataParallel gathers outputs and keeps the master model on GPU 0; DDP balances memory across devices.",
		Snippet: "torchrun --nproc_per_node=4 train.py  # with DistributedDataParallel(model, device_ids=[local_rank])",
		Caveat:  "A launcher and process group to set up.",
	}, mapLocationCPU()}
}

func workspaceFixes(c *fixContext) []Fix {
	if c.f != nil && c.f.Ev.Variant == parser.VariantFlashInferWorkspace {
		return flashInferWorkspaceFixes()
	}
	if c.f != nil && c.f.Ev.Variant == parser.VariantDeepSpeedWorkspace {
		return []Fix{{
			ID:      "room-for-deepspeed-workspace",
			Title:   "Leave DeepSpeed's inference workspace room after the weights",
			Why:     "DeepSpeed's inference kernels size their workspace from what is free once the model is placed, and need at least 100 MiB (500 MiB when more than a GiB is free) to start.",
			Snippet: "# a smaller or half-precision model, or nothing else on the device; or run without DeepSpeed's kernels:\nmodel = deepspeed.init_inference(model, dtype=torch.float16, replace_with_kernel_inject=False)",
			Caveat:  "Without its kernels DeepSpeed inference is slower.",
		}}
	}
	var fs []Fix
	if c.f != nil && (c.f.Ev.Framework == "tensorflow" || c.f.Ev.Kind == parser.KindTF) {
		// TensorFlow's BFC allocator takes nearly the whole device at
		// start-up unless told to grow: cuDNN and cuBLAS then find no room
		// for their handles.
		fs = append(fs, Fix{
			ID:      "tf-memory-growth",
			Title:   "Let TensorFlow grow its GPU memory instead of taking it all",
			Why:     "By default TensorFlow reserves almost all of the device when it starts; cuDNN and cuBLAS, which allocate outside its pool, then cannot create their handles.",
			Snippet: "for gpu in tf.config.list_physical_devices(\"GPU\"):\n    tf.config.experimental.set_memory_growth(gpu, True)   # before any op runs\n# or: export TF_FORCE_GPU_ALLOW_GROWTH=true",
			Caveat:  "Memory other processes take meanwhile is not available to TensorFlow later.",
		})
	}
	return append(fs, []Fix{{
		ID:      "leave-headroom",
		Title:   "Leave headroom for library workspaces",
		Why:     "cuBLAS, cuDNN and NCCL allocate outside PyTorch's tensors; they need a few hundred MiB free when first used.",
		Snippet: "# smaller batch or model, or cap PyTorch's share so libraries keep room:\ntorch.cuda.set_per_process_memory_fraction(0.9)\n# run one tiny forward/backward (and create the process group) before the large allocations",
		Caveat:  "Less memory for tensors.",
	}, {
		ID:      "check-free-memory",
		Title:   "Check free memory right before the failing call",
		Why:     "These library errors are memory only when the device is nearly full.",
		Snippet: "free, total = torch.cuda.mem_get_info(); print(f\"free {free/2**30:.2f} GiB of {total/2**30:.2f} GiB\")",
		Caveat:  "None.",
	}}...)
}

// flashInferWorkspaceFixes are the changes for FlashInfer's fixed
// workspace overflowing: a larger workspace, or fewer sequences per step
// sharing it. Freeing the device is no fix: the device did not run out.
func flashInferWorkspaceFixes() []Fix {
	return []Fix{{
		ID:      "raise-flashinfer-workspace",
		Title:   "Give FlashInfer a larger workspace buffer",
		Why:     "FlashInfer takes its kernels' temporaries from one fixed buffer (vLLM's default is 394 MiB, 413,138,944 bytes); this step needed more of it than was left.",
		Snippet: "# vLLM reads the size in bytes when it starts (1 GiB here):\nexport VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE=$((1024*1024*1024))",
		Caveat:  "The larger buffer comes out of the memory vLLM leaves for the KV cache.",
	}, {
		ID:      "fewer-seqs-per-step",
		Title:   "Schedule fewer sequences per step",
		Why:     "The workspace's temporaries grow with the sequences (and prefill tokens) one step runs; fewer of them fit the workspace as it is.",
		Snippet: "vllm serve MODEL --max-num-seqs 256 --max-num-batched-tokens 8192",
		Caveat:  "Lower throughput under load.",
	}}
}

func allocationLimitFixes(c *fixContext) []Fix {
	return []Fix{{
		ID:      "split-large-tensor",
		Title:   "Keep single tensors under the backend's buffer limit",
		Why:     "The limit applies per buffer: processing in chunks (smaller tiles, prefill chunks, smaller batches) keeps each allocation below it.",
		Snippet: "# chunk the operation, e.g. torch.split(x, n) and process piece by piece;\n# MLX: a smaller prefill_step_size; Intel Arc: keep tensors < 4 GiB",
		Caveat:  "Some chunking is slower.",
	}}
}
