package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// buildInfo is what the binary knows about its own build.
type buildInfo struct {
	Version  string // release tag, module version, pseudo-version or "dev"
	Commit   string // VCS revision, "" when not recorded
	Modified bool   // the work tree had uncommitted changes
	Go       string // toolchain version
}

// readBuildInfo resolves the version: the tag stamped by a release build
// (-ldflags "-X main.version=v1.2.3") first, then the module version that
// `go install …@v1.2.3` or a build in a clone records, then the commit.
func readBuildInfo(stamped string) buildInfo {
	b := buildInfo{Version: stamped, Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.Go = bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	if b.Version != "" && b.Version != "dev" {
		return b
	}
	switch v := bi.Main.Version; {
	case v != "" && v != "(devel)":
		b.Version = v
	case b.Commit != "":
		b.Version = shortCommit(b.Commit)
		if b.Modified {
			b.Version += "-dirty"
		}
	default:
		b.Version = "dev"
	}
	return b
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// VersionCmd prints the version and how the binary was built.
type VersionCmd struct{}

// Run prints "oomdoc VERSION" and, on the next lines, the commit and the
// toolchain.
func (c *VersionCmd) Run(env *Env, info buildInfo) error {
	var b strings.Builder
	fmt.Fprintf(&b, "oomdoc %s\n", info.Version)
	if info.Commit != "" {
		mod := ""
		if info.Modified {
			mod = " (modified)"
		}
		fmt.Fprintf(&b, "commit: %s%s\n", info.Commit, mod)
	}
	fmt.Fprintf(&b, "go: %s %s/%s\n", info.Go, runtime.GOOS, runtime.GOARCH)
	_, err := fmt.Fprint(env.Stdout, b.String())
	return err
}
