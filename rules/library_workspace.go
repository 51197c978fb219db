package rules

import "github.com/oomdoc/oomdoc/parser"

// libraryWorkspace: a cuDNN, cuBLAS or NCCL handle or workspace could not
// be allocated — the device was already full when the library asked.
func libraryWorkspace() Culprit {
	return Culprit{
		ID:        "library-workspace",
		Title:     "A cuDNN / cuBLAS / NCCL workspace or handle could not be allocated",
		Doc:       "Math and communication libraries allocate handles and workspaces outside the framework's tensors, often lazily on first use. When the device is already full they fail with their own status codes instead of a clean out-of-memory message. The fix is headroom: less resident memory, or creating the handles (a warm-up call) before the big allocations.",
		Recognise: "CUBLAS_STATUS_ALLOC_FAILED, CUDNN_STATUS_* (INTERNAL_ERROR and NOT_INITIALIZED are often memory), NCCL's \"Cuda failure 2 'out of memory'\".",
		Excludes:  []string{parser.KindHostKill, parser.KindCPU, parser.KindMPS},
		Signals: []Signal{
			{Name: libCUBLAS, Strength: EvidenceSignal, Start: 2.5, Doc: "cuBLAS reports an allocation failure"},
			{Name: libCUDNN, Strength: EvidenceSignal, Start: 2.0, Doc: "cuDNN reports a memory status"},
			{Name: libCUDNNSuspect, Strength: EvidenceSignal, Start: 1.0, Doc: "cuDNN reports a status that is often, not always, memory"},
			{Name: libDeviceFull, Strength: EvidenceSignal, Start: 1.5, Doc: "the log prints the device's free memory at the library's failure, and it is under 5% of the device"},
			{Name: libNCCL, Strength: EvidenceSignal, Start: 2.5, Doc: "NCCL could not allocate its buffers"},
			{Name: libWorkspaceNamed, Strength: EvidenceSignal, Start: 2.0, Doc: "the failing message itself says the allocation was a workspace (\"try to allocate workspace = … CUDA Error: out of memory\")"},
			{Name: libCue, Strength: EvidenceSignal, Start: 0.0, Doc: "a cuBLAS/cuDNN frame or line near a generic failure"},
			{Name: libTensorRT, Strength: EvidenceSignal, Start: 1.0, Doc: "a runtime or generic failure inside TensorRT (its [TRT] log, nvinfer1, trtexec): the builder's tactic workspace or the engine's memory pool"},
		},
		WouldDecide: "free memory at the failing call: a library status is memory only when the device is nearly full",
		Capture:     "print torch.cuda.mem_get_info() just before the failing call",
		Assess:      checkLibraryWorkspace,
	}
}

// Signals of library-workspace.
const (
	libCUBLAS         = "library-workspace/cublas-alloc"
	libCUDNN          = "library-workspace/cudnn-status"
	libCUDNNSuspect   = "library-workspace/cudnn-suspected"
	libDeviceFull     = "library-workspace/device-full"
	libNCCL           = "library-workspace/nccl-alloc"
	libWorkspaceNamed = "library-workspace/workspace-named"
	libCue            = "library-workspace/library-frames"
	libTensorRT       = "library-workspace/tensorrt"
)

func checkLibraryWorkspace(f *Facts) *Finding {
	ev := f.Ev
	fd := &Finding{Culprit: "library-workspace", Event: ev.ID, Quantities: Quantities{RequestedBytes: f.Requested}}
	switch ev.Kind {
	case parser.KindCUBLAS:
		fd.fire(libCUBLAS)
		fd.Title = "cuBLAS could not allocate its handle or workspace"
	case parser.KindCUDNN:
		switch {
		case !ev.Suspected:
			fd.fire(libCUDNN)
		case f.FreeKnown && f.Capacity > 0 && f.Free*20 < f.Capacity:
			// TensorFlow prints the device's memory after the handle it
			// could not create: nearly none free settles it
			fd.fire(libCUDNNSuspect)
			fd.fire(libDeviceFull)
			fd.Arithmetic = append(fd.Arithmetic, "free "+size(f.Free)+" of "+size(f.Capacity)+" when cuDNN asked for its handle")
		default:
			fd.fire(libCUDNNSuspect)
			fd.Decide = "free memory at the failing call (torch.cuda.mem_get_info()): this cuDNN status is memory only when the device is nearly full"
		}
		fd.Title = "cuDNN could not set up its handle or workspace"
	case parser.KindNCCL:
		fd.fire(libNCCL)
		fd.Title = "NCCL could not allocate its communication buffers"
	case parser.KindGeneric, parser.KindCUDARuntime:
		// The failure's own message must be TensorRT's: earlier lines
		// name it in passing ("Could not find TensorRT", "Failed to
		// create TensorrtExecutionProvider") when it is not even in use.
		if parser.CueTensorRT().Matches(ev.Message) {
			if _, serving := f.Find(parser.CueServing()); !serving {
				// TensorRT's builder times tactics in a workspace it
				// sizes itself, and its engines run in a memory pool:
				// both are limits of the engine, set where it is built.
				fd.fire(libTensorRT)
				fd.Title = "TensorRT could not allocate its builder workspace or engine memory"
				fd.Decide = "the workspace or memory-pool limit the engine is built with (trtexec --memPoolSize, IBuilderConfig.set_memory_pool_limit, ORT_TENSORRT_MAX_WORKSPACE_SIZE) against the device's free memory"
				fd.Capture = "nvidia-smi just before the build or run, and trtexec --verbose, which logs each tactic's workspace request"
				fd.Explanation = "TensorRT's builder times candidate kernels (tactics) in a workspace it allocates itself, and a built engine runs in a memory pool of its own; when the device has no room for them the build or the run fails with a CUDA runtime out-of-memory error. Capping the workspace or pool makes the builder skip the tactics that need more; freeing the device before the build gives it room."
				fd.Evidence = append(fd.Evidence, f.EventLine())
				return fd
			}
		}
		if k, ok := kernelWorkspaces()[ev.Variant]; ok {
			fd.fire(libWorkspaceNamed)
			fd.Title, fd.Explanation, fd.Decide = k.title, k.explanation, k.decide
			fd.Evidence = append(fd.Evidence, f.EventLine())
			return fd
		}
		if parser.CueWorkspace().Matches(ev.Message) {
			fd.fire(libWorkspaceNamed)
			fd.Title = "A library workspace allocation failed"
			break
		}
		fallthrough
	default:
		e, ok := f.Find(words("cublas", "cudnn", "CUBLAS_WORKSPACE"))
		if !ok {
			return nil
		}
		fd.fire(libCue)
		fd.Title = "A library workspace allocation failed"
		fd.Evidence = append(fd.Evidence, e)
	}
	fd.Explanation = "Math and communication libraries allocate handles and workspaces outside the framework's tensors, often lazily on first use. When the device is already full they fail with their own status codes instead of a clean out-of-memory message. The fix is headroom: less resident memory, or creating the handles before the big allocations."
	fd.Evidence = append(fd.Evidence, f.EventLine())
	return fd
}

// A kernelWorkspace is what a runtime's own workspace failure says, for
// the finding that names it.
type kernelWorkspace struct{ title, explanation, decide string }

// kernelWorkspaces are the runtimes whose kernels allocate a workspace of
// their own and say so when it fails, by the event variant the parser gives.
func kernelWorkspaces() map[string]kernelWorkspace {
	return map[string]kernelWorkspace{
		// A buffer of fixed size, allocated once: the device may have
		// room to spare.
		parser.VariantFlashInferWorkspace: {
			title:       "FlashInfer's fixed workspace buffer is too small for this step",
			explanation: "FlashInfer, the attention backend under vLLM and SGLang, carves its kernels' temporaries out of one workspace buffer of fixed size, allocated once. A step with more sequences (or longer prefills) than it was sized for overflows it; device memory is not what ran out, so freeing the device does not help.",
			decide:      "the workspace's size (vLLM: VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE, 394 MiB by default) against the batch the step ran (--max-num-seqs, --max-num-batched-tokens)",
		},
		// Sized from what is free after the weights, with a minimum of
		// 100 MiB (500 MiB when more than a GiB is free) to start.
		parser.VariantDeepSpeedWorkspace: {
			title:       "DeepSpeed's inference workspace found too little free memory",
			explanation: "DeepSpeed's inference kernels allocate one workspace (activations and the KV cache) from the memory left after the weights, and refuse to start below a minimum. What holds the device is the model and whatever else is on it; a smaller or quantized model, or running without DeepSpeed's kernels, leaves the room.",
		},
	}
}
