// Package advice turns the rules' findings into what the user should
// change: fixes ranked by their effect on this crash, each with the bytes it
// saves (computed from the finding's quantities, or unknown), spelled for
// the versions the log shows; the popular remedies that will not help, with
// the reason; and for weight culprits a table of what fits the device.
package advice

import (
	"sort"
	"strconv"

	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

// Schema is the JSON report's schema id (spec/report-json.md).
const Schema = "oomdoc/v1"

// A Fix is one change that addresses a culprit.
type Fix struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	Why        string `json:"why"`
	Snippet    string `json:"snippet"`
	SavesBytes *int64 `json:"saves_bytes"`
	// Saving says in words what the saving is made of ("≈2,304 → 576
	// visual tokens: 576.00 MiB → 144.00 MiB").
	Saving string `json:"saving,omitempty"`
	Caveat string `json:"caveat"`
	// Note explains a spelling chosen for the user's versions.
	Note string `json:"note,omitempty"`
	// ShortAfter is what the request still lacks after this fix alone: 0
	// when the fix makes it fit, nil when the log does not tell.
	ShortAfter *int64 `json:"short_after_bytes,omitempty"`
	// after is the size of what the fix shrinks, once shrunk (the weights
	// in 4-bit), for fits arithmetic against the device; 0 when the fix
	// shrinks the failing request itself.
	after int64
	// cites are the log lines the fix's text names ("was 8 (line 12)"),
	// each with the word that line holds.
	cites []fact
}

// An Ineffective remedy is popular advice the evidence rules out.
type Ineffective struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Why   string `json:"why"`
	Event string `json:"event,omitempty"`
	// Line is the log line the reason cites (a setting the user tried, a
	// warning), 0 when it cites none; Token is the word that line holds.
	Line  int    `json:"line,omitempty"`
	Token string `json:"-"`
	// Tried is true when the log shows the remedy is already in place.
	Tried bool `json:"tried,omitempty"`
}

// A Diagnosis is a finding with its fixes.
type Diagnosis struct {
	rules.Finding
	Fixes []Fix `json:"fixes"`
}

// A FitRow is one option of the "what fits" table.
type FitRow struct {
	Option   string `json:"option"`
	Bytes    int64  `json:"bytes"`
	Fits     bool   `json:"fits"`
	Headroom int64  `json:"headroom_bytes"` // capacity − bytes − reserve; negative when it does not fit
	Note     string `json:"note,omitempty"`
}

// A FitTable compares weight formats and models with the device.
type FitTable struct {
	Model    string   `json:"model"`
	Capacity int64    `json:"capacity_bytes"`
	Reserve  int64    `json:"reserve_bytes"`
	Rows     []FitRow `json:"rows"`
}

// Report is the whole answer for a set of inputs.
type Report struct {
	Inputs      []string       `json:"inputs"`
	Events      []parser.Event `json:"events"`
	Diagnoses   []Diagnosis    `json:"diagnoses"`
	Ineffective []Ineffective  `json:"ineffective"`
	WhatFits    *FitTable      `json:"what_fits,omitempty"`
	Capture     []string       `json:"capture,omitempty"` // what to capture next when evidence is thin
	// Decided is false when the log does not decide the cause: no finding,
	// or the likeliest rests on a prior or has at most ThinEvidence.
	Decided bool `json:"decided"`
	// ShortBytes is what the failing request lacked (requested − free; for
	// a serving engine's KV cache, needed − available), nil when the log
	// does not give both.
	ShortBytes *int64          `json:"short_bytes,omitempty"`
	Context    *parser.Context `json:"-"`
	Lines      int             `json:"-"` // the lines read, over every input: 0 for an empty one
	Dropped    int             `json:"dropped_events,omitempty"`
}

// Report policy, decided here once for every format.
const (
	// MaxDiagnoses bounds the culprits a report names.
	MaxDiagnoses = 5
	// FixedDiagnoses is how many of them carry fixes, and FixesPerDiagnosis
	// how many each; a fix is shown once, under the likeliest culprit.
	FixedDiagnoses    = 3
	FixesPerDiagnosis = 3
	// ThinEvidence is the confidence at or below which the report does not
	// name a cause but says what would decide it.
	ThinEvidence = 0.5
	// MaxUsualWontHelp bounds the usual remedies listed as not helping
	// (remedies the log shows were tried come first and are not counted).
	MaxUsualWontHelp = 3
)

// Build makes the report for one parsed input.
func Build(in rules.Input) Report {
	res := in.Result
	rep := Report{Inputs: []string{res.Input}, Events: res.Events, Context: &res.Context, Dropped: res.Dropped, Lines: res.Lines}
	rep.Diagnoses, rep.Ineffective = []Diagnosis{}, []Ineffective{}
	if rep.Events == nil {
		rep.Events = []parser.Event{}
	}
	if len(res.Events) == 0 {
		return rep
	}
	env := EnvOf(res)
	findings := rules.Diagnose(in, rules.All())
	if len(findings) > MaxDiagnoses {
		findings = findings[:MaxDiagnoses]
	}
	first := 0
	if len(findings) > 0 {
		first = eventIndex(res, findings[0].Event)
	}
	top := rules.NewFacts(in, first)
	lf := readLogFacts(res, top.Ev)
	env.readFacts(&lf)
	settled := decided(findings)
	for i, fd := range findings {
		f := rules.NewFacts(in, eventIndex(res, fd.Event))
		ctx := &fixContext{fd: fd, f: f, env: env, cat: in.Catalog, lf: &lf}
		var fixes []Fix
		// A culprit named for the kind of failure alone, with nothing in
		// the log pointing at it, gets what would decide it, not fixes; so
		// does a long shot beside a cause the log decides (the KV cache at
		// 4% beside a vision encoder's 80%), whose fixes would crowd the
		// ones that act.
		if len(fd.Signals) > 0 && (i == 0 || !settled || fd.Confidence >= MinorShare) {
			fixes = fixesFor(ctx)
		}
		rep.Diagnoses = append(rep.Diagnoses, Diagnosis{Finding: fd, Fixes: fixes})
	}
	rep.Decided = settled
	if top.Requested > 0 && top.FreeKnown && top.Requested > top.Free && !top.Ev.RequestOverflow {
		// a request no device holds is short of nothing memory could give
		rep.ShortBytes = bytesp(top.Requested - top.Free)
	} else if kv := top.Ev.KVCacheAvailableBytes; kv != nil && top.Requested > *kv {
		// a serving engine's KV cache against the budget it had left ("16.00
		// GiB KV cache is needed, which is larger than the available KV cache
		// memory (5.34 GiB)")
		rep.ShortBytes = bytesp(top.Requested - *kv)
	} else if req, tot := top.Ev.RequiredBytes, top.Ev.TotalBytes; top.Requested == 0 && req != nil && tot != nil && *req > *tot {
		// a compile-time verdict on the whole program against the device
		// ("Used 17.82G of 15.48G hbm"): short by the excess
		rep.ShortBytes = bytesp(*req - *tot)
	}
	tried := rep.choose(&lf, top)
	tried = append(tried, rep.triedElsewhere(&fixContext{f: top, env: env, cat: in.Catalog, lf: &lf}, tried)...)
	rep.WhatFits = whatFits(findings, top, in.Catalog)
	rep.Ineffective = append(tried, ineffectiveFor(findings, top, env, &lf)...)
	rep.dropRuledOut()
	rep.dropForeignSnippets(res)
	rep.dropHubSnippets(res)
	rep.dropDeviceless(res)
	rep.Capture = captureFor(findings, top, rep.Decided, &lf)
	return rep
}

// MinorShare is the confidence below which a culprit other than the first
// gets no fixes when the first decides the cause.
const MinorShare = 0.10

// decided reports whether the likeliest finding names the cause: it rests
// on evidence and its confidence is above ThinEvidence.
func decided(fs []rules.Finding) bool {
	return len(fs) > 0 && fs[0].Basis != rules.BasisPrior && fs[0].Confidence > ThinEvidence
}

func eventIndex(res *parser.Result, id string) int {
	for i := range res.Events {
		if res.Events[i].ID == id {
			return i
		}
	}
	return 0
}

// Merge joins the reports of several inputs into one, numbering the events
// across them so that ids stay unique; the diagnoses form one list ranked
// by confidence across every input (spec/report-json.md).
func Merge(reps []Report) Report {
	if len(reps) == 1 {
		return reps[0]
	}
	out := Report{Inputs: []string{}, Events: []parser.Event{}, Diagnoses: []Diagnosis{}, Ineffective: []Ineffective{}}
	n := 0
	for _, r := range reps {
		ids := map[string]string{}
		out.Inputs = append(out.Inputs, r.Inputs...)
		out.Lines += r.Lines
		for _, ev := range r.Events {
			n++
			id := "e" + itoa(n)
			ids[ev.ID] = id
			ev.ID = id
			out.Events = append(out.Events, ev)
		}
		for _, d := range r.Diagnoses {
			d.Event = ids[d.Event]
			out.Diagnoses = append(out.Diagnoses, d)
		}
		for _, x := range r.Ineffective {
			x.Event = ids[x.Event]
			out.Ineffective = append(out.Ineffective, x)
		}
		if out.WhatFits == nil {
			out.WhatFits = r.WhatFits
		}
		out.Capture = append(out.Capture, r.Capture...)
		out.Dropped += r.Dropped
		out.Decided = out.Decided || r.Decided
		if out.ShortBytes == nil {
			out.ShortBytes = r.ShortBytes
		}
	}
	sort.SliceStable(out.Diagnoses, func(i, j int) bool { return out.Diagnoses[i].Confidence > out.Diagnoses[j].Confidence })
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
