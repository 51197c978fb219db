package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"
)

func TestVersionFlagAndCommand(t *testing.T) {
	r := runWith(t, "", "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "oomdoc ") || strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("--version: exit %d, %q", r.code, r.stdout)
	}
	r = runWith(t, "", "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "oomdoc ") || !strings.Contains(r.stdout, "\ngo: go") {
		t.Fatalf("version: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "read version") {
		t.Fatalf("'version' was read as a file: %q", r.stderr)
	}
}

func TestReadBuildInfoPrefersTheStampedTag(t *testing.T) {
	if got := readBuildInfo("v1.2.3").Version; got != "v1.2.3" {
		t.Errorf("stamped: %q", got)
	}
	// A test binary has no module version and no VCS stamp.
	if got := readBuildInfo("dev").Version; got == "" {
		t.Error("empty version")
	}
}

func TestAutoColor(t *testing.T) {
	tests := []struct {
		env  map[string]string
		tty  bool
		want bool
	}{
		{nil, true, true},
		{nil, false, false},
		{map[string]string{"NO_COLOR": "1"}, true, false},
		{map[string]string{"NO_COLOR": ""}, true, true},
		{map[string]string{"TERM": "dumb"}, true, false},
		{map[string]string{"CLICOLOR": "0"}, true, false},
		{map[string]string{"CLICOLOR_FORCE": "1"}, false, true},
		{map[string]string{"CLICOLOR_FORCE": "0"}, false, false},
		{map[string]string{"FORCE_COLOR": "true"}, false, true},
		{map[string]string{"FORCE_COLOR": "false"}, false, false},
		{map[string]string{"FORCE_COLOR": "3", "TERM": "dumb"}, false, true},
		{map[string]string{"FORCE_COLOR": "1", "NO_COLOR": "1"}, true, false},
	}
	for _, tc := range tests {
		get := func(k string) string { return tc.env[k] }
		if got := autoColor(get, tc.tty); got != tc.want {
			t.Errorf("%v tty=%v: %v, want %v", tc.env, tc.tty, got, tc.want)
		}
	}
}

func TestColourAndWidthFromTheEnvironment(t *testing.T) {
	log := fixture("corpus", "trn-013.log")
	reportWith := func(tty bool, env map[string]string, args ...string) string {
		e, out, _ := testEnv(strings.NewReader(""), tty, env)
		if code := run(append(args, log), e); code != 0 {
			t.Fatalf("exit %d", code)
		}
		return out.String()
	}
	if !strings.Contains(reportWith(false, map[string]string{"FORCE_COLOR": "1"}), "\x1b[") {
		t.Error("FORCE_COLOR off a terminal wrote no colour")
	}
	if !strings.Contains(reportWith(false, map[string]string{"CLICOLOR_FORCE": "1"}), "\x1b[") {
		t.Error("CLICOLOR_FORCE off a terminal wrote no colour")
	}
	if strings.Contains(reportWith(false, nil), "\x1b[") {
		t.Error("colour off a terminal without forcing")
	}
	same := func(what, a, b string) {
		if a != b {
			t.Errorf("%s: reports differ", what)
		}
	}
	same("COLUMNS=60 off a terminal is --width=60", reportWith(false, map[string]string{"COLUMNS": "60"}), reportWith(false, nil, "--width=60"))
	same("COLUMNS=100 off a terminal is --width=100", reportWith(false, map[string]string{"COLUMNS": "100"}), reportWith(false, nil, "--width=100"))
	same("COLUMNS=300 is capped at 100", reportWith(false, map[string]string{"COLUMNS": "300"}), reportWith(false, nil, "--width=100"))
	same("COLUMNS=junk is ignored", reportWith(false, map[string]string{"COLUMNS": "wide"}), reportWith(false, nil))
	// on a terminal its own width (120 in testEnv, capped at 100) wins
	same("the terminal's width wins over COLUMNS", reportWith(true, map[string]string{"COLUMNS": "60", "NO_COLOR": "1"}), reportWith(false, nil, "--width=100"))
	same("--width wins over COLUMNS", reportWith(false, map[string]string{"COLUMNS": "60"}, "--width=90"), reportWith(false, nil, "--width=90"))
	if reportWith(false, nil, "--width=60") == reportWith(false, nil, "--width=100") {
		t.Fatal("this log reads the same at 60 and 100 columns; the checks above prove nothing")
	}
}

func TestOutputFlag(t *testing.T) {
	dir := t.TempDir()
	log := fixture("corpus", "trn-013.log")
	want := runWith(t, "", "--format=json", log)
	out := filepath.Join(dir, "report.json")
	r := runWith(t, "", "--format=json", "-o", out, log)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil || string(got) != want.stdout {
		t.Fatalf("file holds %d bytes (err %v), want the %d of stdout", len(got), err, len(want.stdout))
	}
	// a failed run leaves the previous file as it was, and no temporary
	r = runWith(t, "", "--output", out, "--gpu=lots", log)
	if r.code != exitUsage {
		t.Fatalf("bad --gpu: exit %d", r.code)
	}
	if again, _ := os.ReadFile(out); string(again) != want.stdout {
		t.Error("a failed run changed the report file")
	}
	// an unreadable input still writes the readable ones, exit 3
	r = runWith(t, "", "-o", out, log, filepath.Join(dir, "missing.log"))
	if r.code != exitInput {
		t.Fatalf("missing input: exit %d", r.code)
	}
	if text, _ := os.ReadFile(out); !strings.Contains(string(text), "trn-013") {
		t.Error("the readable input's report was not written")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	r = runWith(t, "", "-o", filepath.Join(dir, "no", "such", "dir", "r.txt"), log)
	if r.code != exitWriteError || !strings.Contains(r.stderr, "create") {
		t.Errorf("unwritable: exit %d, %q", r.code, r.stderr)
	}
	for _, args := range [][]string{{"-o", out, "--tee", log}, {"-o", out, "run", "--", "true"}} {
		if r := runWith(t, "", args...); r.code != exitUsage || !strings.Contains(r.stderr, "-o/--output") {
			t.Errorf("%v: exit %d, %q", args, r.code, r.stderr)
		}
	}
	if r := runWith(t, "", "--format=json", "-o", "-", log); r.code != 0 || r.stdout != want.stdout {
		t.Errorf("-o - is standard output: exit %d", r.code)
	}
	r = runWith(t, "", "rules", "-o", out)
	if text, _ := os.ReadFile(out); r.code != 0 || !strings.Contains(string(text), "oomdoc explain ID") {
		t.Errorf("rules -o: exit %d", r.code)
	}
}

// TestCompletionScripts pins each script and, where the shell is
// installed, checks its syntax; bash's completion is exercised for real.
func TestCompletionScripts(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata"))
	for _, shell := range []string{"bash", "zsh", "fish"} {
		r := runWith(t, "", "completion", shell)
		if r.code != 0 {
			t.Fatalf("%s: exit %d %s", shell, r.code, r.stderr)
		}
		g.Assert(t, "completion-"+shell, []byte(r.stdout))
		for _, flag := range []string{"format", "output", "gpu", "tee"} {
			if !strings.Contains(r.stdout, flag) {
				t.Errorf("%s completion lacks --%s", shell, flag)
			}
		}
		if path, err := exec.LookPath(shell); err == nil {
			script := filepath.Join(t.TempDir(), "c")
			_ = os.WriteFile(script, []byte(r.stdout), 0o600)
			if out, err := exec.Command(path, "-n", script).CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v %s", shell, err, out)
			}
		}
	}
	if r := runWith(t, "", "completion", "powershell"); r.code != exitUsage {
		t.Errorf("unknown shell: exit %d", r.code)
	}
}

func TestBashCompletionCompletes(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script := filepath.Join(t.TempDir(), "oomdoc.bash")
	_ = os.WriteFile(script, []byte(runWith(t, "", "completion", "bash").stdout), 0o600)
	complete := func(words ...string) []string {
		t.Helper()
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + w + "'"
		}
		prog := "source " + script + "; COMP_WORDS=(" + strings.Join(quoted, " ") + "); COMP_CWORD=" + strconv.Itoa(len(words)-1) + "; _oomdoc; printf '%s\\n' \"${COMPREPLY[@]}\""
		cmd := exec.Command(bash, "--norc", "-c", prog)
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v %s", words, err, out)
		}
		return strings.Fields(string(out))
	}
	tests := []struct {
		words []string
		want  string
	}{
		{[]string{"oomdoc", "--fo"}, "--format"},
		{[]string{"oomdoc", "--format", "js"}, "json"},
		{[]string{"oomdoc", "-f", "mark"}, "markdown"},
		{[]string{"oomdoc", "--color", "ne"}, "never"},
		{[]string{"oomdoc", "expl"}, "explain"},
		{[]string{"oomdoc", "explain", "visual-t"}, "visual-tokens"},
		{[]string{"oomdoc", "completion", "fi"}, "fish"},
		{[]string{"oomdoc", "run", "--te"}, ""},
		{[]string{"oomdoc", "run", "--", "bas"}, "bash"},
	}
	for _, tc := range tests {
		got := complete(tc.words...)
		if tc.want == "" {
			if len(got) != 0 {
				t.Errorf("%v: %v, want nothing", tc.words, got)
			}
			continue
		}
		found := false
		for _, g := range got {
			found = found || g == tc.want
		}
		if !found {
			t.Errorf("%v: %v lacks %q", tc.words, got, tc.want)
		}
	}
}

// TestManPage pins the page and, where groff is installed, checks that it
// formats without warnings.
func TestManPage(t *testing.T) {
	r := runWith(t, "", "man")
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	for _, want := range []string{".SH ENVIRONMENT", "FORCE_COLOR", ".SH EXAMPLES", "completion", "\\-\\-format"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("man page lacks %q", want)
		}
	}
	goldie.New(t, goldie.WithFixtureDir("testdata")).Assert(t, "man", []byte(r.stdout))
	if groff, err := exec.LookPath("groff"); err == nil {
		cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
		cmd.Stdin = strings.NewReader(r.stdout)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
			t.Errorf("groff: %v %s", err, out)
		}
	}
}

// TestHelpShowsUsageExamplesAndEnvironment checks the parts of --help the
// conventions call for, beyond the golden's exact text.
func TestHelpShowsUsageExamplesAndEnvironment(t *testing.T) {
	r := runWith(t, "", "--help")
	for _, want := range []string{"Usage: oomdoc [FILE…]", "Examples:", "Environment:", "NO_COLOR", "CLICOLOR_FORCE", "FORCE_COLOR", "COLUMNS", "-o, --output=FILE", "completion", "Report flags", "-f, --format=text|markdown|md|json", "--gpu=SIZE", "--tee"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	if strings.Contains(r.stdout, "  man ") {
		t.Error("the man command is meant to be hidden")
	}
	r = runWith(t, "", "explain", "--help")
	if !strings.HasPrefix(r.stdout, "Usage: oomdoc explain") {
		t.Errorf("explain --help: %q", r.stdout)
	}
}

func TestFishCompletionCompletes(t *testing.T) {
	fish, err := exec.LookPath("fish")
	if err != nil {
		t.Skip("no fish")
	}
	script := filepath.Join(t.TempDir(), "oomdoc.fish")
	_ = os.WriteFile(script, []byte(runWith(t, "", "completion", "fish").stdout), 0o600)
	tests := []struct{ line, want string }{
		{"oomdoc --for", "--format"},
		{"oomdoc --format ", "json"},
		{"oomdoc expl", "explain"},
		{"oomdoc explain visual-t", "visual-tokens"},
		{"oomdoc completion ", "zsh"},
		{"oomdoc run --col", "--color"},
	}
	for _, tc := range tests {
		out, err := exec.Command(fish, "--no-config", "-c", "source "+script+"; complete -C '"+tc.line+"'").CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v %s", tc.line, err, out)
		}
		found := false
		for _, l := range strings.Split(string(out), "\n") {
			found = found || strings.SplitN(l, "\t", 2)[0] == tc.want
		}
		if !found {
			t.Errorf("%q: %q lacks %q", tc.line, out, tc.want)
		}
	}
}

// TestZshCompletionDispatches runs the zsh function with zsh's completion
// builtins replaced by printers: each command line must reach the right
// _arguments specs (zsh's widgets need a terminal; this checks the logic).
func TestZshCompletionDispatches(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("no zsh")
	}
	script := filepath.Join(t.TempDir(), "_oomdoc")
	_ = os.WriteFile(script, []byte(runWith(t, "", "completion", "zsh").stdout), 0o600)
	stubs := `compdef() { print -r -- "COMPDEF $*"; }; _arguments() { print -r -- "ARGS $*"; }; _describe() { print -r -- "DESCRIBE $*"; }; `
	tests := []struct {
		words, current string
		want, not      []string
	}{
		{"oomdoc explain vis", "3", []string{"1:explain:(", "visual-tokens"}, []string{"--tee", "DESCRIBE"}},
		{"oomdoc ''", "2", []string{"DESCRIBE -t commands", "--tee[", "*:file:_files", "--format[Report format"}, nil},
		{"oomdoc run --", "3", []string{"*::command:_normal", "--gpu["}, []string{"--tee["}},
		{"oomdoc completion ''", "3", []string{"1:completion:(bash zsh fish)"}, nil},
	}
	for _, tc := range tests {
		prog := stubs + "source " + script + "; words=(" + tc.words + "); CURRENT=" + tc.current + "; PREFIX=''; _oomdoc"
		out, err := exec.Command(zsh, "-f", "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v %s", tc.words, err, out)
		}
		got := string(out)
		if !strings.Contains(got, "COMPDEF _oomdoc oomdoc") {
			t.Errorf("sourcing does not register the function: %q", got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: lacks %q in %q", tc.words, w, got)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: has %q", tc.words, w)
			}
		}
	}
}
