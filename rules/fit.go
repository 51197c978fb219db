package rules

import "math"

// A labelled case is one log with the cause a person diagnosed, for
// fitting the weights and for scoring them.
type labelled struct {
	name        string
	a           assessment
	root        string   // the diagnosed culprit
	acceptable  []string // other fair diagnoses
	undecidable bool     // the label says the log alone cannot decide ("U")
	markedD     bool     // the label says the log alone decides ("D"); older labels say neither
}

// Fitting settings. The regularisation pulls every weight back to the
// start its signal declares, so a signal seen in two logs moves a little
// and one never seen keeps the domain knowledge it started with.
const (
	fitIterations   = 2000
	fitRate         = 0.5 // step size on the mean gradient per case
	fitL2Evidence   = 1.0 // strength of the pull back to the declared starts, in cases: evidence
	fitL2Weak       = 0.5 // … and hypotheses, priors and the unknown class, which must stay modest
	fitL2Silent     = 4.0 // … and a culprit's shift when it fired nothing, pulled to none
	uMass           = 0.5
	priorSmooth     = 20.0 // pseudo-counts pulling a context's base rates to the global ones
	priorAcceptable = 0.3  // the share of a case's count its acceptable causes get in the base rates
)

// calibrationFolds is how many folds the fitter splits its own cases into
// to see shares it did not train on, for the calibration.
const calibrationFolds = 4

// fitWeights fits the table on the cases (fitScores), then the
// calibration on out-of-fold shares: each case is scored by weights fitted
// without it, so the calibration learns how often a share of p was right
// on logs the weights had not seen.
func fitWeights(cases []labelled, cs []Culprit) Weights {
	w := fitScores(cases, cs)
	var xs []float64
	var ys []bool
	for k := 0; k < calibrationFolds; k++ {
		var train, held []labelled
		for i := range cases {
			if i%calibrationFolds == k {
				held = append(held, cases[i])
			} else {
				train = append(train, cases[i])
			}
		}
		wk := fitScores(train, cs)
		for i := range held {
			if p, right, ok := topShare(&held[i], cs, wk); ok {
				xs, ys = append(xs, p), append(ys, right)
			}
		}
	}
	w.Slope, w.Intercept = fitPlatt(xs, ys)
	return w
}

// topShare is the softmax share of the first finding with evidence, and
// whether its culprit is the label's or an acceptable one.
func topShare(lc *labelled, cs []Culprit, w Weights) (p float64, right, ok bool) {
	if lc.a.first == nil {
		return 0, false, false
	}
	zs, u := logits(lc.a, cs, w)
	ps := probabilities(zs, u)
	best := -1
	for i, z := range zs {
		if z.option >= 0 && supported(&cs[z.culprit], lc.a.options[z.option].finding.Signals, w) && (best < 0 || ps[i] > ps[best]) {
			best = i
		}
	}
	if best < 0 {
		return 0, false, false
	}
	id := cs[zs[best].culprit].ID
	right = id == lc.root
	for _, a := range lc.acceptable {
		right = right || id == a
	}
	return ps[best], right, true
}

// fitPlatt fits confidence = sigmoid(a·logit(p) + b) to the outcomes by
// gradient descent on the log loss, pulled towards the identity (a = 1,
// b = 0) so that a handful of cases cannot bend it far.
func fitPlatt(xs []float64, ys []bool) (a, b float64) {
	a = 1
	if len(xs) == 0 {
		return a, b
	}
	n := float64(len(xs))
	for it := 0; it < 3000; it++ {
		ga, gb := 0.0, 0.0
		for i, p := range xs {
			p = math.Min(math.Max(p, 1e-6), 1-1e-6)
			x := math.Log(p / (1 - p))
			q := 1 / (1 + math.Exp(-(a*x + b)))
			y := 0.0
			if ys[i] {
				y = 1
			}
			ga += (q - y) * x
			gb += q - y
		}
		a -= 0.5 / n * (ga + plattL2*(a-1))
		b -= 0.5 / n * (gb + plattL2*b)
	}
	return a, b
}

// plattL2 is the calibration's pull towards the identity, in cases.
const plattL2 = 100.0

// fitScores fits the scores on the cases: base rates per context by
// smoothed counts, then the signal weights, the unknown class's and each
// culprit's silent shift by gradient descent on the cross-entropy against
// each case's target distribution.
func fitScores(cases []labelled, cs []Culprit) Weights {
	w := Weights{Signal: map[string]float64{}, Unknown: map[string]float64{}, Prior: fitPriors(cases, cs), Silent: map[string]float64{}, Slope: 1}
	for _, c := range cs {
		w.Silent[c.ID] = 0 // starts as no shift: the base rate alone
	}
	start, l2 := map[string]float64{}, map[string]float64{}
	for _, c := range cs {
		for _, s := range c.Signals {
			start[s.Name], l2[s.Name] = s.Start, fitL2Weak
			if s.Strength == EvidenceSignal {
				l2[s.Name] = fitL2Evidence
			}
		}
	}
	unknownStart := map[string]float64{unknownBias: -1, unknownNoEvidence: 1, unknownNoFrames: 0, unknownOneLine: 0, unknownNoPhase: 0, unknownTruncated: 0.5, unknownGeneric: 0.5}
	for k, v := range start {
		w.Signal[k] = v
	}
	for k, v := range unknownStart {
		w.Unknown[k] = v
	}
	n := float64(len(cases))
	if n == 0 {
		return w // nothing to learn from: the declared starts
	}
	for it := 0; it < fitIterations; it++ {
		gs := map[string]float64{}
		gu := map[string]float64{}
		gq := map[string]float64{}
		for i := range cases {
			lc := &cases[i]
			if lc.a.first == nil {
				continue
			}
			zs, u := logits(lc.a, cs, w)
			ps := probabilities(zs, u)
			ts := targets(lc, zs, cs)
			for j, z := range zs {
				d := ps[j] - ts[j]
				if z.option < 0 {
					gq[cs[z.culprit].ID] += d
					continue
				}
				for _, s := range lc.a.options[z.option].finding.Signals {
					gs[s] += d
				}
			}
			d := ps[len(zs)] - ts[len(zs)]
			for _, t := range unknownFeatures(lc.a, cs, w) {
				gu[t] += d
			}
		}
		for k := range w.Signal {
			w.Signal[k] -= fitRate / n * (gs[k] + l2[k]*(w.Signal[k]-start[k]))
		}
		for k := range w.Unknown {
			w.Unknown[k] -= fitRate / n * (gu[k] + fitL2Weak*(w.Unknown[k]-unknownStart[k]))
		}
		for k := range w.Silent {
			w.Silent[k] -= fitRate / n * (gq[k] + fitL2Silent*w.Silent[k])
		}
	}
	return w
}

// fitPriors counts the diagnosed culprits per context, smoothed towards
// the global rates (themselves smoothed with one count per culprit), and
// returns their logarithms for every context and culprit.
func fitPriors(cases []labelled, cs []Culprit) map[string]map[string]float64 {
	global := map[string]float64{}
	per := map[string]map[string]float64{}
	total := 0.0
	for i := range cases {
		lc := &cases[i]
		if lc.a.first == nil {
			continue
		}
		if per[lc.a.context] == nil {
			per[lc.a.context] = map[string]float64{}
		}
		// A label's acceptable causes are fair diagnoses too: they share
		// the count as the fitting targets share the mass.
		root := 1.0
		if len(lc.acceptable) > 0 {
			root = 1 - priorAcceptable
		}
		global[lc.root] += root
		per[lc.a.context][lc.root] += root
		for _, a := range lc.acceptable {
			global[a] += (1 - root) / float64(len(lc.acceptable))
			per[lc.a.context][a] += (1 - root) / float64(len(lc.acceptable))
		}
		total++
	}
	out := map[string]map[string]float64{}
	for _, ctx := range priorContexts() {
		out[ctx] = map[string]float64{}
		nctx := 0.0
		for _, v := range per[ctx] {
			nctx += v
		}
		for _, c := range cs {
			g := (global[c.ID] + 1) / (total + float64(len(cs)))
			p := (per[ctx][c.ID] + priorSmooth*g) / (nctx + priorSmooth)
			out[ctx][c.ID] = math.Log(p)
		}
	}
	return out
}

// targets is the distribution a case should get over the scored culprits
// and the unknown class (last): the diagnosed culprit, a share for the
// acceptable ones, and — when the label says the log cannot decide — half
// of it on "unknown", which teaches the engine to hedge on such logs.
func targets(lc *labelled, zs []scored, cs []Culprit) []float64 {
	ts := make([]float64, len(zs)+1)
	rootAt := -1
	var accAt []int
	for j, z := range zs {
		id := cs[z.culprit].ID
		if id == lc.root {
			rootAt = j
		}
		for _, a := range lc.acceptable {
			if a == id {
				accAt = append(accAt, j)
			}
		}
	}
	mass := 1.0
	if lc.undecidable {
		mass = uMass
		ts[len(zs)] = 1 - uMass
	}
	switch {
	case rootAt >= 0 && len(accAt) > 0:
		ts[rootAt] = 0.7 * mass
		for _, j := range accAt {
			ts[j] += 0.3 * mass / float64(len(accAt))
		}
	case rootAt >= 0:
		ts[rootAt] = mass
	case len(accAt) > 0:
		for _, j := range accAt {
			ts[j] += mass / float64(len(accAt))
		}
	default:
		ts[len(zs)] += mass
	}
	return ts
}

// A verdict is how one case's ranked findings compare with its label.
type verdict struct {
	name        string
	undecidable bool
	markedD     bool
	first       string  // the first culprit named, "" for none
	confidence  float64 // its confidence
	right1      bool    // the first culprit is the label's or an acceptable one
	right3      bool    // one of the first three is
	basis       string
	top         []string // the first three culprits named, for the case listing
}

// judge ranks a case's findings with the weights and compares them with
// its label.
func judge(lc *labelled, cs []Culprit, w Weights) verdict {
	v := verdict{name: lc.name, undecidable: lc.undecidable, markedD: lc.markedD}
	ok := map[string]bool{lc.root: true}
	for _, a := range lc.acceptable {
		ok[a] = true
	}
	for i, fd := range score(lc.a, cs, w) {
		if i == 0 {
			v.first, v.confidence = fd.Culprit, fd.Confidence
			v.right1 = ok[fd.Culprit]
			v.basis = string(fd.Basis)
		}
		if i < 3 {
			v.top = append(v.top, fd.Culprit)
			v.right3 = v.right3 || ok[fd.Culprit]
		}
	}
	return v
}
