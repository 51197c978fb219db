package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sebdah/goldie/v2"
)

// result is what one run of the program produced.
type result struct {
	stdout, stderr string
	code           int
}

// testEnv binds the program to buffers. tty says whether stdout (and
// stdin) count as terminals.
func testEnv(stdin io.Reader, tty bool, getenv map[string]string) (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	env := &Env{
		Stdin:      stdin,
		Stdout:     &out,
		Stderr:     &errb,
		Getenv:     func(k string) string { return getenv[k] },
		IsTerminal: func(any) bool { return tty },
		TermWidth:  func(any) int { return 120 },
		Open:       openFile,
		Command:    startCommand,
	}
	return env, &out, &errb
}

func runWith(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	env, out, errb := testEnv(strings.NewReader(stdin), false, nil)
	code := run(args, env)
	return result{out.String(), errb.String(), code}
}

func fixture(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "fixtures"}, parts...)...)
}

// goldenCases are the inputs whose reports are pinned in every format: the
// two reference cases and a spread of real logs and variants.
var goldenCases = []struct {
	name string
	args []string
}{
	{"ovis-reference", []string{fixture("reference", "ovis2.5-2b-visual-softmax.log")}},
	{"llava-reference-with-model", []string{"--model", "llava-hf/llava-1.5-13b-hf", fixture("reference", "llava-1.5-13b-load-12gib.log")}},
	{"llava-reference-no-model", []string{fixture("reference", "llava-1.5-13b-load-12gib.log")}},
	{"corpus-inf-003-mlx", []string{fixture("corpus", "inf-003.log")}},
	{"corpus-inf-011-mps", []string{fixture("corpus", "inf-011.log")}},
	{"corpus-inf-022-llamacpp", []string{fixture("corpus", "inf-022.log")}},
	{"corpus-inf-035-vllm", []string{fixture("corpus", "inf-035.log")}},
	{"corpus-trn-004-shm", []string{fixture("corpus", "trn-004.log")}},
	{"corpus-trn-009-other-process", []string{fixture("corpus", "trn-009.log")}},
	{"corpus-trn-021-qlora", []string{fixture("corpus", "trn-021.log")}},
	{"corpus-trn-036-tf", []string{fixture("corpus", "trn-036.log")}},
	{"ranks-interleaved", []string{fixture("formats", "ranks-interleaved.log")}},
	{"no-failure", []string{fixture("formats", "no-failure.log")}},
	{"nonfatal-only", []string{fixture("formats", "nonfatal-warnings-only.log")}},
	{"pinned-memory-fallback", []string{fixture("formats", "llamacpp-pinned-memory-fallback.log")}},
	{"two-inputs", []string{fixture("corpus", "trn-013.log"), fixture("corpus", "inf-029.log")}},
	{"tried-expandable-segments", []string{fixture("formats", "tried-expandable-segments.log")}},
	{"tried-gradient-checkpointing", []string{fixture("formats", "tried-gradient-checkpointing.log")}},
	{"tried-4bit-weights", []string{fixture("formats", "tried-4bit-weights.log")}},
	{"notebook-kernel-only-process", []string{fixture("formats", "notebook-kernel-only-process.log")}},
	{"xpu-oom-fragmented", []string{fixture("formats", "xpu-oom-fragmented.log")}},
	{"oversize-request-onnx", []string{fixture("formats", "onnx-arena-oversize-request.log")}},
	{"implausible-request-torch", []string{fixture("formats", "torch-implausible-request.log")}},
	{"oversubscribed-windows", []string{fixture("formats", "cuda-oversubscribed-windows.log")}},
}

// TestGoldenReports pins what a user sees: the text report at widths 60
// and 100 without colour, one coloured run, Markdown and JSON. Update with
// GOLDIE_UPDATE=1 go test ./cmd/oomdoc and read the diff like code.
func TestGoldenReports(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata"))
	for _, tc := range goldenCases {
		for _, v := range []struct {
			suffix string
			flags  []string
		}{
			{"text60", []string{"--color=never", "--width=60"}},
			{"text100", []string{"--color=never", "--width=100"}},
			{"md", []string{"--format=markdown"}},
			{"json", []string{"--format=json"}},
		} {
			t.Run(tc.name+"/"+v.suffix, func(t *testing.T) {
				r := runWith(t, "", append(v.flags, tc.args...)...)
				if r.code != 0 {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				g.Assert(t, tc.name+"."+v.suffix, []byte(r.stdout))
			})
		}
	}
	t.Run("ovis-reference/colour", func(t *testing.T) {
		r := runWith(t, "", "--color=always", "--width=100", fixture("reference", "ovis2.5-2b-visual-softmax.log"))
		if !strings.Contains(r.stdout, "\x1b[") {
			t.Fatal("--color=always wrote no escape sequences")
		}
		g.Assert(t, "ovis-reference.colour", []byte(r.stdout))
	})
}

// TestCulpritGoldens pins the report of every culprit fixture, next to it.
func TestCulpritGoldens(t *testing.T) {
	logs, _ := filepath.Glob(fixture("culprits", "*", "*.log"))
	for _, path := range logs {
		id := filepath.Base(filepath.Dir(path))
		name := strings.TrimSuffix(filepath.Base(path), ".log")
		t.Run(id+"/"+name, func(t *testing.T) {
			r := runWith(t, "", "--color=never", "--width=80", path)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			g := goldie.New(t, goldie.WithFixtureDir(filepath.Join(filepath.Dir(path), "golden")), goldie.WithNameSuffix(".txt.golden"))
			g.Assert(t, name, []byte(r.stdout))
		})
	}
}

func TestHelp(t *testing.T) {
	r := runWith(t, "", "--help")
	if r.code != 0 {
		t.Fatalf("--help exit %d", r.code)
	}
	goldie.New(t, goldie.WithFixtureDir("testdata")).Assert(t, "help", []byte(r.stdout))
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"report printed", []string{fixture("corpus", "trn-013.log")}, exitOK, ""},
		{"no failure is still a report", []string{fixture("formats", "no-failure.log")}, exitOK, ""},
		{"missing file", []string{filepath.Join(dir, "nope.log")}, exitInput, "no such file"},
		{"directory", []string{dir}, exitInput, "is a directory"},
		{"binary file", []string{binaryFile(t)}, exitInput, "binary file"},
		{"one of two unreadable", []string{fixture("corpus", "trn-013.log"), filepath.Join(dir, "nope.log")}, exitInput, "nope.log"},
		{"unknown flag", []string{"--frobnicate"}, exitUsage, "unknown flag"},
		{"bad format", []string{"--format=yaml", "x"}, exitUsage, "format"},
		{"bad gpu", []string{"--gpu=lots", fixture("corpus", "trn-013.log")}, exitUsage, "--gpu"},
		{"explain unknown", []string{"explain", "no-such-id"}, exitUsage, "no culprit"},
		{"explain culprit", []string{"explain", "visual-tokens"}, exitOK, ""},
		{"explain fix", []string{"explain", "lower-max-pixels"}, exitOK, ""},
		{"rules", []string{"rules"}, exitOK, ""},
		{"run without command", []string{"run"}, exitUsage, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runWith(t, "", tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %q)", r.code, tc.code, r.stderr)
			}
			if tc.stderr != "" && !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr %q lacks %q", r.stderr, tc.stderr)
			}
			if strings.Contains(r.stderr, "goroutine") || strings.Contains(r.stderr, "panic") {
				t.Errorf("stack trace on stderr: %s", r.stderr)
			}
		})
	}
}

// TestNoEscapesWithoutColour: NO_COLOR on a terminal, and any output that
// is not a terminal, carry no escape sequences at all.
func TestNoEscapesWithoutColour(t *testing.T) {
	logs, _ := filepath.Glob(fixture("corpus", "*.log"))
	refs, _ := filepath.Glob(fixture("reference", "*.log"))
	logs = append(logs, refs...)
	for _, path := range logs {
		for _, tty := range []bool{true, false} {
			env, out, _ := testEnv(strings.NewReader(""), tty, map[string]string{"NO_COLOR": "1"})
			if code := run([]string{path}, env); code != 0 {
				t.Fatalf("%s: exit %d", path, code)
			}
			if strings.ContainsAny(out.String(), "\x1b\x07") {
				t.Errorf("%s (tty=%v): escape sequence with NO_COLOR / no terminal", path, tty)
			}
		}
	}
}

// TestHostileLogIsNeutralised: a log full of escape sequences (colour,
// title, OSC 52 clipboard writes, BEL, backspace, C1, bidi overrides)
// cannot put any of them in the text or Markdown report.
func TestHostileLogIsNeutralised(t *testing.T) {
	hostile := "\x1b]0;pwned\x07\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[31m" +
		"  File \"/app/\x1b[2Jx\u202e.py\", line 3, in f\x08\x08\n    y = model(x)\u009b31m\n" +
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\x1b[0m\x07. GPU 0 has a total capacity of 23.65 GiB of which 1.06 GiB is free. Process 9\u202e has 3.00 GiB memory in use. Of the allocated memory 19.00 GiB is allocated by PyTorch, and 300.00 MiB is reserved by PyTorch but unallocated.\n"
	for _, format := range []string{"text", "markdown"} {
		r := runWith(t, hostile, "--color=never", "--format="+format)
		if r.code != 0 {
			t.Fatalf("%s: exit %d %s", format, r.code, r.stderr)
		}
		for _, bad := range []string{"\x1b", "\x07", "\x08", "\u009b", "\u202e"} {
			if strings.Contains(r.stdout, bad) {
				t.Errorf("%s report contains %q", format, bad)
			}
		}
		if !strings.Contains(r.stdout, "2.00 GiB") {
			t.Errorf("%s report lost the failure", format)
		}
	}
	r := runWith(t, hostile, "--format=json")
	if strings.ContainsAny(r.stdout, "\x1b\x07\x08") || strings.Contains(r.stdout, "\u009b") || strings.Contains(r.stdout, "\u202e") {
		t.Errorf("JSON carries raw control characters")
	}
	if !strings.Contains(r.stdout, `\u202e`) || !strings.Contains(r.stdout, `\u009b`) {
		t.Errorf("JSON should keep bidi and C1 characters as \\u escapes")
	}
}

// epipeWriter fails every write as a closed pipe does.
type epipeWriter struct{}

func (epipeWriter) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// TestClosedPipeEndsQuietly: oomdoc | head, with head gone.
func TestClosedPipeEndsQuietly(t *testing.T) {
	data, err := os.ReadFile(fixture("corpus", "trn-021.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{}, {"--tee"}} {
		var errb bytes.Buffer
		env := &Env{Stdin: bytes.NewReader(data), Stdout: epipeWriter{}, Stderr: &errb, Getenv: func(string) string { return "" },
			IsTerminal: func(any) bool { return false }, TermWidth: func(any) int { return 0 }, Open: openFile}
		code := run(args, env)
		if code != exitOK {
			t.Errorf("%v: exit %d, want 0", args, code)
		}
		if len(args) == 0 && errb.Len() != 0 {
			t.Errorf("%v: wrote to stderr: %q", args, errb.String())
		}
	}
}

func TestIsBrokenPipe(t *testing.T) {
	if !isBrokenPipe(&os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}) {
		t.Error("EPIPE not recognised")
	}
	if isBrokenPipe(errors.New("disk full")) {
		t.Error("other errors are not broken pipes")
	}
}

// TestReadmeReport keeps the README's example report real: it must be
// exactly what oomdoc prints for the bundled example.
func TestReadmeReport(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	section := strings.Index(text, "## What a report looks like")
	start := strings.Index(text[section:], "```text\n") + section + len("```text\n")
	end := strings.Index(text[start:], "\n```") + start
	r := runWith(t, "", "--color=never", "--width=88", "fixtures/reference/ovis2.5-2b-visual-softmax.log")
	if got := strings.TrimRight(r.stdout, "\n"); got != text[start:end] {
		t.Errorf("README's report is stale; regenerate it with:\n  go run ./cmd/oomdoc --color=never --width=88 fixtures/reference/ovis2.5-2b-visual-softmax.log")
	}
}

// TestNoNetworkCode: oomdoc works offline by construction; no package that
// opens connections is linked in.
func TestNoNetworkCode(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch dep {
		case "net", "net/http", "crypto/tls":
			t.Errorf("oomdoc links %s", dep)
		}
	}
}

// binaryFile writes a small file of binary garbage and returns its path.
func binaryFile(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "model.bin")
	data := make([]byte, 4096)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFormatMdAlias: --format md is --format markdown, the files' own name.
func TestFormatMdAlias(t *testing.T) {
	const log = "../../fixtures/corpus/c4a-005.log"
	md, markdown := runWith(t, "", "--format", "md", log), runWith(t, "", "--format", "markdown", log)
	if md.code != 0 || md.stdout != markdown.stdout || !strings.HasPrefix(md.stdout, "## oomdoc report") {
		t.Errorf("--format md: exit %d, output %q; want markdown's %q", md.code, md.stdout, markdown.stdout)
	}
}
