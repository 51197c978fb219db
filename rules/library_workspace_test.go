package rules

import (
	"slices"
	"testing"
)

// TestWorkspaceOfAFrameworkKernel: FlashInfer's and DeepSpeed's own
// workspace failures are named as workspaces, each with its own title;
// a plain allocation under the same frameworks' names is not.
func TestWorkspaceOfAFrameworkKernel(t *testing.T) {
	for _, tc := range []struct {
		name, log, title string
	}{
		{"FlashInfer", "RuntimeError: Error in function 'aligned_alloc' at /workspace/include/flashinfer/allocator.h:49:\n  Buffer overflow when allocating memory for batch_prefill_tmp_v\n  with size 536346624 and alignment 16,\n  but only 413138944 bytes available in AlignedAllocator.\n  Increase the workspace buffer size.\n", "FlashInfer's fixed workspace buffer is too small for this step"},
		{"DeepSpeed", "Requested:\t104873984\nFree:\t49217536\nTotal:\t4294443008\nRuntimeError: Workspace can't be allocated, no enough memory.\n", "DeepSpeed's inference workspace found too little free memory"},
		{"a plain allocation", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 24.00 GiB of which 1.00 GiB is free. Of the allocated memory 21.00 GiB is allocated by PyTorch, and 300.00 MiB is reserved by PyTorch but unallocated.\n", ""},
	} {
		fd := checkLibraryWorkspace(factsOf(t, tc.log))
		named := fd != nil && slices.Contains(fd.Signals, libWorkspaceNamed)
		if named != (tc.title != "") || named && fd.Title != tc.title {
			t.Errorf("%s: workspace named %v (%+v), want title %q", tc.name, named, fd, tc.title)
		}
	}
}
