package rules

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// weightsTable is the fitted table the engine scores with. It is data,
// written by the fitter (fit.go) from the labelled corpus and the culprit
// fixtures; TestWeightsFresh fails when it is stale.
//
//go:embed weights.tsv
var weightsTable string

// Weights are the engine's parameters: a log-odds weight per signal, one
// per unknown-class feature, the log prior of each culprit in each prior
// context, and the calibration of a finding's confidence.
type Weights struct {
	Signal  map[string]float64
	Unknown map[string]float64
	Prior   map[string]map[string]float64 // context → culprit id → log P(culprit | context)
	// Silent is, per culprit id, the log-odds shift of a culprit that
	// fired no signal: how often it is the cause with nothing in the log
	// of its own. A culprit whose evidence is nearly always printed
	// (a library's workspace names its library) earns a negative one.
	Silent map[string]float64
	// Slope and Intercept map a finding's softmax share p to its
	// confidence, sigmoid(Slope·logit(p) + Intercept), fitted on shares
	// the fitter did not train on (Platt scaling).
	Slope, Intercept float64
}

// calibrate maps a softmax share to a confidence.
func (w Weights) calibrate(p float64) float64 {
	p = math.Min(math.Max(p, 1e-6), 1-1e-6)
	return 1 / (1 + math.Exp(-(w.Slope*math.Log(p/(1-p)) + w.Intercept)))
}

// priorFloor is the log prior of a culprit the table has no row for.
var priorFloor = math.Log(0.005)

// prior is the log prior of the culprit in the context.
func (w Weights) prior(context, culprit string) float64 {
	if p, ok := w.Prior[context][culprit]; ok {
		return p
	}
	return priorFloor
}

// committedWeights decodes the embedded table. The table is generated and
// tested, so a malformed one is a build defect: it panics.
func committedWeights() Weights {
	w, err := readWeights(strings.NewReader(weightsTable))
	if err != nil {
		panic(fmt.Sprintf("rules: weights.tsv: %v", err))
	}
	return w
}

// readWeights decodes a weights table: '#' comments, then tab-separated
// rows "signal NAME W", "unknown NAME W", "silent CULPRIT W", the
// calibration's two and "prior CONTEXT CULPRIT W".
func readWeights(r io.Reader) (Weights, error) {
	w := Weights{Signal: map[string]float64{}, Unknown: map[string]float64{}, Prior: map[string]map[string]float64{}, Silent: map[string]float64{}, Slope: 1}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return w, fmt.Errorf("line %d: weight %q: %w", n, f[len(f)-1], err)
		}
		switch {
		case f[0] == "signal" && len(f) == 3:
			w.Signal[f[1]] = v
		case f[0] == "unknown" && len(f) == 3:
			w.Unknown[f[1]] = v
		case f[0] == "silent" && len(f) == 3:
			w.Silent[f[1]] = v
		case f[0] == "calibration" && len(f) == 3 && f[1] == "slope":
			w.Slope = v
		case f[0] == "calibration" && len(f) == 3 && f[1] == "intercept":
			w.Intercept = v
		case f[0] == "prior" && len(f) == 4:
			if w.Prior[f[1]] == nil {
				w.Prior[f[1]] = map[string]float64{}
			}
			w.Prior[f[1]][f[2]] = v
		default:
			return w, fmt.Errorf("line %d: want 'signal|unknown|silent NAME W', 'calibration slope|intercept W' or 'prior CONTEXT CULPRIT W', got %q", n, line)
		}
	}
	return w, sc.Err()
}

// writeWeights encodes the table with sorted rows and three decimals, so
// that a refit that changes nothing changes no byte.
func writeWeights(out io.Writer, w Weights, header []string) error {
	bw := bufio.NewWriter(out)
	for _, h := range header {
		fmt.Fprintf(bw, "# %s\n", h)
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for _, k := range sortedKeys(w.Signal) {
		fmt.Fprintf(bw, "signal\t%s\t%s\n", k, num(w.Signal[k]))
	}
	for _, k := range sortedKeys(w.Unknown) {
		fmt.Fprintf(bw, "unknown\t%s\t%s\n", k, num(w.Unknown[k]))
	}
	for _, k := range sortedKeys(w.Silent) {
		fmt.Fprintf(bw, "silent\t%s\t%s\n", k, num(w.Silent[k]))
	}
	fmt.Fprintf(bw, "calibration\tslope\t%s\ncalibration\tintercept\t%s\n", num(w.Slope), num(w.Intercept))
	ctxs := make([]string, 0, len(w.Prior))
	for c := range w.Prior {
		ctxs = append(ctxs, c)
	}
	sort.Strings(ctxs)
	for _, c := range ctxs {
		for _, k := range sortedKeys(w.Prior[c]) {
			fmt.Fprintf(bw, "prior\t%s\t%s\t%s\n", c, k, num(w.Prior[c][k]))
		}
	}
	return bw.Flush()
}

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
