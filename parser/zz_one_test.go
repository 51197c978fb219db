package parser

import (
	"bytes"
	"os"
	"testing"
)

func TestZZOne(t *testing.T) {
	in, _ := os.ReadFile(os.Getenv("ZZFILE"))
	fast, _ := Parse(bytes.NewReader(in), "x")
	slow, _ := parseLines(bytes.NewReader(in), "x", true)
	os.WriteFile("/tmp/review9/one-fast.json", []byte(resultJSON(t, fast)), 0o644)
	os.WriteFile("/tmp/review9/one-slow.json", []byte(resultJSON(t, slow)), 0o644)
}
