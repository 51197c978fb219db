package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/render"
)

// DiagnoseCmd reads logs and prints the report (the default command).
type DiagnoseCmd struct {
	ReportFlags
	Tee   bool     `help:"Copy the input to stdout unchanged as it arrives and print the report on stderr at the end (for: python train.py 2>&1 | oomdoc --tee)."`
	Files []string `arg:"" optional:"" name:"file" help:"Crash logs to read (.log, .gz, .ipynb); - or none reads standard input."`
}

// Run reads every input, then reports. An input that cannot be read is
// named in one line on stderr and gives exit status 3; it never also gets
// a "no failure found" report. With --tee, a failure to write stdout is
// one line on stderr and exit status 1, after the report.
func (c *DiagnoseCmd) Run(env *Env) error {
	h, err := c.hints()
	if err != nil {
		return err
	}
	if err := c.checkFlags(); err != nil {
		return err
	}
	files := rawFiles(c.Files)
	if len(files) == 0 {
		files = []string{"-"}
	}
	out := env.Stdout
	if c.Tee {
		out = env.Stderr
	}
	say := func(format string, a ...any) { fmt.Fprintf(env.Stderr, "oomdoc: "+format+"\n", a...) }
	var results []*parser.Result
	var readErr, teeErr error
	for _, name := range files {
		in, err := c.read(env, name)
		if err != nil {
			say("%s", render.Safe(oneLine(err.Error())))
			readErr = err
		}
		for _, n := range in.notes {
			say("%s", render.Safe(n))
		}
		if in.res != nil {
			results = append(results, in.res)
		}
		if in.teeErr != nil && teeErr == nil {
			teeErr = in.teeErr
		}
	}
	if len(results) > 0 {
		if err := c.write(env, out, c.analyse(results, h)); err != nil {
			return err
		}
	}
	if teeErr != nil {
		return &exitError{code: exitWriteError, err: fmt.Errorf("--tee: write standard output: %w", unwrapPath(teeErr))}
	}
	if readErr != nil {
		return &exitError{code: exitInput}
	}
	return nil
}

// input is what reading one input gave: the parse (nil when the input was
// refused), notes to print, and a --tee write error.
type input struct {
	res    *parser.Result
	notes  []string
	teeErr error
}

// read parses one input; "-" is standard input, with a prompt when it is a
// terminal (paste mode). With --tee the bytes are copied to stdout first,
// by a copier that never waits on the parser.
func (c *DiagnoseCmd) read(env *Env, name string) (input, error) {
	var in io.Reader
	var got input
	shown := render.SafeLine(name)
	if name == "-" {
		in = &eofLatch{r: env.Stdin}
		if !c.Tee && env.IsTerminal(env.Stdin) {
			fmt.Fprintln(env.Stderr, "Paste the crash log, then press Ctrl-D on an empty line (Windows: Ctrl-Z, Enter).")
			restore := pasteTerminal(env.Stdin)
			defer restore()
			in = &pasteReader{r: in, eot: true}
		}
	} else {
		f, err := env.Open(name)
		if err != nil {
			return got, fmt.Errorf("read %s: %w", shown, unwrapPath(err))
		}
		defer f.Close()
		in = f
		if note := skipToTail(f); note != "" {
			got.notes = append(got.notes, shown+": "+note)
		}
	}
	in, snap, isSnapshot, err := c.readSnapshot(env, name, in) // a PyTorch memory snapshot (capture.go)
	if isSnapshot {
		got.res = snap
		return got, err
	}
	var watch *wordWatch
	if name == "-" && !env.IsTerminal(env.Stdin) {
		watch = &wordWatch{r: in, word: []byte("Traceback")}
		in = watch
	}
	var ana *analysisBuffer
	var tee *tap
	copied := make(chan struct{})
	if c.Tee {
		ana = newAnalysisBuffer(analysisLimit)
		tee = &tap{dst: env.Stdout, ana: ana}
		src := in
		go func() {
			defer close(copied)
			defer ana.Close()
			_ = pump(src, tee, nil)
		}()
		in = ana
	}
	var res *parser.Result
	if c.Tee {
		done := make(chan struct{})
		go func() { // beside the copier, at low priority
			defer close(done)
			lowerPriority()
			res, err = safeParse(in, name, parser.Options{OneThread: true})
		}()
		<-done
	} else {
		res, err = safeParse(in, name, parser.Options{})
	}
	if c.Tee {
		ana.Close() // the parser may stop early: let the copier run free
		<-copied
		if werr := tee.Err(); werr != nil && !isBrokenPipe(werr) {
			got.teeErr = werr
		}
		if n := ana.Skipped(); n > 0 {
			got.notes = append(got.notes, fmt.Sprintf("%s: the analysis fell behind the input and skipped %d bytes of it; stdout got every byte", shown, n))
		}
	}
	var pe *parser.ParseError
	switch {
	case errors.Is(err, parser.ErrBinary) && c.Tee:
		got.notes = append(got.notes, shown+": "+parser.ErrBinary.Error()+"; passed through, not analysed")
		return got, nil
	case errors.Is(err, parser.ErrInputLimit):
		got.notes = append(got.notes, shown+": "+parser.ErrInputLimit.Error())
	case errors.As(err, &pe) && (res == nil || res.Lines == 0):
		return got, fmt.Errorf("read %s: %w", shown, pe.Err) // nothing read: no report
	case errors.As(err, &pe):
		got.res = res
		return got, fmt.Errorf("read %s: %w (the report covers the %d lines read)", shown, pe.Err, res.Lines)
	case err != nil:
		return got, err
	}
	got.res = res
	if watch != nil && res != nil && res.Lines == 0 {
		got.notes = append(got.notes, "standard input was empty: if the command printed its error to the terminal, it went to stderr, so pipe both (python train.py 2>&1 | oomdoc)")
	}
	if watch != nil && res != nil && len(res.Events) == 0 && res.Lines > 0 && !watch.seen {
		got.notes = append(got.notes, "standard input holds output but no traceback: tracebacks go to stderr, so pipe both (python train.py 2>&1 | oomdoc)")
	}
	return got, nil
}

// safeParse parses r and turns a panic in the analysis into an error.
// Beside a command (run, --tee) the analysis runs at lowered priority on
// its own thread, and opts keeps all of it there (Options.OneThread).
func safeParse(r io.Reader, name string, opts parser.Options) (res *parser.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("internal error while reading %s: %v", render.Safe(name), p)
		}
	}()
	return parser.ParseWith(r, name, opts)
}

// unwrapPath drops the *PathError prefix that repeats the file name.
func unwrapPath(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
