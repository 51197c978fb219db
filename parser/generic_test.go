package parser

import (
	"strings"
	"testing"
)

// TestGenericTier: lines in the words of runtimes no family knows are
// failures when an error context goes with the memory vocabulary, and
// mentions in warnings, advice, handlers and handled retries are not.
func TestGenericTier(t *testing.T) {
	for _, tc := range []struct {
		line    string
		event   bool
		device  string
		index   int // -1: none
		request int64
	}{
		{"F0315 12:00:00.123456 1234 cuda_utils.cc:45] Check failed: status == cudaSuccess (2 vs. 0) out of memory", true, "cuda", -1, 0},
		{"terminate called after throwing an instance of 'std::bad_alloc'", true, "cpu", -1, 0},
		{"[ERROR] Out of GPU memory while rendering frame 12 (GPU=1)", true, "cuda", 1, 0},
		{"Error: failed to allocate 2.00 GiB on cuda:0", true, "cuda", 0, 2 << 30},
		{"ERROR: Not enough memory to load the model", true, "", -1, 0},
		{"fatal: allocation of 512 MB failed", true, "", -1, 512 << 20},
		{"SomeLibError: OUT_OF_MEMORY", true, "", -1, 0},
		{"F0315 12:00:03.120044 4242 buffer.cc:57] Check failed: cudaMalloc(&ptr, size) == cudaSuccess (2 vs. 0)", true, "cuda", -1, 0},
		{"ERROR: hipMalloc returned 2 for the KV buffer", true, "rocm", -1, 0},
		{"Error: not enough VRAM to load the model on GPU 0", true, "cuda", 0, 0},
		{"terminate called after throwing an instance of 'thrust::system::system_error' what(): CUDA kernel launch failed: out of memory", true, "cuda", -1, 0},
		{" CUDNN-slow  try to allocate workspace = 1107853312 * sizeof(float), CUDA Error: out of memory", true, "cuda", -1, 4431413248}, // darknet: "try to" + a verb that is no advice
		{"Error: could not allocate 268435456 * sizeof(float)", true, "", -1, 1 << 30},                                                   // the count whole, not its last digits
		{"2020-03-29 17:42:04.757305: W tensorflow/core/common_runtime/bfc_allocator.cc:219] Allocator (GPU_0_bfc) ran out of memory trying to allocate 3.87GiB. The caller indicates that this is not a failure, but may mean that there could be performance gains if more memory were available.", false, "", -1, 0},
		{"INFO 2025-03-25 CUDA version 12.4, cudaMalloc async enabled", false, "", -1, 0},
		{"RuntimeError: level_zero backend failed with error: 39 (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)", true, "xpu", -1, 0},
		{"2024-05-01 10:00:00.123 [E:onnxruntime:, sequential_executor.cc:514] Failed to allocate memory for requested buffer of size 8589934592", true, "", -1, 8589934592},
		{"java.lang.OutOfMemoryError: Java heap space", true, "", -1, 0},
		{"[TRT] [E] 2: [allocator.cpp::allocate::20] Requested amount of GPU memory (1073741824 bytes) could not be allocated. There may not be enough free memory for allocation to succeed.", true, "cuda", -1, 1 << 30},
		{"[TRT] [E] 1: [defaultAllocator.cpp::allocate::20] Error Code 1: Cuda Runtime (out of memory)", true, "cuda", -1, 0},
		{"onnxruntime::CudaCall CUDA failure 2: out of memory ; GPU=0 ; hostname=node1 ; expr=cudaMalloc((void**)&p, size);", true, "cuda", 0, 0},
		{"ggml_cuda_host_malloc: failed to allocate 1024.00 MiB of pinned memory: out of memory", false, "", -1, 0},
		{"INFO: reserved memory 10 GiB, out of memory retries 0", false, "", -1, 0},
		{"WARNING: out of memory, retrying with a smaller batch", false, "", -1, 0},
		{"To avoid out of memory errors, reduce the batch size.", false, "", -1, 0},
		{"    except torch.cuda.OutOfMemoryError:", false, "", -1, 0},
		{"If you run out of memory, try setting --lowvram", false, "", -1, 0},
		{"Caught OOM error at step 12, skipping batch", false, "", -1, 0},
		{"OOM handling enabled", false, "", -1, 0},
		{"peak memory 12.3 GiB, allocated 11.9 GiB", false, "", -1, 0},
		{"defaultEngine.cpp::nvinfer1::internal::Alloc::44] Error Code 1: Cuda Runtime (out of memory)", true, "cuda", -1, 0},
		{"forward pass failed: out of memory on GPU 2", true, "cuda", 2, 0},
		{"Assertion failed: out of memory in the staging pool", true, "", -1, 0},
		{"*ERROR: HIPError(code hipErrorOutOfMemory, out of memory)*", true, "rocm", -1, 0},
		{"## IndexBuildError: device out of memory while building the index (GPU 3)", true, "cuda", 3, 0},
		{"/build/src/core/arena.cc:412 void* Arena::Alloc(size_t) Failed to allocate memory for requested buffer of size 33554432", true, "", -1, 33554432},
		{"# raise an error when the device runs out of memory", false, "", -1, 0},
		{"# NOTE: this step hits an out of memory error on 8GB cards", false, "", -1, 0},
		{"for step in range(10):  # fails with out of memory error otherwise", false, "", -1, 0},
		{" * Failed to allocate: the error is returned to the caller", false, "", -1, 0},
		{"[W301 11:02:03.44 Allocator.cpp:980] memory allocation failed for a prefetch buffer", false, "", -1, 0},
		{"错误：显存不足，无法为模型分配 2.00 GiB (GPU 0)", true, "cuda", 0, 0},
		{"RuntimeError: 推理失败，GPU 内存溢出", true, "cuda", -1, 0},
		{"エラー: GPU のメモリ不足です", true, "cuda", -1, 0},
		{"오류: GPU 메모리 부족", true, "cuda", -1, 0},
		{"提示：如果显存不足，可以尝试减小 batch size", false, "", -1, 0},
		{"显存占用 10.2 GiB，剩余 1.1 GiB", false, "", -1, 0},
		{"警告：显存不足，正在重试（失败 1 次）", false, "", -1, 0},
		{"Error: failed to copy tensor from host to GPU 0: out of memory", true, "cuda", 0, 0}, // the accelerator, though the host is named first
		{"java.lang.OutOfMemoryError: Failed to allocate a 60 byte allocation with 0 free bytes and -663KB until OOM", true, "", -1, 60},
		{"   在 MS.Win32.UnsafeNativeMethods.CreateWindowEx 内存资源不足，无法处理此命令。 (异常来自 HRESULT:0x80070008)", true, "", -1, 0},
		{"OSError: /usr/lib/aarch64-linux-gnu/libgomp.so.1: cannot allocate memory in static TLS block", false, "", -1, 0},
		{"FATAL: host staging buffer: cannot allocate 4 GB", true, "cpu", -1, 4 << 30},
	} {
		res, err := Parse(strings.NewReader(tc.line+"\n"), "x")
		if err != nil {
			t.Fatal(err)
		}
		if (len(res.Events) > 0) != tc.event {
			t.Errorf("%q: %d events, want event=%v", tc.line, len(res.Events), tc.event)
			continue
		}
		if !tc.event {
			continue
		}
		ev := res.Events[0]
		if ev.Kind != KindGeneric || ev.Detection == nil || ev.Detection.Tier != 2 || len(ev.Detection.Words) != 2 {
			t.Errorf("%q: kind %s, detection %+v", tc.line, ev.Kind, ev.Detection)
		}
		dev, idx := "", -1
		if ev.Device != nil {
			dev = ev.Device.Type
			if ev.Device.Index != nil {
				idx = *ev.Device.Index
			}
		}
		if dev != tc.device || idx != tc.index {
			t.Errorf("%q: device %q %d, want %q %d", tc.line, dev, idx, tc.device, tc.index)
		}
		var req int64
		if ev.RequestedBytes != nil {
			req = *ev.RequestedBytes
		}
		if req != tc.request {
			t.Errorf("%q: requested %d, want %d", tc.line, req, tc.request)
		}
	}
}

// TestGenericDefersToFamilies: a wrapper's generic words next to an exact
// report of the same failure add no event.
func TestGenericDefersToFamilies(t *testing.T) {
	log := "ERROR worker failed: out of memory\n" + oomLine + "ERROR: job aborted, out of memory\n"
	res, err := Parse(strings.NewReader(log), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 || res.Events[0].Kind != KindCUDA || res.Events[0].Detection.Tier != 1 {
		t.Fatalf("events %+v, want the one CUDA event", res.Events)
	}
}

// TestNoFailureFixturesStayQuiet: logs that mention memory failures without
// having one (warnings, advice, handlers, a handled retry, non-fatal
// notices) give no event.
func TestNoFailureFixturesStayQuiet(t *testing.T) {
	for _, name := range []string{"generic-mentions-no-failure.log", "generic-code-comments-no-failure.log", "no-failure.log", "nonfatal-warnings-only.log", "comfyui-tiled-vae-retry.log", "ray-actor-died-segfault.log", "ray-raylet-no-oom-kills.log"} {
		res := parseFile(t, "../fixtures/formats/"+name)
		if len(res.Events) != 0 {
			t.Errorf("%s: %d events (first %q at line %d), want none", name, len(res.Events), res.Events[0].Message, res.Events[0].Line)
		}
	}
	// A handled retry, and Ray's list of possible causes of a worker's
	// death that the log shows was a segmentation fault, are still worth a
	// note on the report.
	for name, id := range map[string]string{"comfyui-tiled-vae-retry.log": "nonfatal-oom-retry", "ray-actor-died-segfault.log": "possible-host-kill"} {
		res := parseFile(t, "../fixtures/formats/"+name)
		if len(res.Context.Notices) != 1 || res.Context.Notices[0].ID != id {
			t.Errorf("%s: notices %+v, want one %s", name, res.Context.Notices, id)
		}
	}
}

// TestCublasGPUNotation: the GPU a native toolkit names after the status
// ("; GPU=1 ;") is the event's device index.
func TestCublasGPUNotation(t *testing.T) {
	res, err := Parse(strings.NewReader("RuntimeError: CUBLAS failure 3: CUBLAS_STATUS_ALLOC_FAILED ; GPU=1 ; hostname=node7 ;\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 || res.Events[0].Kind != KindCUBLAS || res.Events[0].Device == nil || res.Events[0].Device.Index == nil || *res.Events[0].Device.Index != 1 {
		t.Fatalf("events %+v, want one cuBLAS event on GPU 1", res.Events)
	}
}

// TestGenericUnderErrorHeader: a failure whose only error context is a
// header line of its own just above ("CUDA ERROR:") is one; the same line
// with no header, or with the header farther up, is not.
func TestGenericUnderErrorHeader(t *testing.T) {
	for _, tc := range []struct {
		log  string
		want int
	}{
		{"CUDA ERROR:\n   Failed to allocate cuda memory for maxent\n   out of memory\n", 1},
		{"   Failed to allocate cuda memory for maxent\n", 0},
		{"CUDA ERROR:\nloading\nsetting up\nreading\n   Failed to allocate cuda memory for maxent\n", 0},
	} {
		res, err := Parse(strings.NewReader(tc.log), "x")
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Events) != tc.want {
			t.Errorf("%q: %d events, want %d", tc.log, len(res.Events), tc.want)
		}
	}
}

// TestGenericStatement: a line that says only that memory ran out is its
// own error context, unless a logger's level below error stands before it.
func TestGenericStatement(t *testing.T) {
	for _, tc := range []struct {
		line    string
		event   bool
		request int64
	}{
		{"ihaskell: out of memory (requested 2097152 bytes)", true, 2097152},
		{"System is out of GPU and shared host memory", true, 0},
		{"Out of memory.", true, 0},
		{"Insufficient graphics memory for this model!", true, 0},
		{"2024-01-01 10:00:00 ERROR - out of memory.", true, 0},
		{"If the system is out of memory, restart the kernel", false, 0},
		{"The GPU is out of memory when the batch is 64", false, 0},
		{"out of memory errors are common on 8 GB cards", false, 0},
		{"Out of bounds memory access in the shader", false, 0},
		{"Not enough memory for the cache, using a smaller one", false, 0},
		{"not enough memory for the workspace", false, 0},
		{"README.md: Out of memory", false, 0},
		{"2024-01-01 10:00:00 WARNING - out of memory.", false, 0},
		{"2024-01-01 10:00:00,123 - INFO - Not enough memory.", false, 0},
		{"WARNING:root:out of memory", false, 0},
		{"W0314 11:05:29.634000 1234 foo.cc:12] out of memory", false, 0},
		{"I0314 11:05:29.634000 1234 foo.cc:12] Not enough memory.", false, 0},
		{"2024-01-01 10:00:00 DEBUG pool: out of memory (requested 4096 bytes)", false, 0},
	} {
		res, err := Parse(strings.NewReader(tc.line+"\n"), "x")
		if err != nil {
			t.Fatal(err)
		}
		if (len(res.Events) > 0) != tc.event {
			t.Errorf("%q: %d events, want event=%v", tc.line, len(res.Events), tc.event)
			continue
		}
		if !tc.event {
			continue
		}
		ev := res.Events[0]
		if ev.Detection == nil || ev.Detection.Tier != 2 || len(ev.Detection.Words) != 1 {
			t.Errorf("%q: detection %+v, want the vocabulary's words alone", tc.line, ev.Detection)
		}
		var req int64
		if ev.RequestedBytes != nil {
			req = *ev.RequestedBytes
		}
		if req != tc.request {
			t.Errorf("%q: requested %d, want %d", tc.line, req, tc.request)
		}
	}
}

// TestFollowingFigures: a native failure's figures on the lines after it
// fill what its message left null, and nothing else does.
func TestFollowingFigures(t *testing.T) {
	type want struct{ req, free, total int64 } // 0: null
	for _, tc := range []struct {
		name string
		log  string
		want want
	}{
		{"TensorRT's request on its next line", "[E] Error[1]: [defaultAllocator.cpp::allocate::31] Error Code 1: Cuda Runtime (out of memory)\n[W] [TRT] Requested amount of GPU memory (15485030400 bytes) could not be allocated. There may not be enough free memory for allocation to succeed.\n", want{req: 15485030400}},
		{"XGBoost's rows", "Memory allocation error on worker 0: std::bad_alloc: cudaErrorMemoryAllocation: out of memory\n- Free memory: 8126464\n- Requested memory: 33554432\n", want{req: 33554432, free: 8126464}},
		{"rows without a request are not the failure's", "ERROR: cudaMalloc failed: out of memory\n- Total memory: 503 GB\n- Available memory: 412 GB\n", want{}},
		{"host statistics", "ERROR: cudaMalloc failed: out of memory\nHost memory stats: Total memory: 64 GB, Available memory: 48 GB\n", want{}},
		{"a retry's smaller request", "ERROR: cudaMalloc failed: out of memory\nRetrying allocation of 512 MB of device memory with a smaller tile\n", want{}},
		{"a pool's size", "[E] Error[1]: [defaultAllocator.cpp::allocate::31] Error Code 1: Cuda Runtime (out of memory)\n[I] [TRT] Memory pool size = 1073741824\n", want{}},
		{"a buffer's element count", "Fatal error: Out of memory on GPU 0\nbuffer size=65536 elements\n", want{}},
		{"past the third line", "ERROR: cudaMalloc failed: out of memory\na\nb\nc\n- Free memory: 8126464\n- Requested memory: 33554432\n", want{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := onlyEvent(t, tc.log)
			val := func(p *int64) int64 {
				if p == nil {
					return 0
				}
				return *p
			}
			if got := (want{val(ev.RequestedBytes), val(ev.FreeBytes), val(ev.TotalBytes)}); got != tc.want {
				t.Errorf("figures %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestErrnoEcho: ENOMEM's words just after a native failure are its
// callers' echo; the kernel's own refusal, or ENOMEM after a framework's
// allocator message, is a failure of its own.
func TestErrnoEcho(t *testing.T) {
	for _, tc := range []struct {
		name   string
		log    string
		events int
	}{
		{"an encoder's callers", "[h264_nvenc @ 0x6090380] InitializeEncoder failed: out of memory (10):\nERROR: encoder.c:199] Error opening video encoder : Cannot allocate memory\n", 1},
		{"a fork after a CUDA OOM", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.10 GiB is free.\nTraceback (most recent call last):\n  File \"/usr/lib/python3.10/multiprocessing/popen_fork.py\", line 66, in _launch\n    self.pid = os.fork()\nOSError: [Errno 12] Cannot allocate memory\n", 2},
		{"the kernel's refusal after a native failure", "ERROR: cudaMalloc failed: out of memory\nOSError: [Errno 12] Cannot allocate memory\n", 2},
		// the exact ENOMEM does not supersede the generic words above it
		{"the kernel's refusal after a generic failure", "ERROR worker: failed: out of memory on the staging pool\nOSError: [Errno 12] Cannot allocate memory\n", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Parse(strings.NewReader(tc.log), "x")
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Events) != tc.events {
				var kinds []string
				for _, e := range res.Events {
					kinds = append(kinds, e.Kind)
				}
				t.Errorf("%d events %v, want %d", len(res.Events), kinds, tc.events)
			}
		})
	}
}

// onlyEvent parses log and returns its one event.
func onlyEvent(t *testing.T, log string) Event {
	t.Helper()
	res, err := Parse(strings.NewReader(log), "x.log")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 {
		t.Fatalf("%d events, want 1", len(res.Events))
	}
	return res.Events[0]
}
