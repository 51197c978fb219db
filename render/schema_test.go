package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/advice"
	"github.com/oomdoc/oomdoc/fixtures"
	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

// loadSchema reads report.schema.json, the file shipped for consumers of
// --format json.
func loadSchema(t testing.TB) *validator {
	t.Helper()
	data, err := os.ReadFile("report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := decodeJSON(data)
	if err != nil {
		t.Fatalf("report.schema.json: %v", err)
	}
	root, ok := doc.(map[string]any)
	if !ok {
		t.Fatal("report.schema.json is not an object")
	}
	return &validator{root: root}
}

// reportJSON renders the JSON report of the logs at paths (one input each,
// merged as the command line does for several).
func reportJSON(t testing.TB, cat models.Catalog, paths ...string) []byte {
	t.Helper()
	var reps []advice.Report
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := parser.Parse(bytes.NewReader(data), p)
		if err != nil && !errors.Is(err, parser.ErrBinary) {
			t.Fatalf("%s: %v", p, err)
		}
		reps = append(reps, advice.Build(rules.Input{Result: res, Catalog: cat}))
	}
	var buf bytes.Buffer
	if err := JSON(&buf, advice.Merge(reps)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func mustDecode(t testing.TB, data []byte) any {
	t.Helper()
	v, err := decodeJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSchemaValidatesEveryFixture: the report of every fixture log, and of
// several at once, is valid against the shipped schema.
func TestSchemaValidatesEveryFixture(t *testing.T) {
	v := loadSchema(t)
	cat := models.Load()
	paths := fixtures.Paths("../fixtures")
	events := 0
	for _, p := range paths {
		doc := mustDecode(t, reportJSON(t, cat, p))
		for _, e := range v.validate(doc) {
			t.Errorf("%s: %s", p, e)
		}
		events += len(doc.(map[string]any)["events"].([]any))
	}
	if len(paths) < 100 || events < 100 {
		t.Fatalf("only %d fixtures with %d events: the check proves little", len(paths), events)
	}
	for _, e := range v.validate(mustDecode(t, reportJSON(t, cat, paths[:12]...))) {
		t.Errorf("merged report: %s", e)
	}
}

// TestSchemaRejects: the schema and its validator catch what breaks the
// contract, so a passing fixture run means something.
func TestSchemaRejects(t *testing.T) {
	v := loadSchema(t)
	good := reportJSON(t, models.Load(), "../fixtures/reference/ovis2.5-2b-visual-softmax.log")
	if errs := v.validate(mustDecode(t, good)); len(errs) != 0 {
		t.Fatalf("the reference report is invalid: %v", errs)
	}
	tests := []struct {
		name   string
		mutate func(doc map[string]any)
		want   string
	}{
		{"wrong schema", func(d map[string]any) { d["schema"] = "oomdoc/v2" }, "/schema"},
		{"no events", func(d map[string]any) { delete(d, "events") }, `lacks "events"`},
		{"unknown kind", func(d map[string]any) { event(d)["kind"] = "gpu-sad" }, "/events/0/kind"},
		{"unknown phase", func(d map[string]any) { event(d)["phase"] = "lunch" }, "/events/0/phase"},
		{"bytes as text", func(d map[string]any) { event(d)["total_bytes"] = "15.57 GiB" }, "/events/0/total_bytes"},
		{"fractional bytes", func(d map[string]any) { event(d)["free_bytes"] = json.Number("1.5") }, "/events/0/free_bytes"},
		{"negative bytes", func(d map[string]any) { event(d)["requested_bytes"] = json.Number("-1") }, "/events/0/requested_bytes"},
		{"unknown 0 for null", func(d map[string]any) { delete(event(d), "rank") }, `lacks "rank"`},
		{"line 0", func(d map[string]any) { event(d)["line"] = json.Number("0") }, "/events/0/line"},
		{"confidence above 1", func(d map[string]any) { diagnosis(d)["confidence"] = json.Number("1.2") }, "/diagnoses/0/confidence"},
		{"bad basis", func(d map[string]any) { diagnosis(d)["basis"] = "vibes" }, "/diagnoses/0/basis"},
		{"fix saving 0", func(d map[string]any) {
			diagnosis(d)["fixes"].([]any)[0].(map[string]any)["saves_bytes"] = json.Number("0")
		}, "/diagnoses/0/fixes/0/saves_bytes"},
		{"event id", func(d map[string]any) { diagnosis(d)["event"] = "first" }, "/diagnoses/0/event"},
		{"frame without file", func(d map[string]any) {
			delete(event(d)["frames"].([]any)[0].(map[string]any), "file")
		}, "/events/0/frames/0"},
		{"detection tier", func(d map[string]any) {
			event(d)["detection"] = map[string]any{"family": "generic", "tier": json.Number("3")}
		}, "/events/0/detection/tier"},
		{"measured holder kind", func(d map[string]any) {
			d["measured"] = map[string]any{"source": "snapshot", "holders": []any{map[string]any{"bytes": json.Number("1"), "kind": "ghosts"}}}
		}, "/measured/holders/0/kind"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := mustDecode(t, good).(map[string]any)
			tc.mutate(doc)
			errs := v.validate(doc)
			if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
				t.Errorf("errors %q lack %q", errs, tc.want)
			}
		})
	}
}

func event(d map[string]any) map[string]any { return d["events"].([]any)[0].(map[string]any) }

func diagnosis(d map[string]any) map[string]any {
	return d["diagnoses"].([]any)[0].(map[string]any)
}

// TestSchemaAdmitsAdditiveFields: fields the schema does not name are
// allowed at every level, and the additive fields of report-json.md
// validate as the spec writes them.
func TestSchemaAdmitsAdditiveFields(t *testing.T) {
	v := loadSchema(t)
	doc := mustDecode(t, reportJSON(t, models.Load(), "../fixtures/reference/ovis2.5-2b-visual-softmax.log")).(map[string]any)
	doc["future_field"] = []any{1.0}
	event(doc)["future_field"] = "x"
	event(doc)["device"].(map[string]any)["uuid"] = "GPU-1"
	event(doc)["frames"].([]any)[0].(map[string]any)["column"] = json.Number("4")
	event(doc)["truncated"] = true
	event(doc)["detection"] = map[string]any{"family": "generic", "tier": json.Number("2"), "words": []any{"failed to allocate"}}
	d := diagnosis(doc)
	d["future_field"] = map[string]any{}
	d["basis"], d["would_decide"], d["capture"] = "prior", nil, "oomdoc run --capture -- python train.py"
	d["evidence"].([]any)[0].(map[string]any)["future"] = true
	measured := `{"source": "snapshot", "input": "snapshot.pickle", "device": 0,
	  "active_bytes": 1024, "reserved_bytes": 2048, "largest_free_block_bytes": 512,
	  "oom": {"requested_bytes": 603979776, "device_free_bytes": 328791491},
	  "holders": [{"bytes": 1024, "blocks": 3, "kind": "weights",
	    "site": {"file": "train.py", "line": 10, "function": "main"},
	    "stack": [{"file": "train.py", "line": 10, "function": "main"}], "future": 1}]}`
	doc["measured"] = mustDecode(t, []byte(measured))
	if errs := v.validate(doc); len(errs) != 0 {
		t.Errorf("additive fields rejected: %v", errs)
	}
}

// TestSchemaUsesOnlyCheckedKeywords walks the schema: every keyword is
// one the validator implements (check fails on others too; this says
// which schema path holds it).
func TestSchemaUsesOnlyCheckedKeywords(t *testing.T) {
	v := loadSchema(t)
	known := map[string]bool{"$ref": true, "type": true, "const": true, "enum": true, "properties": true, "required": true, "items": true, "minimum": true, "maximum": true, "pattern": true, "anyOf": true}
	var walk func(s map[string]any, at string)
	walk = func(s map[string]any, at string) {
		for k, kw := range s {
			switch {
			case k == "properties" || k == "$defs":
				for name, sub := range kw.(map[string]any) {
					walk(sub.(map[string]any), at+"/"+k+"/"+name)
				}
			case k == "items":
				walk(kw.(map[string]any), at+"/items")
			case k == "anyOf":
				for _, sub := range kw.([]any) {
					walk(sub.(map[string]any), at+"/anyOf")
				}
			case !known[k] && !annotations[k]:
				t.Errorf("%s: keyword %q is not checked by the test's validator", at, k)
			}
		}
	}
	walk(v.root, "#")
}
