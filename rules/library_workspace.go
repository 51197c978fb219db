package rules

import "github.com/oomdoc/oomdoc/parser"

// libraryWorkspace: a cuDNN, cuBLAS or NCCL handle or workspace could not
// be allocated — the device was already full when the library asked.
func libraryWorkspace() Rule {
	return Rule{
		ID:        "library-workspace",
		Title:     "A cuDNN / cuBLAS / NCCL workspace or handle could not be allocated",
		Recognise: "CUBLAS_STATUS_ALLOC_FAILED, CUDNN_STATUS_* (INTERNAL_ERROR and NOT_INITIALIZED are often memory), NCCL's \"Cuda failure 2 'out of memory'\".",
		Check:     checkLibraryWorkspace,
	}
}

func checkLibraryWorkspace(f *Facts) *Finding {
	ev := f.Ev
	fd := &Finding{Culprit: "library-workspace", Event: ev.ID, Quantities: Quantities{RequestedBytes: f.Requested}}
	switch ev.Kind {
	case parser.KindCUBLAS:
		fd.Confidence = 0.8
		fd.Title = "cuBLAS could not allocate its handle or workspace"
	case parser.KindCUDNN:
		fd.Confidence = 0.75
		if ev.Suspected {
			fd.Confidence = 0.6
			fd.Decide = "free memory at the failing call (torch.cuda.mem_get_info()): this cuDNN status is memory only when the device is nearly full"
		}
		fd.Title = "cuDNN could not set up its handle or workspace"
	case parser.KindNCCL:
		fd.Confidence = 0.8
		fd.Title = "NCCL could not allocate its communication buffers"
	default:
		e, ok := f.Find(words("cublas", "cudnn", "CUBLAS_WORKSPACE"))
		if !ok {
			return nil
		}
		fd.Confidence = 0.35
		fd.Title = "A library workspace allocation failed"
		fd.Evidence = append(fd.Evidence, e)
	}
	fd.Explanation = "Math and communication libraries allocate handles and workspaces outside PyTorch's tensors, often lazily on first use. When the device is already full they fail with their own status codes instead of a clean out-of-memory message. The fix is headroom: less resident memory, or creating the handles before the big allocations."
	fd.Evidence = append(fd.Evidence, f.EventLine())
	return fd
}
