package render

import "testing"

func TestGlue(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"576.00 MiB requested", "576.00\ue000MiB requested"},
		{"512 bytes, 2 GB and 3 B", "512\ue000bytes, 2\ue000GB and 3\ue000B"},
		{"1 GiBs or 2 Bytes or 4 MBx", "1 GiBs or 2 Bytes or 4 MBx"}, // no whole unit after the space
		{"a max-length request", "a max\u2011length request"},
		{"layer 2 Block", "layer 2 Block"},
		{"ends in 7 B", "ends in 7\ue000B"},
		{"", ""},
	} {
		if got := glue(tc.in); got != tc.want {
			t.Errorf("glue(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := unglue(glue(tc.in)); got != tc.in {
			t.Errorf("unglue(glue(%q)) = %q", tc.in, got)
		}
	}
}

func TestWrapKeepsFigureWithUnit(t *testing.T) {
	got := Wrap("the request was 576.00 MiB", 20)
	if want := "the request was\n576.00 MiB"; got != want {
		t.Errorf("Wrap = %q, want %q", got, want)
	}
}
