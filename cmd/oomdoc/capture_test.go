package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"
)

// snapshotFixtures are the snapshots fixtures/snapshots/make_snapshots.py writes.
var snapshotFixtures = []string{"weights-load", "optimizer-step", "kv-cache-growth", "fragmented"}

// TestSnapshotGoldens pins the report of each snapshot fixture, read by the
// real CLI as `oomdoc x.pickle`, in text and JSON, beside the fixtures.
func TestSnapshotGoldens(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir(fixture("snapshots", "golden")), goldie.WithNameSuffix(".golden"))
	for _, name := range snapshotFixtures {
		for _, v := range []struct {
			suffix string
			flags  []string
		}{
			{"txt", []string{"--color=never", "--width=100"}},
			{"md", []string{"--format=markdown"}},
			{"json", []string{"--format=json"}},
		} {
			t.Run(name+"/"+v.suffix, func(t *testing.T) {
				r := runWith(t, "", append(v.flags, fixture("snapshots", name+".pickle"))...)
				if r.code != 0 || r.stderr != "" {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				g.Assert(t, name+"."+v.suffix, []byte(r.stdout))
			})
		}
	}
}

// TestBadSnapshot: a truncated or hostile pickle is one line on stderr and
// exit 3; the log inputs beside it are still reported.
func TestBadSnapshot(t *testing.T) {
	b, err := os.ReadFile(fixture("snapshots", "weights-load.pickle"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.pickle")
	evil := filepath.Join(dir, "evil.pkl")
	notpickle := filepath.Join(dir, "notes.pickle")
	for p, data := range map[string][]byte{
		cut:       b[:len(b)/2],
		evil:      []byte("\x80\x02cos\nsystem\nX\x02\x00\x00\x00ls\x85R."),
		notpickle: []byte("hello\n"),
	} {
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ path, want string }{
		{cut, "truncated"},
		{evil, `names "os.system"`},
		{notpickle, "not a readable memory snapshot"},
	} {
		r := runWith(t, "", tc.path, fixture("formats", "no-failure.log"))
		if r.code != exitInput || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 3 and one line with %q", filepath.Base(tc.path), r.code, r.stderr, tc.want)
		}
		if !strings.Contains(r.stdout, "no-failure.log") {
			t.Errorf("%s: the readable input was not reported:\n%s", filepath.Base(tc.path), r.stdout)
		}
	}
}

// TestSnapshotOnStdin reads a snapshot piped in (one pass, no seeking).
func TestSnapshotOnStdin(t *testing.T) {
	b, err := os.ReadFile(fixture("snapshots", "fragmented.pickle"))
	if err != nil {
		t.Fatal(err)
	}
	env, out, errb := testEnv(io.MultiReader(bytes.NewReader(b)), false, nil) // a reader that cannot seek, as a pipe
	code := run([]string{"--color=never", "--width=100"}, env)
	r := result{out.String(), errb.String(), code}
	want := runWith(t, "", "--color=never", "--width=100", fixture("snapshots", "fragmented.pickle"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := strings.ReplaceAll(r.stdout, "memory snapshot -,", "memory snapshot fragmented.pickle,")
	got = strings.ReplaceAll(got, "where     line 0 of standard input", "where     "+fixture("snapshots", "fragmented.pickle")+":0")
	if got != want.stdout {
		t.Errorf("stdin report differs from the file's:\n%s\n---\n%s", r.stdout, want.stdout)
	}
}

// captureEnv runs python3 with the stand-in torch and a user sitecustomize
// on PYTHONPATH, and temporary files under a fresh TMPDIR.
func captureEnv(t *testing.T) (python, tmp string, env *Env, out, errb *bytes.Buffer) {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	abs, err := filepath.Abs(filepath.Join("testdata", "capture"))
	if err != nil {
		t.Fatal(err)
	}
	pp := filepath.Join(abs, "usersite") + string(os.PathListSeparator) + filepath.Join(abs, "standin")
	tmp = t.TempDir()
	t.Setenv("PYTHONPATH", pp)
	t.Setenv("TMPDIR", tmp)
	t.Setenv("PYTHONDONTWRITEBYTECODE", "1")
	env, out, errb = testEnv(strings.NewReader(""), false, map[string]string{"PYTHONPATH": pp})
	return python, tmp, env, out, errb
}

// TestCaptureEndToEnd runs `oomdoc run --capture -- python3 train.py`
// against the stand-in torch (testdata/capture/README.md): the hook is
// injected, the user's sitecustomize still runs, history starts only when
// CUDA initialises, the observer's snapshot is read from the dump folder
// and the report says what holds the memory.
func TestCaptureEndToEnd(t *testing.T) {
	python, tmp, env, out, errb := captureEnv(t)
	train := filepath.Join("testdata", "capture", "train.py")
	code := run([]string{"run", "--capture", "--color=never", "--width=100", "--", python, train}, env)
	if code != 1 {
		t.Fatalf("exit %d, want the command's 1\nstdout:\n%s\nstderr:\n%s", code, out, errb)
	}
	if want := "stand-in events: ['import torch', 'cuda init', 'record_memory_history max_entries=100000', 'attach_out_of_memory_observer']"; !strings.Contains(out.String(), want) {
		t.Errorf("history was not armed at CUDA init; stdout:\n%s", out)
	}
	if !strings.Contains(out.String(), "torch imported before the script: False") {
		t.Errorf("the hook imported torch itself; stdout:\n%s", out)
	}
	if n := strings.Count(errb.String(), "user sitecustomize ran"); n != 1 {
		t.Errorf("the user's sitecustomize ran %d times, want once; stderr:\n%s", n, errb)
	}
	kept, _ := filepath.Glob(filepath.Join(tmp, "oomdoc-capture-*", "dump", "snapshot-*.pickle"))
	if len(kept) != 1 || !strings.Contains(errb.String(), "memory snapshot kept at "+kept[0]) {
		t.Fatalf("snapshot kept: %v; stderr:\n%s", kept, errb)
	}
	if hooks, _ := filepath.Glob(filepath.Join(tmp, "oomdoc-capture-*", "hook")); len(hooks) != 0 {
		t.Errorf("the hook folder was left behind: %v", hooks)
	}
	for _, want := range []string{
		"Measured (memory snapshot " + filepath.Base(kept[0]) + ", cuda:0): 12.00 GiB active of 12.00 GiB reserved",
		"weights           12.00 GiB  from_pretrained(), train.py:9 (2 blocks)",
		"free: 4.00 GiB free on the device, 0 bytes cached free by PyTorch, largest free block 0 bytes <",
	} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, errb)
		}
	}
	// the JSON report carries the measured object
	out.Reset()
	errb.Reset()
	if code := run([]string{"run", "--capture", "--format=json", "--", python, train}, env); code != 1 {
		t.Fatalf("json: exit %d", code)
	}
	doc := errb.String()[strings.Index(errb.String(), "{\n"):]
	var rep struct {
		Measured struct {
			Source  string `json:"source"`
			Input   string `json:"input"`
			OOM     struct{ RequestedBytes, DeviceFreeBytes int64 }
			Holders []struct {
				Bytes int64
				Kind  string
				Site  struct {
					File string
					Line int
				}
			}
		} `json:"measured"`
	}
	if err := json.Unmarshal([]byte(doc), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, doc)
	}
	m := rep.Measured
	if m.Source != "snapshot" || len(m.Holders) != 1 || m.Holders[0].Kind != "weights" || m.Holders[0].Bytes != 12<<30 ||
		filepath.Base(m.Holders[0].Site.File) != "train.py" || m.Holders[0].Site.Line != 9 || !strings.HasSuffix(m.Input, ".pickle") {
		t.Errorf("measured: %+v", m)
	}
}

// TestCaptureNoTorch: a program that never imports torch runs as before —
// the hook imports nothing — and leaves no temporary files.
func TestCaptureNoTorch(t *testing.T) {
	python, tmp, env, out, errb := captureEnv(t)
	code := run([]string{"run", "--capture", "--", python, filepath.Join("testdata", "capture", "no_torch.py")}, env)
	if code != 0 || out.String() != "torch in sys.modules: False\n" || errb.String() != "user sitecustomize ran\n" {
		t.Errorf("exit %d\nstdout: %q\nstderr: %q", code, out, errb)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "oomdoc-capture-*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestCaptureOffByDefault: without --capture nothing records history.
func TestCaptureOffByDefault(t *testing.T) {
	python, _, env, out, errb := captureEnv(t)
	code := run([]string{"run", "--", python, filepath.Join("testdata", "capture", "train.py")}, env)
	if code != 1 || !strings.Contains(out.String(), "stand-in events: ['import torch', 'cuda init']\n") || strings.Contains(errb.String(), "Measured") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errb)
	}
}

// TestCaptureModule checks oomdoc_capture's interface, which the Python
// package calls from oomdoc.install(capture=True): enable() before and after
// the program imports torch, and snapshot_path() after a failure.
func TestCaptureModule(t *testing.T) {
	python, tmp, _, _, _ := captureEnv(t)
	abs, _ := filepath.Abs(filepath.Join("testdata", "capture", "standin"))
	hook, _ := filepath.Abs("capture")
	prog := `
import os, sys
import oomdoc_capture as c
late = sys.argv[1] == "late"
if late:
    import torch
    torch.cuda._lazy_init()
assert c.enable(sys.argv[2], max_entries=7) is True
assert ("torch" in sys.modules) == late, "enable() imported torch"
assert c.snapshot_path() is None
import torch
torch.cuda.alloc(12 << 30)
try:
    torch.cuda.alloc(8 << 30)
except torch.OutOfMemoryError:
    pass
p = c.snapshot_path()
assert p and os.path.exists(p) and os.path.exists(p + ".json"), p
print(torch.cuda.EVENTS, os.path.basename(p))
`
	for _, when := range []string{"early", "late"} {
		dir := filepath.Join(tmp, when)
		cmd := exec.Command(python, "-c", prog, when, dir)
		cmd.Env = append(os.Environ(), "PYTHONPATH="+hook+string(os.PathListSeparator)+abs)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", when, err, out)
		}
		if !strings.Contains(string(out), "'record_memory_history max_entries=7', 'attach_out_of_memory_observer']") {
			t.Errorf("%s: %s", when, out)
		}
		fields := strings.Fields(string(out))
		if _, err := readSnapshotFile(&Env{Open: openFile}, filepath.Join(dir, fields[len(fields)-1]), nil); err != nil {
			t.Errorf("%s: the dumped snapshot does not read: %v", when, err)
		}
	}
}

// TestCaptureCaught: an out-of-memory error the program survives leaves a
// snapshot, which is named, and no report.
func TestCaptureCaught(t *testing.T) {
	python, tmp, env, out, errb := captureEnv(t)
	code := run([]string{"run", "--capture", "--", python, filepath.Join("testdata", "capture", "caught.py")}, env)
	kept, _ := filepath.Glob(filepath.Join(tmp, "oomdoc-capture-*", "dump", "snapshot-*.pickle"))
	if code != 0 || out.String() != "caught; smaller batch\n" || len(kept) != 1 ||
		errb.String() != "user sitecustomize ran\noomdoc: the command ran out of CUDA memory and went on; its memory snapshot is kept at "+kept[0]+"\n" {
		t.Errorf("exit %d, kept %v\nstdout: %q\nstderr: %q", code, kept, out, errb)
	}
}
