package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/oomdoc/oomdoc/parser"
)

// DiagnoseCmd reads logs and prints the report (the default command).
type DiagnoseCmd struct {
	ReportFlags
	Tee   bool     `help:"Copy the input to stdout unchanged as it arrives and print the report on stderr at the end (for: python train.py 2>&1 | oomdoc --tee)."`
	Files []string `arg:"" optional:"" name:"file" help:"Crash logs to read (.log, .gz, .ipynb); - or none reads standard input."`
}

// Run reads every input, then reports.
func (c *DiagnoseCmd) Run(env *Env) error {
	h, err := c.hints()
	if err != nil {
		return err
	}
	files := c.Files
	if len(files) == 0 {
		files = []string{"-"}
	}
	out := env.Stdout
	var tee *teeWriter
	if c.Tee {
		tee = &teeWriter{w: env.Stdout}
		out = env.Stderr
	}
	var results []*parser.Result
	var readErr error
	for _, name := range files {
		res, err := c.read(env, name, tee)
		if err != nil {
			fmt.Fprintf(env.Stderr, "oomdoc: %s\n", oneLine(err.Error()))
			readErr = err
		}
		if res != nil {
			results = append(results, res)
		}
	}
	if len(results) > 0 {
		if err := c.write(env, out, c.analyse(results, h)); err != nil {
			return err
		}
	}
	if readErr != nil {
		return &exitError{code: exitInput}
	}
	return nil
}

// read parses one input; "-" is standard input, with a prompt when it is a
// terminal (paste mode).
func (c *DiagnoseCmd) read(env *Env, name string, tee *teeWriter) (*parser.Result, error) {
	var in io.Reader
	if name == "-" {
		in = env.Stdin
		if !c.Tee && env.IsTerminal(env.Stdin) {
			fmt.Fprintln(env.Stderr, "Paste the crash log, then press Ctrl-D on an empty line (Windows: Ctrl-Z, Enter).")
			in = &pasteReader{r: env.Stdin}
		}
	} else {
		f, err := env.Open(name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, unwrapPath(err))
		}
		defer f.Close()
		in = f
	}
	in, snap, isSnapshot, err := c.readSnapshot(env, name, in) // a PyTorch memory snapshot (capture.go)
	if isSnapshot {
		return snap, err
	}
	if tee != nil {
		in = io.TeeReader(in, tee)
	}
	res, err := safeParse(in, name)
	if errors.Is(err, parser.ErrBinary) {
		return nil, fmt.Errorf("read %s: %w", name, parser.ErrBinary) // nothing to report on
	}
	var pe *parser.ParseError
	if errors.As(err, &pe) {
		return res, fmt.Errorf("read %s: %w", name, pe.Err)
	}
	return res, err
}

// unwrapPath drops the *PathError prefix that repeats the file name.
func unwrapPath(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
