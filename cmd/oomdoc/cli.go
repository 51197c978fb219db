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

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// CLI is oomdoc's command line: one struct per command, each with Run.
type CLI struct {
	Diagnose DiagnoseCmd      `cmd:"" default:"withargs" help:"Read crash logs (files, - for stdin, or a paste) and explain the out-of-memory failure."`
	Run      RunCmd           `cmd:"" help:"Run a command, pass its output through unchanged, and explain its out-of-memory failure if it fails."`
	Explain  ExplainCmd       `cmd:"" help:"Print the page for a culprit, fix or won't-help id."`
	Rules    RulesCmd         `cmd:"" help:"List the culprit, fix and won't-help ids oomdoc can name."`
	Version  kong.VersionFlag `help:"Print the version and exit."`
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
	parser, err := kong.New(&cli,
		kong.Name("oomdoc"),
		kong.Description("oomdoc explains out-of-memory crashes: what ran out, what holds the memory, why, and which change fixes it.\n\nExit status: 0 report printed; 2 bad usage; 3 an input could not be read; 1 the report could not be written. `oomdoc run` exits with the command's own status."),
		kong.Writers(env.Stdout, env.Stderr),
		kong.Exit(func(c int) { panic(exitSentinel{c}) }),
		kong.Vars{"version": version},
		kong.UsageOnError(),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Bind(env),
	)
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
	err = ctx.Run(env)
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
