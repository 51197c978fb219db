package rules

import (
	"fmt"
	"math"
	"strings"

	"github.com/oomdoc/oomdoc/parser"
)

// Signals of attention-matrix.
const (
	attnScoreShape = "attention-matrix/score-shape"
	attnSquare     = "attention-matrix/square-shape"
	attnFrames     = "attention-matrix/attention-frames"
	attnEager      = "attention-matrix/eager-fallback"
	attnHuge       = "attention-matrix/huge-single-request"
)

// attentionMatrix: eager attention materialising batch × heads × seq × seq
// scores. It fires on eager-attention frames, on a 4-D tensor shape whose
// last two dimensions are equal, and — as a hypothesis only — on a single
// request so large that a quadratic tensor would explain it.
func attentionMatrix() Culprit {
	return Culprit{
		ID:             "attention-matrix",
		Title:          "Eager attention materialising batch × heads × seq² scores",
		Doc:            "Attention without a fused kernel (SDPA's flash or memory-efficient backends, FlashAttention) computes a batch × heads × sequence × sequence matrix of scores, often with a float32 copy for the softmax. It grows with the square of the sequence length: doubling an input (more image tokens, a longer prompt, beams) quadruples it. Training keeps one per layer for the backward pass.",
		Recognise:      "Frames in eager_attention_forward, matmul(query, key.transpose(…)), softmax over attention weights, output_attentions=True; a [b, h, s, s] tensor; a single request ≈ b·h·s²·bytes that dwarfs everything else.",
		Excludes:       []string{parser.KindHostKill, parser.KindCPU, parser.KindServing},
		ExcludesPhases: []string{parser.PhaseLoad, parser.PhaseOptimizer},
		Signals: []Signal{
			{Name: attnScoreShape, Strength: EvidenceSignal, Start: 2.5, Doc: "the failing tensor's shape is [batch, heads, s, s] and its op or frames name attention"},
			{Name: attnSquare, Strength: HypothesisSignal, Start: 0.5, Doc: "the failing tensor's shape is [b, n, s, s] but nothing names attention: an image feature map [batch, channels, h, w] has the same form"},
			{Name: attnFrames, Strength: EvidenceSignal, Start: 1.5, Doc: "a frame or nearby line computes attention scores"},
			{Name: attnEager, Strength: EvidenceSignal, Start: 0.5, Doc: "the log shows the model falling back to eager attention"},
			{Name: attnHuge, Strength: HypothesisSignal, Start: 0.5, Doc: "one request a large share of the device (or beyond any device) outside training"},
		},
		WouldDecide: "the innermost frames of the failing call and the sequence length going into attention",
		Capture:     "rerun with the full traceback (python -X faulthandler …) and log input_ids.shape before the call",
		Assess:      checkAttentionMatrix,
	}
}

// attentionCue holds the words that point at attention-score computation:
// transformers' attention functions, diffusers' attention processors and
// get_attention_scores, the ldm CrossAttention that A1111 and ComfyUI
// share (its einsum of q and k, ComfyUI's attention_basic/split/sub_quad),
// Keras' MultiHeadAttention._compute_attention and Flax's
// dot_product_attention_weights.
func attentionCue() cue {
	return words("eager_attention_forward", "_attention_forward", "attention_forward", "cross_attention", "CrossAttention", "AttnProcessor", "attention_processor", "get_attention_scores", "attention_basic", "attention_split", "attention_sub_quad", "b i d, b j d", "_compute_attention", "dot_product_attention_weights", "attn_weights", "attention_scores", "attention_probs", "attn_scores", "key.transpose", "key_states.transpose", "k.transpose", "matmul(query", "matmul(q,", "bmm(query", "bmm(q,", "bmm(proj_query", "baddbmm", "output_attentions", "scaled_dot_product_attention", "self_attn", "attention(")
}

func checkAttentionMatrix(f *Facts) *Finding {
	ev := f.Ev
	fd := &Finding{Culprit: "attention-matrix", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested}}
	op := ev.Message + " " + f.sameLinePrefix() // TensorFlow names the kernel before the message: "OP_REQUIRES failed at matmul_op_impl.h:728 :"
	named := attentionNamed(op) || namesAny(op, "matmul_op", "batch_matmul", "batchmatmul")
	if s := ev.TensorShape; scoreShaped(s, dtypeBytes(ev.TensorDType), named) && !convOp(op) {
		bytes := dtypeBytes(ev.TensorDType)
		n := s[0] * s[1] * s[2] * s[3] * max(bytes, 1)
		fd.Quantities.Batch, fd.Quantities.Heads, fd.Quantities.SeqLen, fd.Quantities.BytesPerElem = s[0], s[1], s[2], bytes
		if bytes > 0 {
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("%d batch × %d heads × %d × %d × %d B = %s per layer", s[0], s[1], s[2], s[3], bytes, size(n)))
		}
		fd.Evidence = append(fd.Evidence, f.EventLine())
		e, framed := f.Find(attentionCue())
		if !named && !framed {
			if s[0] > 1024 {
				// Thousands of samples in one tensor that nothing names:
				// a dataset fed whole (an evaluation in one sess.run) is
				// the likelier reading, and a feature map explains it as
				// well as attention does.
				return nil
			}
			// A square trailing pair is also an image's height × width:
			// the shape alone is a hypothesis.
			fd.fire(attnSquare)
			fd.Title = fmt.Sprintf("A [%d, %d, %d, %d] tensor: attention scores, or a feature map", s[0], s[1], s[2], s[3])
			fd.Explanation = "The tensor that failed has the form of attention scores, batch × heads × sequence × sequence, but nothing in the log names attention, and an image feature map (batch × channels × height × width) has the same form. Either way it grows with the leading dimension: the batch."
			fd.Decide = "the op that failed: the node name TensorFlow prints below the message ([[{{node …}}]]), or the traceback's innermost frames"
			return fd
		}
		fd.fire(attnScoreShape)
		if framed {
			fd.Evidence = append(fd.Evidence, e)
		}
		fd.Title = fmt.Sprintf("A [%d, %d, %d, %d] attention-score tensor", s[0], s[1], s[2], s[3])
		fd.Explanation = "The tensor that failed has the shape of attention scores: batch × heads × sequence × sequence. It grows with the square of the sequence length and linearly with the batch, and training keeps one per layer for the backward pass."
		return fd
	}
	if e, ok := f.Find(attentionCue()); ok {
		fd.fire(attnFrames)
		fd.Evidence = append(fd.Evidence, e, f.EventLine())
		fd.Title = "The attention scores do not fit"
		fd.Explanation = "The failure is in attention. Without a fused kernel (SDPA's flash or memory-efficient backends, FlashAttention) attention materialises batch × heads × seq × seq scores, often with a float32 copy for the softmax."
		if n, ok := f.Notice("eager-attention-fallback"); ok {
			fd.fire(attnEager)
			fd.Evidence = append(fd.Evidence, n)
			fd.Explanation += " The log shows the model falling back to eager attention."
		}
		f.headsArithmetic(fd)
		return fd
	}
	// A single request that is a large share of the whole device, or larger
	// than any single accelerator made (1 TiB) when the capacity is unknown.
	// The hypothesis stands only where the log cannot say: frames that
	// reach into the libraries' code and name no attention have already
	// decided against it.
	if (f.Capacity > 0 && f.Requested >= f.Capacity*30/100 || f.Capacity == 0 && f.Requested >= 1<<40) && !f.TrainingLikely() && !f.framesReachLibraries() {
		fd.fire(attnHuge)
		fd.Evidence = append(fd.Evidence, f.EventLine())
		if f.Capacity > 0 {
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("one request of %s = %s of the device's %s", size(f.Requested), pct(f.Requested, f.Capacity), size(f.Capacity)))
		} else {
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("one request of %s: more than any single accelerator holds", size(f.Requested)))
		}
		fd.Title = fmt.Sprintf("One %s tensor: possibly a quadratic (attention-sized) allocation", size(f.Requested))
		fd.Explanation = "A single allocation this large is not weights or a cache growing a little. A tensor whose size is quadratic in the sequence length — attention scores over a very long (image- or beam-inflated) sequence — is one explanation; the log's frames would confirm it."
		if f.Capacity == 0 || f.Requested > f.Capacity {
			fd.Explanation += " It is larger than the whole device, so no tuning of the allocator helps: the shape must change."
		}
		fd.Decide = "the frames of the failing call (run with the full traceback) and the sequence length going into attention"
		f.headsArithmetic(fd)
		return fd
	}
	return nil
}

// sameLinePrefix is what stands before the failure's text on its own
// line — a kernel's source file, a logger's tag — or "".
func (f *Facts) sameLinePrefix() string {
	for _, c := range f.Ev.ContextLines {
		if c.Line == f.Ev.Line {
			return c.Text
		}
	}
	return ""
}

// scoreShaped reports whether a 4-D tensor shape can be a layer's
// attention scores [batch, heads, s, s]: the last two dimensions equal and
// at least 64, at most 128 heads, and large enough to matter (16 MiB at
// the dtype's size, float32 when the dtype is not printed). A convolution
// kernel in TensorFlow's [kh, kw, in, out] layout with as many inputs as
// outputs ([3, 3, 1024, 1024]) has the same form: two equal, small leading
// dimensions are read as its window unless the message names attention
// (a node under multi_head_attention/, a softmax, an einsum).
func scoreShaped(s []int64, bytes int64, named bool) bool {
	if len(s) != 4 || s[2] != s[3] || s[1] <= 0 || s[1] > 128 || s[2] < 64 || s[0] <= 0 {
		return false
	}
	if s[0] == s[1] && s[0] <= 7 && !named {
		return false // a kh × kw convolution window
	}
	if bytes == 0 {
		bytes = 4
	}
	return s[0]*s[1]*s[2]*s[3]*bytes >= 16<<20
}

// attentionNamed reports whether a failure message names attention: a
// TensorFlow node or op under an attention layer, a softmax, an einsum or
// a batched matmul.
func attentionNamed(msg string) bool {
	return namesAny(msg, "attention", "softmax", "einsum", "batchmatmul", "attn")
}

// framesReachLibraries reports whether the traceback goes below the
// user's own code into an installed package, where the failing operation
// would be named.
func (f *Facts) framesReachLibraries() bool {
	for _, fr := range f.Ev.Frames {
		if hasAny(fr.File, libraryPathCue().Words) {
			return true
		}
	}
	return false
}

// OwnAttention reports whether the failing frame is the program's own
// code — no installed package's, nor the standard library's — and no frame
// is a transformers or diffusers model's: attention written by hand
// ("attn = torch.matmul(q, k.transpose(-1, -2))" in /home/u/model.py).
func (f *Facts) OwnAttention() bool {
	frames := f.Ev.Frames
	if len(frames) == 0 {
		return false
	}
	for _, fr := range frames {
		if strings.Contains(fr.File, "transformers") || strings.Contains(fr.File, "diffusers") {
			return false
		}
	}
	last := strings.ReplaceAll(frames[len(frames)-1].File, `\`, "/")
	return !hasAny(last, libraryPathCue().Words) && !strings.Contains(last, "/lib/python")
}

// libraryPathCue holds the path parts of installed Python packages.
func libraryPathCue() cue {
	return words("site-packages", "dist-packages")
}

// convOp reports whether a TensorFlow message names a convolutional op,
// whose [batch, channels, height, width] tensors can look like scores.
func convOp(msg string) bool {
	return namesAny(msg, "conv", "relu", "batchnorm", "pool", "fusedbatchnorm")
}

// namesAny reports whether msg holds one of the lower-case words, in any
// case: op and node names are spelt Conv2D, conv2d_3, MultiHeadAttention.
func namesAny(msg string, words ...string) bool {
	m := strings.ToLower(msg)
	for _, w := range words {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// headsArithmetic solves requested = heads × s² × bytes for s when the
// model's head count is known.
func (f *Facts) headsArithmetic(fd *Finding) {
	if f.Model == nil || f.Model.Heads == 0 || f.Requested == 0 {
		return
	}
	for _, b := range []int64{2, 4} {
		s := int64(math.Sqrt(float64(f.Requested) / float64(f.Model.Heads*b)))
		if s >= 256 {
			fd.Quantities.Heads, fd.Quantities.SeqLen, fd.Quantities.BytesPerElem, fd.Quantities.Batch = f.Model.Heads, s, b, 1
			fd.Model = f.Model.ID
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("%s ≈ 1 × %d heads × %s² × %d B (a sequence of ≈%s tokens)", size(f.Requested), f.Model.Heads, commas(s), b, commas(s)))
			return
		}
	}
}

// dtypeBytes is the element size of a TensorFlow/NumPy dtype name.
func dtypeBytes(t string) int64 {
	switch t {
	case "float", "float32", "int32", "uint32":
		return 4
	case "half", "float16", "bfloat16", "int16":
		return 2
	case "double", "float64", "int64":
		return 8
	case "int8", "uint8", "bool":
		return 1
	}
	return 0
}
