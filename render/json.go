package render

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/oomdoc/oomdoc/advice"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
	"github.com/oomdoc/oomdoc/snapshot"
)

// The wire types below are the JSON contract (spec/report-json.md, schema
// oomdoc/v1). They are declared here, apart from the Go types they are
// filled from, so that renaming a Go field never changes the document.

type jsonReport struct {
	Schema      string            `json:"schema"`
	Inputs      []string          `json:"inputs"`
	Events      []parser.Event    `json:"events"`
	Diagnoses   []jsonDiagnosis   `json:"diagnoses"`
	Ineffective []jsonIneffective `json:"ineffective"`
	WhatFits    *advice.FitTable  `json:"what_fits,omitempty"`
	Capture     []string          `json:"capture"` // [] when the log decides the cause
	Dropped     int               `json:"dropped_events,omitempty"`
	Decided     bool              `json:"decided"`
	ShortBytes  *int64            `json:"short_bytes"` // null when the request or the free figure (a serving engine's KV budget) is unknown

	Measured *snapshot.Measured `json:"measured,omitempty"` // a memory snapshot read for the input
}

type jsonDiagnosis struct {
	Culprit     string           `json:"culprit"`
	Confidence  float64          `json:"confidence"`
	Title       string           `json:"title"`
	Explanation string           `json:"explanation"`
	Event       string           `json:"event"`
	Evidence    []rules.Evidence `json:"evidence"`
	Fixes       []jsonFix        `json:"fixes"`
	Arithmetic  []string         `json:"arithmetic,omitempty"`
	Decide      string           `json:"decide,omitempty"`
	Basis       string           `json:"basis"`
	Signals     []string         `json:"signals"` // the named signals that fired, "<culprit>/<what>"
	WouldDecide *string          `json:"would_decide"`
	Capture     *string          `json:"capture"`
	Quantities  rules.Quantities `json:"quantities"`
	Model       string           `json:"model,omitempty"`
	CoCulprits  []string         `json:"co_culprits,omitempty"` // other culprits that each hold at least the shortfall too
}

type jsonFix struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	SavesBytes *int64 `json:"saves_bytes"`
	Snippet    string `json:"snippet"`
	Caveat     string `json:"caveat"`
	Why        string `json:"why,omitempty"`
	Saving     string `json:"saving,omitempty"`
	Note       string `json:"note,omitempty"`
	ShortAfter *int64 `json:"short_after_bytes,omitempty"`
}

type jsonIneffective struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Why   string `json:"why"`
	Event string `json:"event,omitempty"`
	Line  int    `json:"line,omitempty"`
	Tried bool   `json:"tried,omitempty"`
}

// JSON writes the report as spec/report-json.md describes.
func JSON(w io.Writer, rep advice.Report) error { return writeJSON(w, rep, nil) }

// writeJSON writes the report with the memory snapshot read for it, if any.
func writeJSON(w io.Writer, rep advice.Report, m *snapshot.Measured) error {
	out := jsonReport{Schema: advice.Schema, Inputs: rep.Inputs, Events: rep.Events, Diagnoses: []jsonDiagnosis{}, Ineffective: []jsonIneffective{}, WhatFits: rep.WhatFits, Capture: append([]string{}, rep.Capture...), Dropped: rep.Dropped, Decided: rep.Decided, ShortBytes: rep.ShortBytes, Measured: m}
	if out.Inputs == nil {
		out.Inputs = []string{}
	}
	if out.Events == nil {
		out.Events = []parser.Event{}
	}
	for i := range out.Events {
		if out.Events[i].OtherProcesses == nil {
			out.Events[i].OtherProcesses = []parser.Process{}
		}
		if out.Events[i].Frames == nil {
			out.Events[i].Frames = []parser.Frame{}
		}
	}
	for _, d := range rep.Diagnoses {
		jd := jsonDiagnosis{Culprit: d.Culprit, Confidence: round2(d.Confidence), Title: d.Title, Explanation: d.Explanation, Event: d.Event,
			Evidence: d.Evidence, Fixes: []jsonFix{}, Arithmetic: d.Arithmetic, Decide: d.Decide, Quantities: d.Quantities, Model: d.Model,
			Basis: d.Basis, Signals: d.Signals, CoCulprits: d.CoCulprits, WouldDecide: optional(d.Decide), Capture: optional(d.Capture)}
		if jd.Signals == nil {
			jd.Signals = []string{}
		}
		if jd.Evidence == nil {
			jd.Evidence = []rules.Evidence{}
		}
		for _, fx := range d.Fixes {
			jd.Fixes = append(jd.Fixes, jsonFix{ID: fx.ID, Title: fx.Title, SavesBytes: fx.SavesBytes, Snippet: fx.Snippet, Caveat: fx.Caveat, Why: fx.Why, Saving: fx.Saving, Note: fx.Note, ShortAfter: fx.ShortAfter})
		}
		out.Diagnoses = append(out.Diagnoses, jd)
	}
	for _, x := range rep.Ineffective {
		out.Ineffective = append(out.Ineffective, jsonIneffective{ID: x.ID, Title: x.Title, Why: x.Why, Event: x.Event, Line: x.Line, Tried: x.Tried})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := w.Write(escapeJSONUnsafe(buf.Bytes()))
	return err
}

func round2(x float64) float64 { return float64(int(x*100+0.5)) / 100 }

// optional is nil for an empty string: a fact the report does not have is
// null in JSON, not "".
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
