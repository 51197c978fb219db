package parser

import "encoding/json"

// Event kinds, as listed in the shared spec (spec/culprits.md). Every Event
// carries exactly one of them.
const (
	KindCUDA        = "cuda-oom"         // PyTorch CUDA caching allocator (all eras, cudaMallocAsync too)
	KindHIP         = "hip-oom"          // the same allocator on ROCm
	KindMPS         = "mps-oom"          // Apple GPU: PyTorch MPS allocator, MLX / Metal, ggml-metal
	KindXPU         = "xpu-oom"          // Intel XPU / IPEX
	KindCPU         = "cpu-alloc"        // PyTorch's DefaultCPUAllocator, NumPy's _ArrayMemoryError
	KindCUDARuntime = "cuda-runtime-oom" // a device runtime allocation outside a framework allocator
	KindCUBLAS      = "cublas-alloc"     // CUBLAS_STATUS_ALLOC_FAILED
	KindCUDNN       = "cudnn-oom"        // cuDNN failures that are (often) memory
	KindNCCL        = "nccl-oom"         // NCCL "Cuda failure 2 'out of memory'"
	KindServing     = "serving-oom"      // vLLM and peers: memory-budget admission errors
	KindXLA         = "xla-oom"          // JAX / XLA RESOURCE_EXHAUSTED
	KindTF          = "tf-oom"           // TensorFlow ResourceExhaustedError / BFC allocator
	KindHostKill    = "host-oom-kill"    // kernel OOM killer, SIGKILL, DataLoader worker killed, SLURM
	KindPaddle      = "paddle-oom"       // PaddlePaddle's allocator
	KindGeneric     = "generic-oom"      // recognised by its wording and an error context (detection tier 2), or a runtime with no kind of its own
)

// Phases of the program at the time of a failure (spec/culprits.md).
const (
	PhaseLoad      = "load"
	PhaseForward   = "forward"
	PhaseBackward  = "backward"
	PhaseOptimizer = "optimizer-step"
	PhaseGenerate  = "generate"
	PhaseDecode    = "decode"
	PhaseEval      = "eval"
	PhaseData      = "data"
	PhaseUnknown   = "unknown"
)

// Event variants that the culprits read, named once here.
const (
	// VariantRayWorkerDied is a Ray worker's death whose possible causes
	// Ray lists, the OOM killer first: a possible host kill only.
	VariantRayWorkerDied = "ray-worker-died"
	// VariantContextCreate is the driver failing to create a CUDA context
	// for lack of memory ("failed call to cuDevicePrimaryCtxRetain:
	// CUDA_ERROR_OUT_OF_MEMORY"): before the process held anything there.
	VariantContextCreate = "cuda-context-create"
	// VariantFlashInferWorkspace is FlashInfer's fixed workspace buffer
	// overflowing ("Buffer overflow when allocating memory for … but only
	// N bytes available in AlignedAllocator"): the workspace, not the
	// device, ran out.
	VariantFlashInferWorkspace = "flashinfer-workspace"
	// VariantDeepSpeedWorkspace is DeepSpeed inference finding too little
	// free memory for its workspace ("Workspace can't be allocated, no
	// enough memory.").
	VariantDeepSpeedWorkspace = "deepspeed-inference-workspace"
	// VariantMLXMemoryLimit is MLX's Metal allocator refusing past its
	// memory limit ("[malloc_or_wait] Unable to allocate N bytes.").
	VariantMLXMemoryLimit = "mlx-memory-limit"
	// VariantDirectML is torch-directml's allocator (Windows, any GPU
	// vendor) refusing a tensor: "Could not allocate tensor with 58982400
	// bytes. There is not enough GPU video memory available!"
	VariantDirectML = "directml-video-memory"
)

// A Result is everything read from one input: the memory failures in input
// order and the log-wide context around them.
type Result struct {
	Input   string  `json:"input"`   // the name the input was given as ("crash.log", "-")
	Lines   int     `json:"lines"`   // physical lines read
	Events  []Event `json:"events"`  // memory failures, in input order
	Context Context `json:"context"` // facts from the rest of the log
	Dropped int     `json:"dropped"` // failures found beyond MaxEvents and not kept
}

// An Event is one memory failure: what was asked for, what the device had,
// who held it, and where the program was. Pointer fields are nil when the
// log does not print the figure; they are never guessed.
type Event struct {
	ID        string   `json:"id"`   // "e1", "e2", … in input order
	Kind      string   `json:"kind"` // one of the Kind constants
	Input     string   `json:"input"`
	Line      int      `json:"line"` // 1-based line holding the failure's first word
	Rank      *int     `json:"rank"` // distributed rank from a line prefix
	Device    *Device  `json:"device"`
	Exception Optional `json:"exception"` // "torch.OutOfMemoryError", "RuntimeError", … (null when none is printed)

	RequestedBytes           *int64    `json:"requested_bytes"`
	TotalBytes               *int64    `json:"total_bytes"`
	FreeBytes                *int64    `json:"free_bytes"`
	ProcessInUseBytes        *int64    `json:"process_in_use_bytes"`
	AllocatedBytes           *int64    `json:"allocated_bytes"`
	ReservedBytes            *int64    `json:"reserved_bytes"`
	ReservedUnallocatedBytes *int64    `json:"reserved_unallocated_bytes"`
	OtherProcesses           []Process `json:"other_processes"`

	Phase   string  `json:"phase"`
	Frames  []Frame `json:"frames"`
	Message string  `json:"message"`

	// Fields below extend the v1 schema additively.

	Framework string `json:"framework"` // "pytorch", "jax", "tensorflow", "mlx", "ggml", "vllm", …
	Variant   string `json:"variant"`   // message layout, e.g. "torch-2.2+", "torch-1.4-reserved"
	// RequestRounding says how the printed request relates to the real one:
	// "exact", or "allocator-2MiB" when PyTorch printed its rounded segment size.
	RequestRounding string `json:"request_rounding,omitempty"`
	// RequestMinBytes and RequestMaxBytes bound the program's real request when
	// the printed figure is the allocator's rounded segment ("2.00 MiB" means ≤ 1 MiB).
	RequestMinBytes       *int64  `json:"request_min_bytes,omitempty"`
	RequestMaxBytes       *int64  `json:"request_max_bytes,omitempty"`
	AllowedBytes          *int64  `json:"allowed_bytes,omitempty"`           // set_per_process_memory_fraction cap
	PrivatePoolBytes      *int64  `json:"private_pool_bytes,omitempty"`      // allocated in private pools (CUDA graphs)
	OtherAllocationsBytes *int64  `json:"other_allocations_bytes,omitempty"` // MPS "other allocations"
	MaxAllocationBytes    *int64  `json:"max_allocation_bytes,omitempty"`    // a per-buffer limit (Metal max buffer size)
	KVCacheAvailableBytes *int64  `json:"kv_cache_available_bytes,omitempty"`
	MaxModelLen           *int64  `json:"max_model_len,omitempty"`     // vLLM
	KVCacheTokens         *int64  `json:"kv_cache_tokens,omitempty"`   // vLLM V0: tokens the KV cache holds
	EstimatedMaxLen       *int64  `json:"estimated_max_len,omitempty"` // vLLM V1 suggestion
	PrefillTokens         *int64  `json:"prefill_tokens,omitempty"`    // TGI: the warm-up prefill batch refused
	TensorShape           []int64 `json:"tensor_shape,omitempty"`      // TF "OOM when allocating tensor with shape[…]"
	TensorDType           string  `json:"tensor_dtype,omitempty"`      // TF "and type float"
	Signal                string  `json:"signal,omitempty"`            // "Killed", "Bus error", "SIGKILL"
	PID                   *int64  `json:"pid,omitempty"`               // the killed or failing process
	Suspected             bool    `json:"suspected,omitempty"`         // a status that is often, not always, memory
	Hint                  string  `json:"hint,omitempty"`              // the allocator's own hint: "expandable_segments", "max_split_size_mb", …
	HintEnv               string  `json:"hint_env,omitempty"`          // the env var the hint names
	Truncated             bool    `json:"truncated,omitempty"`         // the message ends before its last clause
	ContextLines          []Span  `json:"context_lines,omitempty"`     // lines just before the failure (code echoes, progress)

	// RequiredBytes is the total a pre-load or compile-time check says the
	// program needs ("model requires more system memory (19.3 GiB)",
	// XLA's "Used 17.91G of 15.48G hbm"): a sum, not one allocation.
	RequiredBytes *int64 `json:"required_bytes,omitempty"`
	// AvailableBytes is what such a check found available.
	AvailableBytes *int64 `json:"available_bytes,omitempty"`
	// CachedBytes is the "N cached" figure of PyTorch 1.0–1.3 messages,
	// kept as printed.
	CachedBytes *int64 `json:"cached_bytes,omitempty"`
	// LargestFreeBytes is the largest free block an allocator reports.
	LargestFreeBytes *int64 `json:"largest_free_bytes,omitempty"`
	// TensorBytes is the size of a tensor whose shape and dtype the message
	// prints (TensorFlow's "shape[563354,256] and type float"), computed as
	// elements × dtype width; nil when the dtype is not printed or unknown.
	TensorBytes *int64 `json:"tensor_bytes,omitempty"`
	// RequestOverflow marks a request too large to be a real allocation:
	// "Tried to allocate more than 1EB", or a printed request of a
	// pebibyte or more, a shape bug or an integer overflow. RequestedBytes
	// is nil (unknown) when the message prints no figure below 2^60 bytes,
	// and the exact figure otherwise.
	RequestOverflow bool `json:"request_overflow,omitempty"`
	// SelfProcess is the listed "Process N has …" entry that must be this
	// process (it alone holds at least what PyTorch reserved) when the
	// message lists several and no "this process has" clause.
	SelfProcess *Process `json:"self_process,omitempty"`
	// RaisedFrom is the exception this failure was raised from, when the
	// log shows the chain just above it ("The above exception was the
	// direct cause of the following exception:"); nil otherwise.
	RaisedFrom *Span `json:"raised_from,omitempty"`
	// Detection says how the event was recognised.
	Detection *Detection `json:"detection,omitempty"`
	// Following quotes the lines printed after the failure, up to the next
	// failure (at most followingKept): a library's next line often names
	// the buffer that failed. Not part of the JSON report.
	Following []Span `json:"-"`

	stream     string    // the prefix stream the event was read from
	tentative  bool      // kept only when it ends the log and nothing else failed
	endLine    int       // the last line of the message
	headerOnly bool      // a tentative failure kept whenever nothing else failed
	engine     string    // the serving engine named by the line's prefix, if any
	progress   *Progress // the last progress counter before the event
}

// Detection says how an event was recognised (spec/report-json.md):
// tier 1 is a message family known exactly, tier 2 the generic recogniser,
// which lists the words that made the line a failure.
type Detection struct {
	Family string   `json:"family"`
	Tier   int      `json:"tier"`
	Words  []string `json:"words,omitempty"`
}

// A Device is where the failure happened.
type Device struct {
	Type  string `json:"type"`  // "cuda", "rocm", "mps", "xpu", "cpu", "vulkan", "tpu", "npu"
	Index *int   `json:"index"` // nil when the log does not say
}

// A Process is another process's use of the failing device, as the
// allocator reported it ("Process 1839 has 322.23 MiB memory in use").
type Process struct {
	PID   int64  `json:"pid"`
	Bytes *int64 `json:"bytes"` // nil for NVML's "not available" sentinel
}

// A Frame is one Python traceback entry, outermost first.
type Frame struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Function string `json:"function"`
	Code     string `json:"code"`
	LogLine  int    `json:"log_line"` // where the frame was printed in the input
}

// CueText is the frame as the cues read it: its code, its function as a
// call ("validate(" for a frame "in validate") and its file — the form
// phase detection reads frames in, so that a culprit's cue and the phase
// never disagree over a frame.
func (f Frame) CueText() string { return f.Code + " " + f.Function + "( " + f.File }

// A Span is one quoted input line with its position.
type Span struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Context is what the rest of the log says, each fact with the line it came
// from. Rules read it to decide between culprits.
type Context struct {
	GPUs       []GPU        `json:"gpus,omitempty"`           // nvidia-smi rows and TensorFlow's start-up report
	GPUProcs   []GPUProcess `json:"gpu_processes,omitempty"`  // nvidia-smi process table
	Versions   []Version    `json:"versions,omitempty"`       // torch, transformers, python, …
	Models     []ModelRef   `json:"models,omitempty"`         // model ids seen in paths, code or command lines
	AllocConf  []Setting    `json:"alloc_conf,omitempty"`     // PYTORCH_(CUDA_)ALLOC_CONF=… as set by the user
	Progress   []Progress   `json:"progress,omitempty"`       // the last epoch/step counters before each event
	Notices    []Notice     `json:"notices,omitempty"`        // non-fatal lines a rule may need
	MemSummary []Span       `json:"memory_summary,omitempty"` // torch.cuda.memory_summary() rows
	Settings   []Setting    `json:"settings,omitempty"`       // knobs seen in commands and code (max_pixels, batch_size, …)
}

// A GPU is one nvidia-smi device row, or the device a framework reported
// finding at start-up (TensorFlow's "Found device 0 with properties: …
// Total memory: 7.92GiB Free memory: 190.31MiB").
type GPU struct {
	Index      *int   `json:"index"`
	Name       string `json:"name"`
	UsedBytes  *int64 `json:"used_bytes"`
	TotalBytes *int64 `json:"total_bytes"`
	Line       int    `json:"line"`
	// Source is where the row comes from: "" for nvidia-smi, whose
	// moment the log does not tell, or "tensorflow-startup" for what
	// TensorFlow found before it allocated anything.
	Source string `json:"source,omitempty"`
}

// GPUSourceTFStartup marks a GPU row from TensorFlow's start-up report.
const GPUSourceTFStartup = "tensorflow-startup"

// A GPUProcess is one row of nvidia-smi's process table.
type GPUProcess struct {
	GPU   *int   `json:"gpu"`
	PID   int64  `json:"pid"`
	Type  string `json:"type"`
	Name  string `json:"name"`
	Bytes *int64 `json:"bytes"`
	Line  int    `json:"line"`
}

// A Version is a library or interpreter version visible in the log.
type Version struct {
	Name    string `json:"name"` // "torch", "transformers", "python", "vllm", …
	Version string `json:"version"`
	Line    int    `json:"line"`
}

// A ModelRef is a model id or name seen in the log.
type ModelRef struct {
	ID   string `json:"id"`  // "AIDC-AI/Ovis2.5-2B", or a bare name when no org is printed
	How  string `json:"how"` // "hf-cache", "remote-code", "from_pretrained", "command", "path"
	Line int    `json:"line"`
}

// A Setting is one name=value pair seen in the log.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Line  int    `json:"line"`
}

// Progress is the training/inference progress last seen before an event.
type Progress struct {
	Event string `json:"event"`           // event id it precedes
	Epoch *int64 `json:"epoch,omitempty"` // last epoch counter
	Step  *int64 `json:"step,omitempty"`  // last step/iteration counter
	Line  int    `json:"line"`
}

// A Notice is a recognised non-fatal line: a warning, a non-fatal OOM
// retry, Triton's shared-memory OutOfResources. Notices are context, never
// events.
type Notice struct {
	ID   string `json:"id"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Optional is a string that the log may not print: it encodes as JSON null
// when empty, never as "".
type Optional string

// MarshalJSON encodes the empty Optional as null.
func (o Optional) MarshalJSON() ([]byte, error) {
	if o == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(o))
}
