package main

import (
	"bufio"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/snapshot"
)

// captureHook is what `run --capture` puts on the command's PYTHONPATH: a
// sitecustomize that chains to the one it shadows and arms
// oomdoc_capture when the program imports torch (capture/*.py say how).
//
//go:embed capture/sitecustomize.py capture/oomdoc_capture.py
var captureHook embed.FS

// captureMaxEntries is how many allocator events the hook keeps.
const captureMaxEntries = 100000

// captureRun is one `run --capture`: a temporary folder holding hook/ (on
// the child's PYTHONPATH) and dump/ (where the snapshot is written).
type captureRun struct {
	root string
}

func (c *captureRun) hookDir() string { return filepath.Join(c.root, "hook") }
func (c *captureRun) dumpDir() string { return filepath.Join(c.root, "dump") }

// newCapture writes the hook into a fresh temporary folder.
func newCapture() (*captureRun, error) {
	root, err := os.MkdirTemp("", "oomdoc-capture-")
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	c := &captureRun{root: root}
	for _, dir := range []string{c.hookDir(), c.dumpDir()} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			c.remove()
			return nil, fmt.Errorf("capture: %w", err)
		}
	}
	for _, name := range []string{"sitecustomize.py", "oomdoc_capture.py"} {
		b, _ := captureHook.ReadFile("capture/" + name) // embedded: cannot fail
		if err := os.WriteFile(filepath.Join(c.hookDir(), name), b, 0o600); err != nil {
			c.remove()
			return nil, fmt.Errorf("capture: write %s: %w", name, err)
		}
	}
	return c, nil
}

func (c *captureRun) remove() { _ = os.RemoveAll(c.root) }

// vars are the child's environment additions: the hook first on
// PYTHONPATH, and where to dump.
func (c *captureRun) vars(getenv func(string) string) map[string]string {
	pp := c.hookDir()
	if old := getenv("PYTHONPATH"); old != "" {
		pp += string(os.PathListSeparator) + old
	}
	return map[string]string{
		"PYTHONPATH":                 pp,
		"OOMDOC_CAPTURE_DIR":         c.dumpDir(),
		"OOMDOC_CAPTURE_MAX_ENTRIES": fmt.Sprint(captureMaxEntries),
	}
}

// startChild starts the command; with --capture, with the hook in its
// environment. A capture that cannot be set up is reported and the
// command runs without it.
func (c *RunCmd) startChild(env *Env, args []string, stdout, stderr io.Writer) (func() int, error) {
	if !c.Capture {
		return env.Command(args[0], args[1:], stdout, stderr)
	}
	capt, err := newCapture()
	if err != nil {
		fmt.Fprintf(env.Stderr, "oomdoc: %s; running without it\n", oneLine(err.Error()))
		return env.Command(args[0], args[1:], stdout, stderr)
	}
	wait, err := withEnv(capt.vars(env.Getenv), func() (func() int, error) {
		return env.Command(args[0], args[1:], stdout, stderr)
	})
	if err != nil {
		capt.remove()
		return nil, err
	}
	c.capt = capt
	return wait, nil
}

// withEnv runs start with vars set in the process environment — the child
// copies it when it starts — and restores the environment after.
func withEnv(vars map[string]string, start func() (func() int, error)) (func() int, error) {
	for k, v := range vars {
		old, had := os.LookupEnv(k)
		_ = os.Setenv(k, v)
		if had {
			defer os.Setenv(k, old)
		} else {
			defer os.Unsetenv(k)
		}
	}
	return start()
}

// takeCapture reads the snapshot the command dumped, if any, for res's
// report, then removes the hook. A snapshot is kept, and its path said, so
// that it can be opened in PyTorch's memory_viz.
func (c *RunCmd) takeCapture(env *Env, res *parser.Result, status int) {
	if c.capt == nil {
		return
	}
	path, count := newestSnapshot(c.capt.dumpDir())
	if path == "" {
		c.capt.remove()
		if status != 0 {
			fmt.Fprintln(env.Stderr, "oomdoc: --capture: no memory snapshot was dumped (the command did not run out of CUDA memory, or its Python did not import torch with CUDA)")
		}
		return
	}
	_ = os.RemoveAll(c.capt.hookDir())
	if status == 0 || res == nil { // an out-of-memory error the program caught: nothing to report on
		fmt.Fprintf(env.Stderr, "oomdoc: the command ran out of CUDA memory and went on; its memory snapshot is kept at %s\n", path)
		return
	}
	m, err := readSnapshotFile(env, path, readObserved(path+".json"))
	if err != nil {
		fmt.Fprintf(env.Stderr, "oomdoc: --capture: %s\n", oneLine(err.Error()))
		return
	}
	fmt.Fprintf(env.Stderr, "oomdoc: memory snapshot kept at %s (it opens in https://pytorch.org/memory_viz)\n", path)
	if count > 1 {
		fmt.Fprintf(env.Stderr, "oomdoc: %d processes dumped a snapshot; the report reads the newest, the others are beside it\n", count)
	}
	if c.measured == nil {
		c.measured = map[string]*snapshot.Measured{}
	}
	c.measured[res.Input] = m
	if ev := m.Event(); ev != nil && len(res.Events) == 0 {
		ev.Input = res.Input
		res.Events = append(res.Events, *ev)
	}
}

// newestSnapshot is the most recently written snapshot-PID.pickle in dir
// (each Python process dumps its own), "" when there is none, and how many
// there are.
func newestSnapshot(dir string) (string, int) {
	paths, _ := filepath.Glob(filepath.Join(dir, "snapshot-*.pickle"))
	best, bestTime := "", int64(0)
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && (best == "" || st.ModTime().UnixNano() > bestTime) {
			best, bestTime = p, st.ModTime().UnixNano()
		}
	}
	return best, len(paths)
}

// readObserved reads the observer's figures the hook wrote beside the
// snapshot; nil when they are missing or unreadable.
func readObserved(path string) *snapshot.Observed {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var o snapshot.Observed
	if json.Unmarshal(b, &o) != nil {
		return nil
	}
	return &o
}

func readSnapshotFile(env *Env, path string, obs *snapshot.Observed) (*snapshot.Measured, error) {
	f, err := env.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	m, err := snapshot.Read(f, path, snapshot.ReadOptions{Observed: obs})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return m, nil
}

// isPickle reports the start of a pickle of protocol 2 or later (what
// Python 3 writes), or a name that says pickle.
func isPickle(name string, head []byte) bool {
	if len(head) >= 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5 {
		return true
	}
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".pickle" || ext == ".pkl"
}

// seekable reports a reader that can really seek (a pipe on stdin is an
// *os.File that cannot).
func seekable(rs io.ReadSeeker) bool {
	_, err := rs.Seek(0, io.SeekCurrent)
	return err == nil
}

// spoolTemp copies r into a temporary file, rewound; the caller removes it.
func spoolTemp(r io.Reader) (*os.File, error) {
	f, err := os.CreateTemp("", "oomdoc-snapshot-*.pickle")
	if err != nil {
		return nil, err
	}
	max := snapshot.DefaultLimits().MaxInputBytes
	n, err := io.Copy(f, io.LimitReader(r, max+1))
	if err == nil && n > max {
		err = fmt.Errorf("the pickle is larger than the %d-byte limit", max)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// readSnapshot reads in as a PyTorch memory snapshot when it is a pickle:
// the result holds the failure the snapshot records, and the snapshot is
// kept for the report. Otherwise it returns a reader that still yields
// every byte of in, for the log parser.
func (c *DiagnoseCmd) readSnapshot(env *Env, name string, in io.Reader) (io.Reader, *parser.Result, bool, error) {
	var head []byte
	if rs, ok := in.(io.ReadSeeker); ok && seekable(rs) {
		head = make([]byte, 2)
		n, _ := io.ReadFull(rs, head)
		head = head[:n]
		if _, err := rs.Seek(0, io.SeekStart); err != nil {
			return in, nil, true, fmt.Errorf("read %s: %w", name, err)
		}
	} else {
		br := bufio.NewReader(in)
		head, _ = br.Peek(2)
		in = br
	}
	if !isPickle(name, head) {
		return in, nil, false, nil
	}
	if _, ok := in.(io.ReadSeeker); !ok { // a pipe: spool it, so that the reader can take two passes
		spool, err := spoolTemp(in)
		if err != nil {
			return in, nil, true, fmt.Errorf("read %s: %w", name, err)
		}
		defer os.Remove(spool.Name())
		defer spool.Close()
		in = spool
	}
	m, err := snapshot.Read(in, name, snapshot.ReadOptions{})
	if err != nil {
		return in, nil, true, fmt.Errorf("read %s: %w", name, err)
	}
	if c.measured == nil {
		c.measured = map[string]*snapshot.Measured{}
	}
	c.measured[name] = m
	res := &parser.Result{Input: name}
	if ev := m.Event(); ev != nil {
		res.Events = []parser.Event{*ev}
	}
	return in, res, true, nil
}
