package advice

import (
	"fmt"
	"strings"

	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

// fixContext is what a culprit's fix builder works from.
type fixContext struct {
	fd  rules.Finding
	f   *rules.Facts
	env Env
	cat models.Catalog
	lf  *logFacts // what the log shows is in place; never nil
}

func bytesp(n int64) *int64 {
	if n <= 0 {
		return nil
	}
	return &n
}

// fixesFor returns a finding's fixes, most effective first.
func fixesFor(c *fixContext) []Fix {
	build, ok := fixBuilders()[c.fd.Culprit]
	if !ok {
		return nil
	}
	var out []Fix
	for _, fx := range build(c) {
		if fx.ID != "" {
			out = append(out, fx)
		}
	}
	return out
}

// fixBuilders maps each culprit to the function that writes its fixes.
func fixBuilders() map[string]func(*fixContext) []Fix {
	return map[string]func(*fixContext) []Fix{
		"weights-too-large":     weightsFixes,
		"weights-wrong-dtype":   dtypeFixes,
		"kv-cache":              kvFixes,
		"visual-tokens":         visualFixes,
		"attention-matrix":      attentionFixes,
		"logits-upcast":         logitsFixes,
		"activations":           activationFixes,
		"optimizer-state":       optimizerFixes,
		"fragmentation":         fragmentationFixes,
		"other-process":         otherProcessFixes,
		"leak":                  leakFixes,
		"no-grad-missing":       noGradFixes,
		"batch-too-large":       batchFixes,
		"device-imbalance":      imbalanceFixes,
		"library-workspace":     workspaceFixes,
		"serving-memory-budget": servingFixes,
		"vae-decode":            vaeFixes,
		"host-ram":              hostFixes,
		"mps-limit":             mpsFixes,
		"checkpoint-to-gpu":     checkpointFixes,
		"allocation-limit":      allocationLimitFixes,
	}
}

// modelID is the model as a Python expression: its quoted id when the
// log or --model names a catalogued model, else the variable model_id
// (what the user's own code passes).
func (c *fixContext) modelID() string {
	if c.f.Model != nil {
		return fmt.Sprintf("%q", c.f.Model.ID)
	}
	return "model_id"
}

func size(n int64) string { return parser.FormatSize(n) }

func commas(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
