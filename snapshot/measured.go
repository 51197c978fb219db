package snapshot

// Measured is what a memory snapshot shows about one device, in the shape
// of the JSON report's `measured` object (spec/report-json.md). Fields
// tagged "-" are for the text report and the rules, not the document.
type Measured struct {
	Source                string   `json:"source"` // always "snapshot"
	Input                 string   `json:"input"`
	Device                int      `json:"device"`
	ActiveBytes           int64    `json:"active_bytes"` // allocated, or freed and awaiting another stream
	ReservedBytes         int64    `json:"reserved_bytes"`
	LargestFreeBlockBytes int64    `json:"largest_free_block_bytes"`
	OOM                   *OOM     `json:"oom"`
	Holders               []Holder `json:"holders"`

	AllocatedBytes int64 `json:"-"` // active_allocated blocks only
	InactiveBytes  int64 `json:"-"` // cached and free for reuse
	Segments       int   `json:"-"`
	// LargestFreeSegment is the segment holding the largest free block.
	LargestFreeSegment *SegmentFree `json:"-"`
	// OmittedHolders and OmittedBytes count the sites past MaxHolders.
	OmittedHolders int   `json:"-"`
	OmittedBytes   int64 `json:"-"`
	// Phase is what the failing allocation's stack was doing (a
	// parser.Phase* value), "" when the snapshot has no stack for it.
	Phase string `json:"-"`
	// TotalBytes is the device's capacity (or per-process cap) as the
	// out-of-memory observer was told; nil without the capture hook.
	TotalBytes *int64 `json:"-"`
	// OOMStack is the failing allocation's stack, innermost first.
	OOMStack []Frame `json:"-"`
}

// OOM is the failed allocation: the trace's `oom` entry, or what the
// out-of-memory observer was told.
type OOM struct {
	RequestedBytes  int64  `json:"requested_bytes"`
	DeviceFreeBytes *int64 `json:"device_free_bytes"`
}

// A Holder is the active memory allocated at one site.
type Holder struct {
	Bytes  int64   `json:"bytes"`
	Blocks int     `json:"blocks"`
	Kind   string  `json:"kind"`  // one of the Kind constants
	Site   *Frame  `json:"site"`  // nil when the blocks have no recorded stack
	Stack  []Frame `json:"stack"` // Python frames, innermost first
	// Because is the function whose frame decided Kind ("from_pretrained",
	// "_init_group", …), "" for KindOther.
	Because string `json:"-"`
}

// A Frame is one stack entry.
type Frame struct {
	File     string `json:"file"`
	Line     int64  `json:"line"`
	Function string `json:"function"`
}

// SegmentFree is one segment's free space.
type SegmentFree struct {
	Address          int64
	TotalBytes       int64
	InactiveBytes    int64
	LargestFreeBytes int64
}

// Holder kinds.
const (
	KindWeights    = "weights"
	KindOptimizer  = "optimizer-state"
	KindKVCache    = "kv-cache"
	KindActivation = "activations"
	KindGradients  = "gradients"
	KindOther      = "other"
)

// MaxHolders bounds the holders listed; the rest are counted.
const MaxHolders = 20

// maxStack bounds the frames kept for a holder's stack.
const maxStack = 16
