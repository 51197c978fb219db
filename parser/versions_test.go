package parser

import (
	"fmt"
	"strings"
	"testing"
)

// TestVersions: the library versions a log prints, in the forms people
// paste: a pin, "transformers version: 4.44.2", a banner "torch 2.4.1+cu121,
// transformers 4.44.2", pip list's columns; prose numbers are none.
func TestVersions(t *testing.T) {
	for _, tc := range []struct {
		line string
		want string
	}{
		{"pip install transformers==4.46.1 torch==2.5.1", "[transformers 4.46.1 torch 2.5.1]"},
		{"- `transformers` version: 4.44.2", "[transformers 4.44.2]"},
		{"torch 2.4.1+cu121, transformers 4.44.2, accelerate 0.33.0", "[torch 2.4.1+cu121 transformers 4.44.2 accelerate 0.33.0]"},
		{"transformers              4.46.1", "[transformers 4.46.1]"},
		{"I trained the torch model with 2 GPUs", "[]"},
		{"downgraded from torch 2.11.0 to 2.9.1", "[]"},
		{"  Found existing installation: transformers 4.57.1", "[]"},
	} {
		res, err := Parse(strings.NewReader(tc.line+"\nRuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 4.00 GiB total capacity; 3.10 GiB already allocated; 1.50 MiB free; 3.20 GiB reserved in total by PyTorch)\n"), "x")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range res.Context.Versions {
			got = append(got, v.Name+" "+v.Version)
		}
		if s := fmt.Sprint(got); s != tc.want {
			t.Errorf("%q: versions %s, want %s", tc.line, s, tc.want)
		}
	}
}
