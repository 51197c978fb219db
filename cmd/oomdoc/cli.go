package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/alecthomas/kong"
)

// Exit statuses (documented in main's package comment and the README).
const (
	exitOK         = 0
	exitWriteError = 1
	exitUsage      = 2
	exitInput      = 3
	exitNoCommand  = 127
)

// version is set by release builds with -ldflags "-X main.version=v1.2.3";
// otherwise readBuildInfo finds the module version or the commit.
var version = "dev"

// CLI is oomdoc's command line: one struct per command, each with Run.
type CLI struct {
	Diagnose   DiagnoseCmd      `cmd:"" default:"withargs" help:"Read crash logs (files, - for stdin, or a paste) and explain the out-of-memory failure."`
	Run        RunCmd           `cmd:"" help:"Run a command, pass its output through unchanged, and explain its out-of-memory failure if it fails."`
	Explain    ExplainCmd       `cmd:"" help:"Print the page for a culprit, fix or won't-help id."`
	Rules      RulesCmd         `cmd:"" help:"List the culprit, fix and won't-help ids oomdoc can name."`
	Version    VersionCmd       `cmd:"" help:"Print the version, the commit and the Go toolchain it was built with."`
	Completion CompletionCmd    `cmd:"" help:"Print a shell completion script (bash, zsh or fish)."`
	Man        ManCmd           `cmd:"" hidden:"" help:"Print the manual page (roff), generated from this help."`
	Output     string           `short:"o" placeholder:"FILE" type:"path" help:"Write the report to FILE instead of standard output (oomdoc run and --tee: instead of standard error); FILE is replaced only once the report is complete; - is standard output."`
	ShowVer    kong.VersionFlag `name:"version" help:"Print the version and exit."`
}

// exitError carries an exit status through kong's Run.
type exitError struct {
	code int
	err  error
}

// Error returns the wrapped error's text, or the bare status.
func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// Unwrap returns the wrapped error.
func (e *exitError) Unwrap() error { return e.err }

// exitSentinel is what kong's Exit hook panics with, so that --help and
// --version return through run instead of ending the process.
type exitSentinel struct{ code int }

// newParser builds the kong parser for cli, writing help to env's streams.
func newParser(cli *CLI, env *Env, info buildInfo) (*kong.Kong, error) {
	return kong.New(cli,
		kong.Name("oomdoc"),
		kong.Description(description),
		kong.Writers(env.Stdout, env.Stderr),
		kong.Exit(func(c int) { panic(exitSentinel{c}) }),
		kong.Vars{"version": "oomdoc " + info.Version},
		kong.UsageOnError(),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Help(helpPrinter),
	)
}

// run parses args and runs the command; it returns the exit status.
func run(args []string, env *Env) (code int) {
	var cli CLI
	defer func() {
		if r := recover(); r != nil {
			if s, ok := r.(exitSentinel); ok {
				code = s.code
				return
			}
			fmt.Fprintf(env.Stderr, "oomdoc: internal error: %v\n", r)
			code = exitWriteError
		}
	}()
	info := readBuildInfo(version)
	parser, err := newParser(&cli, env, info)
	if err != nil {
		fmt.Fprintf(env.Stderr, "oomdoc: %v\n", err)
		return exitWriteError
	}
	ctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "oomdoc: %s\n", oneLine(err.Error()))
		fmt.Fprintln(env.Stderr, "Run 'oomdoc --help' for usage.")
		return exitUsage
	}
	if cli.Output == "" || cli.Output == "-" {
		return status(env, ctx.Run(env, info))
	}
	if sel := ctx.Selected(); cli.Diagnose.Tee || sel != nil && sel.Name == "run" {
		what := "run"
		if cli.Diagnose.Tee {
			what = "--tee"
		}
		fmt.Fprintf(env.Stderr, "oomdoc: -o/--output does not combine with %s, whose report goes to stderr; redirect stderr instead (2>report.txt)\n", what)
		return exitUsage
	}
	out, err := createOutput(cli.Output)
	if err != nil {
		fmt.Fprintf(env.Stderr, "oomdoc: %s\n", oneLine(err.Error()))
		return exitWriteError
	}
	defer out.Discard() // after a failure or a panic; nothing once committed
	toFile := *env
	toFile.Stdout = out
	code = status(env, ctx.Run(&toFile, info))
	if code != exitOK && code != exitInput {
		return code
	}
	if err := out.Commit(); err != nil {
		fmt.Fprintf(env.Stderr, "oomdoc: %s\n", oneLine(err.Error()))
		return exitWriteError
	}
	return code
}

// status turns a command's error into the exit status, printing it.
func status(env *Env, err error) int {
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case isBrokenPipe(err):
		return exitOK // the reader went away: end quietly
	case errors.As(err, &ee):
		if ee.err != nil && !isBrokenPipe(ee.err) {
			fmt.Fprintf(env.Stderr, "oomdoc: %s\n", oneLine(ee.err.Error()))
		}
		return ee.code
	default:
		fmt.Fprintf(env.Stderr, "oomdoc: %s\n", oneLine(err.Error()))
		return exitWriteError
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
