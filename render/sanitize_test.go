package render

import "testing"

func TestSafe(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "CUDA out of memory", "CUDA out of memory"},
		{"tab and newline kept", "a\tb\nc", "a\tb\nc"},
		{"escape", "a\x1b[31mb", `a\x1b[31mb`},
		{"bel", "title\x07", `title\x07`},
		{"backspace", "ab\x08\x08", `ab\x08\x08`},
		{"carriage return", "x\ry", `x\x0dy`},
		{"del", "a\x7fb", `a\x7fb`},
		{"c1 csi", "a\u009b31mb", `a\u009b31mb`},
		{"bidi override", "evil\u202etxt.py", `evil\u202etxt.py`},
		{"invalid utf-8", "a\xffb", "a\uFFFDb"},
		{"unicode kept", "███ ≈ ×", "███ ≈ ×"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Safe(tc.in); got != tc.want {
				t.Errorf("Safe(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestEscapeJSONUnsafe(t *testing.T) {
	in := []byte("{\"m\": \"a\u202eb\u0085c\x7f\", \"ok\": \"███\"}")
	want := `{"m": "a\u202eb\u0085c\u007f", "ok": "███"}`
	if got := string(escapeJSONUnsafe(in)); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
