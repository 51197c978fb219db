package rules

import (
	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/snapshot"
)

// Hints are facts the user gives on the command line that the log lacks.
type Hints struct {
	Model    string // --model ORG/NAME
	GPUBytes *int64 // --gpu 24GiB: the device's capacity
}

// An Input is everything the rules see for one parsed input.
type Input struct {
	Result  *parser.Result
	Hints   Hints
	Catalog models.Catalog
	// Measured is what a PyTorch memory snapshot read with the input shows
	// (holders by site and kind, free blocks); nil without one.
	Measured *snapshot.Measured
}

// Evidence is one log line a finding relies on.
type Evidence struct {
	Input string `json:"input"`
	Line  int    `json:"line"`
	Text  string `json:"text"`
}

// Quantities are the numbers a rule derived, for the advice layer to
// compute savings from. Zero means unknown.
type Quantities struct {
	Params         int64   `json:"params,omitempty"`
	BytesPerParam  float64 `json:"bytes_per_param,omitempty"`
	WeightBytes    int64   `json:"weight_bytes,omitempty"`
	CapacityBytes  int64   `json:"capacity_bytes,omitempty"`
	RequestedBytes int64   `json:"requested_bytes,omitempty"`
	ShortfallBytes int64   `json:"shortfall_bytes,omitempty"`
	HolderBytes    int64   `json:"holder_bytes,omitempty"` // what the culprit holds (other processes, unallocated cache, …)
	Tokens         int64   `json:"tokens,omitempty"`
	DefaultTokens  int64   `json:"default_tokens,omitempty"`
	Vocab          int64   `json:"vocab,omitempty"`
	BytesPerElem   int64   `json:"bytes_per_elem,omitempty"`
	Batch          int64   `json:"batch,omitempty"`
	Heads          int64   `json:"heads,omitempty"`
	SeqLen         int64   `json:"seq_len,omitempty"`
	KVBytesPerTok  int64   `json:"kv_bytes_per_token,omitempty"`
	MaxModelLen    int64   `json:"max_model_len,omitempty"`
	EstimatedLen   int64   `json:"estimated_max_len,omitempty"`
	Training       bool    `json:"training,omitempty"`
	Inference      bool    `json:"inference,omitempty"`
}

// A Finding is one culprit named for one event.
type Finding struct {
	Culprit string `json:"culprit"`
	// Confidence is the engine's calibrated score in [0, 1]; rules leave it
	// alone and fire signals instead.
	Confidence float64 `json:"confidence"`
	// Signals are the names of the signals the log fired for the culprit.
	Signals     []string   `json:"signals,omitempty"`
	Title       string     `json:"title"`
	Explanation string     `json:"explanation"`
	Event       string     `json:"event"`
	Evidence    []Evidence `json:"evidence"`
	// Arithmetic is the work shown: "576.00 MiB ≈ 2,304 tokens × 65,532 × 4 B".
	Arithmetic []string `json:"arithmetic,omitempty"`
	// Decide names the fact that would settle the diagnosis when confidence
	// is low (the JSON report's would_decide).
	Decide string `json:"decide,omitempty"`
	// Capture says how to get that fact: a command or a snippet.
	Capture string `json:"capture,omitempty"`
	// Basis is BasisEvidence when at least one signal from the log supports
	// the culprit, BasisPrior when it is only a plausible guess for this kind
	// of failure (then Confidence ≤ PriorCap).
	Basis      string     `json:"basis"`
	Quantities Quantities `json:"quantities"`
	// Model is the catalogue id the finding used, "" when none.
	Model string `json:"model,omitempty"`
	// CoCulprits are the other culprits of the same failure that each hold
	// at least its shortfall too: removing any one alone would have made
	// room, and each finding's confidence is capped by its share of their
	// memory.
	CoCulprits []string `json:"co_culprits,omitempty"`
	// Variant names the form of the culprit the evidence shows, for the
	// advice layer to pick fixes by: "static-preallocation" (kv-cache),
	// "eval-accumulation" (leak); "" for the general form.
	Variant string `json:"variant,omitempty"`

	share float64 // the engine's softmax share, which ranks findings

}

// What a finding rests on (Finding.Basis).
const (
	BasisEvidence = "evidence"
	BasisPrior    = "prior"
)

// PriorCap is the highest confidence a finding without evidence may have.
const PriorCap = 0.3

// Culprit variants a rule can report.
const (
	VariantStaticCache    = "static-preallocation"
	VariantEvalAccumulate = "eval-accumulation"
)
