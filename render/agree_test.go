package render

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"testing"
)

// TestFormatsShowTheSameFixes: text, Markdown and JSON list the same fix
// ids in the same order for every fixture — advice decides, the
// renderers only print.
func TestFormatsShowTheSameFixes(t *testing.T) {
	reText := regexp.MustCompile(`(?m)^  \d+\. .*?\[([a-z0-9-]+)\]\s*$`)
	reMD := regexp.MustCompile(`(?m)^\d+\. \*\*.*\(` + "`" + `([a-z0-9-]+)` + "`" + `, for`)
	compared := 0
	for path, rep := range fixtureReports(t) {
		var txt, md, js bytes.Buffer
		if err := Text(&txt, rep, Options{Width: 1000}); err != nil {
			t.Fatal(err)
		}
		if err := Markdown(&md, rep); err != nil {
			t.Fatal(err)
		}
		if err := JSON(&js, rep); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Diagnoses []struct {
				Fixes []struct{ ID string } `json:"fixes"`
			} `json:"diagnoses"`
		}
		if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		var fromJSON, fromText, fromMD []string
		for _, d := range doc.Diagnoses {
			for _, fx := range d.Fixes {
				fromJSON = append(fromJSON, fx.ID)
			}
		}
		for _, m := range reText.FindAllStringSubmatch(txt.String(), -1) {
			fromText = append(fromText, m[1])
		}
		for _, m := range reMD.FindAllStringSubmatch(md.String(), -1) {
			fromMD = append(fromMD, m[1])
		}
		if !slices.Equal(fromJSON, fromText) || !slices.Equal(fromJSON, fromMD) {
			t.Errorf("%s: fixes differ\n  json %v\n  text %v\n  md   %v", path, fromJSON, fromText, fromMD)
		}
		if len(fromJSON) > 0 {
			compared++
		}
	}
	if compared < 50 {
		t.Errorf("only %d reports with fixes compared", compared)
	}
}
