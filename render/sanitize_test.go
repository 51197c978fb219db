package render

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSafe(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "CUDA out of memory", "CUDA out of memory"},
		{"tab and newline kept", "a\tb\nc", "a\tb\nc"},
		{"nul", "a\x00b", `a\x00b`},
		{"escape", "a\x1b[31mb", `a\x1b[31mb`},
		{"osc 52 clipboard", "\x1b]52;c;ZXZpbA==\x07", `\x1b]52;c;ZXZpbA==\x07`},
		{"bel", "title\x07", `title\x07`},
		{"backspace", "ab\x08\x08", `ab\x08\x08`},
		{"carriage return", "x\ry", `x\x0dy`},
		{"vertical tab and form feed", "a\vb\fc", `a\x0bb\x0cc`},
		{"del", "a\x7fb", `a\x7fb`},
		{"c1 csi", "a\u009b31mb", `a\u009b31mb`},
		{"c1 nel", "a\u0085b", `a\u0085b`},
		{"c1 osc", "a\u009db", `a\u009db`},
		{"bidi override", "evil\u202etxt.py", `evil\u202etxt.py`},
		{"bidi embedding", "a\u202ab", `a\u202ab`},
		{"bidi isolate", "a\u2066b\u2069", `a\u2066b\u2069`},
		{"bidi marks", "a\u200eb\u200fc\u061cd", `a\u200eb\u200fc\u061cd`},
		{"zero-width space", "to\u200bken", `to\u200bken`},
		{"zero-width non-joiner", "a\u200cb", `a\u200cb`},
		{"zero-width joiner", "a\u200db", `a\u200db`},
		{"word joiner", "a\u2060b", `a\u2060b`},
		{"byte-order mark", "\ufeffTraceback", `\ufeffTraceback`},
		{"line and paragraph separators", "a\u2028b\u2029c", `a\u2028b\u2029c`},
		{"invalid utf-8", "a\xffb", "a\uFFFDb"},
		{"unicode kept", "███ ≈ × café 日本", "███ ≈ × café 日本"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Safe(tc.in); got != tc.want {
				t.Errorf("Safe(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSafeLine(t *testing.T) {
	if got, want := SafeLine("a.log\n# H\tx"), `a.log\x0a# H`+"\tx"; got != want {
		t.Errorf("SafeLine = %q, want %q", got, want)
	}
}

func TestMarkdownEscapes(t *testing.T) {
	tests := []struct {
		name string
		fn   func(string) string
		in   string
		want string
	}{
		{"html", mdText, `<img src=x onerror=alert(1)>`, `\<img src=x onerror=alert(1)\>`},
		{"link", mdText, `[link](http://x)`, `\[link\](http://x)`},
		{"image", mdText, `![i](x.png)`, `!\[i\](x.png)`},
		{"emphasis", mdText, `*a* _b_ ~~c~~`, `\*a\* \_b\_ \~\~c\~\~`},
		{"intraword underscore kept", mdText, `max_split_size_mb`, `max_split_size_mb`},
		{"entity", mdText, `&lt;script&gt;`, `\&lt;script\&gt;`},
		{"table bar", mdText, `a|b`, `a\|b`},
		{"heading at start", mdText, `# INJECTED`, `\# INJECTED`},
		{"list at start", mdText, `- item`, `\- item`},
		{"ordered list at start", mdText, `12. item`, `12\. item`},
		{"number at start kept", mdText, `26.7 GB`, `26.7 GB`},
		{"newline neutralised, its escape shown as typed", mdText, "a\n# H", `a\\x0a# H`},
		{"backslash", mdText, `C:\x`, `C:\\x`},
		{"code span fence", mdCode, "a`b``c", "```a`b``c```"},
		{"code span edge tick", mdCode, "`x", "`` `x ``"},
		{"code span table bar", mdCode, "a|b", "`a\\|b`"},
		{"block fence", func(s string) string { return mdBlock("", "text", s) }, "x\n````\ny", "`````text\nx\n````\ny\n`````\n"},
		{"block indent", func(s string) string { return mdBlock("   ", "", s) }, "a\n\n<img>", "   ```\n   a\n   \n   <img>\n   ```\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.fn(tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEscapeJSONUnsafe(t *testing.T) {
	in := []byte("{\"m\": \"a\u202eb\u0085c\x7f\u200bd\ufeff\", \"ok\": \"███\"}")
	want := `{"m": "a\u202eb\u0085c\u007f\u200bd\ufeff", "ok": "███"}`
	got := escapeJSONUnsafe(in)
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// exact: the escaped document decodes to the same strings
	var a, b map[string]string
	if err := json.Unmarshal(in, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &b); err != nil {
		t.Fatal(err)
	}
	if a["m"] != b["m"] || !strings.Contains(b["m"], "\u200b") {
		t.Errorf("escaping changed the value: %q vs %q", a["m"], b["m"])
	}
}
