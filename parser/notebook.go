package parser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// maxNotebookBytes bounds how much of a .ipynb file is decoded. Notebooks
// carry their outputs (images included) inline; the tracebacks are small.
const maxNotebookBytes = 64 << 20

// isNotebook reports whether the input is a Jupyter notebook: by name, or by
// a JSON object that mentions cells or nbformat in its first bytes.
func isNotebook(head []byte, name string) bool {
	if strings.HasSuffix(strings.ToLower(name), ".ipynb") {
		return true
	}
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	return len(t) > 0 && t[0] == '{' && (bytes.Contains(head, []byte(`"cells"`)) || bytes.Contains(head, []byte(`"nbformat"`)))
}

// notebookText extracts the text a person would see in the notebook's
// outputs: stream text and error tracebacks (ANSI colours kept; the line
// scanner strips them), one output after another.
func notebookText(r io.Reader) (string, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxNotebookBytes+1))
	if err != nil {
		return "", fmt.Errorf("read notebook: %w", err)
	}
	if len(data) > maxNotebookBytes {
		return "", fmt.Errorf("read notebook: larger than %d MiB", maxNotebookBytes>>20)
	}
	var nb struct {
		Cells []struct {
			Source  json.RawMessage `json:"source"`
			Outputs []struct {
				Name      string          `json:"name"`
				Text      json.RawMessage `json:"text"`
				EName     string          `json:"ename"`
				EValue    string          `json:"evalue"`
				Traceback []string        `json:"traceback"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		return "", fmt.Errorf("decode notebook: %w", err)
	}
	var b strings.Builder
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			if len(o.Traceback) > 0 {
				for _, t := range o.Traceback {
					b.WriteString(t)
					b.WriteByte('\n')
				}
				continue
			}
			b.WriteString(jsonText(o.Text))
		}
	}
	return b.String(), nil
}

// jsonText reads a notebook text field, which is a string or a list of them.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		return strings.Join(many, "")
	}
	return ""
}
