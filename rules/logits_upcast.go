package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/oomdoc/oomdoc/parser"
)

// logitsUpcast: full-vocabulary logits, often upcast to float32, at prefill
// or in the loss. It fires on lm_head / logits.float() / cross_entropy
// frames, and on a large request that factors exactly as tokens × a known
// vocabulary × 4 bytes on a device that holds a model.
func logitsUpcast() Culprit {
	return Culprit{
		ID:             "logits-upcast",
		Title:          "Full-vocabulary logits (often upcast to float32) for every position",
		Doc:            "The language-model head computes batch × positions × vocabulary scores. Many models upcast them to float32 for the softmax or the loss, and the loss makes further copies of the same size; with vocabularies of 150k–260k words this one tensor can outweigh a layer's activations. Only the last position's logits are needed to generate.",
		Recognise:      "Frames in lm_head, logits.float(), cross_entropy or log_softmax over a large vocabulary; a request ≈ batch × seq × vocab × 4 B.",
		Excludes:       []string{parser.KindHostKill, parser.KindCPU, parser.KindServing, parser.KindNCCL},
		ExcludesPhases: []string{parser.PhaseLoad},
		GuessNeeds:     languageModelPossible,
		Signals: []Signal{
			{Name: logitsFrames, Strength: EvidenceSignal, Start: 1.5, Doc: "frames in lm_head, the logits' upcast or the loss over them"},
			{Name: logitsTFShape, Strength: EvidenceSignal, Start: 1.5, Doc: "the failing tensor's last dimension is a model vocabulary"},
			{Name: logitsFactor, Strength: HypothesisSignal, Start: 0.5, Doc: "the exact byte count factors as positions × a known vocabulary × bytes"},
			{Name: logitsSettings, Strength: EvidenceSignal, Start: 3.0, Doc: "the batch size and sequence length the log prints × a known vocabulary × 2 or 4 bytes is the request"},
			{Name: logitsBigInference, Strength: PriorSignal, Start: -0.5, Doc: "one multi-GiB buffer in an inference runtime, without frames"},
		},
		WouldDecide: "the frames of the failing call: a traceback through lm_head or the loss would confirm it",
		Capture:     "rerun with the full traceback and print input_ids.shape and the model's vocab_size",
		Assess:      checkLogitsUpcast,
	}
}

// Signals of logits-upcast.
const (
	logitsFrames       = "logits-upcast/lm-head-frames"
	logitsTFShape      = "logits-upcast/vocab-shape"
	logitsFactor       = "logits-upcast/vocab-factorisation"
	logitsSettings     = "logits-upcast/settings-arithmetic"
	logitsBigInference = "logits-upcast/big-inference-buffer"
)

// logitsCue holds the words that point at full-vocabulary logits or the
// loss over them; accelerate's convert_outputs_to_fp32 (its
// _convert_to_fp32 frames) upcasts a model's outputs under mixed
// precision, which for a language model are the logits.
func logitsCue() cue {
	return words("lm_head", "logits.float()", "cross_entropy", "fixed_cross_entropy", "CrossEntropyLoss", "ForCausalLMLoss", "loss_utils.py", "log_softmax", "selective_log_softmax", "logprobs_from_logits", "get_batch_logps", "_get_batch_logps", "nll_loss", "label_smoothed_nll_loss", "get_logits", "_get_logits", "compute_logits", "logits_processor.py", "logits =", "logits=", "_convert_to_fp32", "convert_outputs_to_fp32")
}

// parameterNamesOnly reports whether a cue line names the output layer
// only as a parameter ("lm_head.weight", saving or sharding a state dict),
// holds no other word of the logits and says it handles parameters: a
// tensor of the weights, not the logits it computes.
func parameterNamesOnly(line string) bool {
	rest := strings.NewReplacer("lm_head.weight", "", "lm_head.bias", "").Replace(line)
	return rest != line && !hasAny(rest, logitsCue().Words) && hasAny(line, parameterContextCue().Words)
}

// parameterContextCue holds the words around a parameter named as such:
// a state dict being saved, cloned or sharded ("Failed to clone() tensor
// with name lm_head.weight"). A forward's F.linear(h, self.lm_head.weight)
// has none of them: it computes the logits.
func parameterContextCue() cue {
	return words("state_dict", "with name", "clone", "param", "shard", "checkpoint", "save")
}

func checkLogitsUpcast(f *Facts) *Finding {
	ev := f.Ev
	if ev.Phase == parser.PhaseLoad {
		return nil // lm_head in a constructor allocates weights, not logits
	}
	fd := &Finding{Culprit: "logits-upcast", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested, Training: f.TrainingLikely()}}
	e, cued := f.Find(logitsCue())
	if cued && parameterNamesOnly(e.Text) {
		cued = false // "Failed to clone() tensor with name lm_head.weight": the weights, not logits
	}
	// Factor the request as tokens × vocab × {4, 2} B.
	vocab := f.Cat.Vocabularies()
	if f.Model != nil && f.Model.Vocab > 0 {
		vocab = []int64{f.Model.Vocab}
		fd.Model = f.Model.ID
	}
	var tokens, v, b int64
	if f.Requested >= 256*mib && (f.Allocated == 0 || f.Allocated >= gib) {
		lo, hi := requestRange(ev)
		for _, bytes := range []int64{4, 2} {
			for i := len(vocab) - 1; i >= 0 && tokens == 0; i-- {
				// Only an exact byte count is evidence: a figure printed with
				// two decimals (or rounded by the allocator) fits some token
				// count for one vocabulary or another by chance, and so does
				// any round size for a power-of-two vocabulary.
				if hi != lo || vocab[i]&(vocab[i]-1) == 0 {
					continue
				}
				if t, ok := factor(lo, hi, vocab[i]*bytes); ok && t >= 512 && t <= 4<<20 {
					tokens, v, b = t, vocab[i], bytes
				}
			}
			if tokens > 0 || !cued {
				break
			}
		}
	}
	batch, seq, sv, sb, setLines, bySettings := f.logitsFromSettings(vocab)
	if bySettings {
		// The log's own settings corroborate the arithmetic: batch ×
		// sequence × vocabulary × bytes is the request, to its printed
		// precision.
		fd.fire(logitsSettings)
		fd.Evidence = append(fd.Evidence, setLines...)
		tokens, v, b = batch*seq, sv, sb
	}
	switch {
	case bySettings:
		if cued {
			fd.fire(logitsFrames)
			fd.Evidence = append(fd.Evidence, e)
		}
	case cued:
		fd.fire(logitsFrames)
		fd.Evidence = append(fd.Evidence, e)
	case vocabShape(ev, f):
		fd.fire(logitsTFShape)
	case tokens > 0 && (tokens%64 != 0 || ev.Kind == parser.KindMPS):
		// No frames, but the size is an exact product with a real
		// vocabulary and an unround token count: a prompt's positions.
		fd.fire(logitsFactor)
		fd.Decide = "the frames of the failing call: a traceback through lm_head or the loss would confirm it"
	case len(ev.Frames) == 0 && f.Requested >= 4*gib && f.Inference > 0 && !f.TrainingLikely():
		// One multi-GiB buffer in an inference runtime with fused attention:
		// the largest single tensor of a long prefill is its logits.
		fd.fire(logitsBigInference)
		for _, v := range []int64{262144, 151936, 128256} {
			t := (f.Requested + v*2) / (v * 4)
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("%s ≈ %s positions × %s vocabulary × 4 B", size(f.Requested), commas(t), commas(v)))
		}
		fd.Decide = "the prompt length and the model's vocabulary: positions × vocabulary × 4 B matching the request confirms it"
	default:
		return nil
	}
	fd.Evidence = append(fd.Evidence, f.EventLine())
	fd.Title = "Logits over the whole vocabulary for every position"
	fd.Explanation = "The language-model head computes batch × positions × vocabulary scores; many models upcast them to float32 for the softmax or the loss, and the loss makes further copies of the same size. Only the last position's logits are needed to generate."
	if bySettings {
		fd.Quantities.Tokens, fd.Quantities.Vocab, fd.Quantities.BytesPerElem, fd.Quantities.Batch, fd.Quantities.SeqLen = tokens, v, b, batch, seq
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("%s ≈ batch %d × sequence %s × %s vocabulary × %d B (the log's settings)", size(f.Requested), batch, commas(seq), commas(v), b))
		fd.Title = fmt.Sprintf("Logits for batch %d × %s positions × %s vocabulary", batch, commas(seq), commas(v))
	} else if tokens > 0 {
		fd.Quantities.Tokens, fd.Quantities.Vocab, fd.Quantities.BytesPerElem, fd.Quantities.Batch = tokens, v, b, 1
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("%s = %s positions × %s vocabulary × %d B", size(f.Requested), commas(tokens), commas(v), b))
		fd.Title = fmt.Sprintf("Float logits for %s positions × %s vocabulary", commas(tokens), commas(v))
	}
	return fd
}

// logitsFromSettings looks for the batch size and sequence length the log
// prints (a trainer's arguments, a script's config) whose product, times
// one of the vocabularies and 2 or 4 bytes, is the request to its printed
// precision. It returns the factors and the setting lines that say them.
func (f *Facts) logitsFromSettings(vocab []int64) (batch, seq, v, b int64, lines []Evidence, ok bool) {
	if f.Requested < 256*mib {
		return 0, 0, 0, 0, nil, false
	}
	lo, hi := requestRange(f.Ev)
	var batches, seqs []parser.Setting
	for _, s := range f.Res.Context.Settings {
		switch s.Name {
		case "per_device_train_batch_size", "per_device_eval_batch_size", "train_batch_size", "eval_batch_size", "batch_size":
			batches = append(batches, s)
		case "max_seq_length", "max_length", "max_model_len":
			seqs = append(seqs, s)
		}
	}
	for _, bs := range batches {
		nb, err := strconv.ParseInt(bs.Value, 10, 64)
		if err != nil || nb <= 0 || nb > 4096 {
			continue
		}
		for _, ss := range seqs {
			ns, err := strconv.ParseInt(ss.Value, 10, 64)
			if err != nil || ns < 16 || ns > 1<<22 {
				continue
			}
			for _, voc := range vocab {
				if voc&(voc-1) == 0 {
					// A power-of-two vocabulary times round settings is any
					// round buffer size (8 × 2,048 × 32,768 × 4 B = 2 GiB).
					continue
				}
				for _, bytes := range []int64{4, 2} {
					if n := nb * ns * voc * bytes; n >= lo && n <= hi {
						ev := []Evidence{{Input: f.Input, Line: bs.Line, Text: bs.Name + "=" + bs.Value}, {Input: f.Input, Line: ss.Line, Text: ss.Name + "=" + ss.Value}}
						return nb, ns, voc, bytes, ev, true
					}
				}
			}
		}
	}
	return 0, 0, 0, 0, nil, false
}

// vocabShape reports whether the failing tensor's last dimension is a
// vocabulary: a known model's, or one of the catalogue's (at least 30,000
// and not a power of two, which round buffer shapes are).
func vocabShape(ev *parser.Event, f *Facts) bool {
	s := ev.TensorShape
	if len(s) < 2 {
		return false
	}
	last := s[len(s)-1]
	if f.Model != nil && f.Model.Vocab > 0 {
		return last == f.Model.Vocab
	}
	if last < 30000 || last&(last-1) == 0 {
		return false
	}
	for _, v := range f.Cat.Vocabularies() {
		if v == last {
			return true
		}
	}
	return false
}
