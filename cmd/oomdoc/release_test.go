package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// buildOomdoc builds this command into a temporary directory with the
// given environment and flags, and returns the binary's path.
func buildOomdoc(t *testing.T, env []string, flags ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "oomdoc")
	cmd := exec.Command("go", append(append([]string{"build", "-o", bin}, flags...), ".")...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestReleaseBuildIsStatic builds linux/amd64 as scripts/release does and
// checks the ELF has no program interpreter (PT_INTERP) and no dynamic
// libraries: it runs on any Linux, glibc or musl, without loading anything.
func TestReleaseBuildIsStatic(t *testing.T) {
	bin := buildOomdoc(t, []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64"}, "-trimpath", "-ldflags=-s -w -X main.version=v0.0.0-releasetest")
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("release binary has a %v program header: dynamically linked", p.Type)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("release binary imports %v", libs)
	}
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		out, err := exec.Command(bin, "--version").Output()
		if err != nil || strings.TrimSpace(string(out)) != "oomdoc v0.0.0-releasetest" {
			t.Errorf("--version of a release build: %q (%v)", out, err)
		}
	}
}

// TestLocalBuildIsNotDev: a plain `go build` in a clone stamps the module's
// pseudo-version or the commit, so --version is never "dev".
func TestLocalBuildIsNotDev(t *testing.T) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not in a git work tree")
	}
	if st, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err == nil && !st.IsDir() {
		// The go command records no VCS facts in a linked worktree (its
		// .git is a file); scripts/release stamps the version instead.
		t.Skip("a git worktree: go build records no commit here")
	}
	bin := buildOomdoc(t, nil, "-buildvcs=true")
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(out), "\n", 2)[0]
	if first == "oomdoc dev" || !strings.HasPrefix(first, "oomdoc ") {
		t.Errorf("local build says %q", first)
	}
	if !strings.Contains(string(out), "commit: ") {
		t.Errorf("local build records no commit: %q", out)
	}
}
